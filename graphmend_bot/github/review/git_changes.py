"""A pull request's changed files, read from a local git repository instead of the API.

`graphmend review --base REF` compares the working tree with REF. Each changed file comes with the
patch GitHub's `GET /repos/{owner}/{repo}/pulls/{n}/files` would give it: the unified-diff hunks
from the first `@@` on, no file header, and the same selection the bot makes (Python files only,
removed files skipped, a rename under its new name). Untracked files that git does not ignore are
new files of the change, as they would be once committed.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from graphmend_bot.git_command import run_git


class GitError(Exception):
    """git cannot answer (not a repository, an unknown REF): the message says which, for the user."""


@dataclass(frozen=True)
class ChangedFile:
    path: str  # relative to the repository's top, with `/`, as the API names it
    patch: str  # "" for a file with no text hunks (binary), as the API leaves `patch` out


@dataclass(frozen=True)
class WorkingTreeChange:
    root: Path  # the repository's top
    base: str  # the commit REF names
    head: str  # HEAD's commit when the working tree holds no other change to Python files, else ""
    files: list[ChangedFile]
    gone: tuple[str, ...] = ()  # Python files of the base the change deletes or renames (old paths)
    renamed: tuple[tuple[str, str], ...] = ()  # (old path, new path) of the Python files renamed


def _git(root: Path, *args: str, ok: tuple[int, ...] = (0,)) -> str:
    # No external diff drivers or text conversions: the patch must be git's own, as GitHub computes it.
    done = run_git(args, root, (("core.quotepath", "off"),), text=True, encoding="utf-8", errors="surrogateescape")
    if done.returncode not in ok:
        raise GitError(done.stderr.strip() or f"git {args[0]} failed with exit code {done.returncode}")
    return done.stdout


def repository_root(start: Path) -> Path:
    try:
        return Path(_git(start, "rev-parse", "--show-toplevel").strip())
    except (GitError, OSError):
        raise GitError(f"{start} is not in a git repository: `graphmend review` compares the working tree "
                       "with a commit (use `graphmend check` outside git)") from None


def resolve_commit(root: Path, ref: str) -> str:
    if not ref or ref.startswith("-"):
        raise GitError(f"--base {ref!r} is not a git revision")
    try:
        return _git(root, "rev-parse", "--verify", "--quiet", "--end-of-options", f"{ref}^{{commit}}").strip()
    except GitError:
        raise GitError(f"--base {ref!r} names no commit in {root} (try `git fetch`, or a branch such as main)") from None


def _patch(raw: str) -> str:
    """The hunks of one file's `git diff`, as the API's `patch` field holds them."""
    if raw.startswith("@@"):
        return raw.rstrip("\n")
    start = raw.find("\n@@")
    return raw[start + 1:].rstrip("\n") if start >= 0 else ""


def working_tree_change(start: Path, ref: str) -> WorkingTreeChange:
    root = repository_root(start)
    base = resolve_commit(root, ref)
    files: list[ChangedFile] = []
    gone: list[str] = []
    renamed: list[tuple[str, str]] = []
    fields = _git(root, "diff", "-z", "--name-status", "-M", "--no-ext-diff", "--no-textconv", base, "--").split("\0")
    index = 0
    while index < len(fields) - 1:
        status = fields[index]
        count = 2 if status[:1] in ("R", "C") else 1  # a rename or copy names the old path, then the new
        names = fields[index + 1:index + 1 + count]
        index += 1 + count
        path = names[-1]
        if status[:1] in ("D", "R") and names[0].endswith(".py"):
            gone.append(names[0])
            if status[:1] == "R" and path.endswith(".py"):
                renamed.append((names[0], path))
        if status.startswith("D") or not path.endswith(".py"):
            continue
        raw = _git(root, "diff", "-U3", "-M", "--no-ext-diff", "--no-textconv", "--no-color", base, "--", *names)
        files.append(ChangedFile(path, _patch(raw)))
    untracked = [p for p in _git(root, "ls-files", "-z", "--others", "--exclude-standard").split("\0")
                 if p.endswith(".py")]
    for path in untracked:
        raw = _git(root, "diff", "--no-index", "--no-ext-diff", "--no-textconv", "--no-color", "--", "/dev/null",
                   path, ok=(0, 1))
        files.append(ChangedFile(path, _patch(raw)))
    dirty = bool(untracked) or bool(_git(root, "diff", "--name-only", "HEAD", "--", "*.py").strip())
    head = "" if dirty else _git(root, "rev-parse", "HEAD").strip()
    return WorkingTreeChange(root, base, head, sorted(files, key=lambda f: f.path), tuple(sorted(gone)),
                             tuple(sorted(renamed)))


def show_file(root: Path, commit: str, path: str) -> bytes | None:
    """The bytes of `path` in `commit`'s tree, or None when it holds no such file."""
    done = run_git(["cat-file", "blob", f"{commit}:{path}"], root)
    return done.stdout if done.returncode == 0 else None
