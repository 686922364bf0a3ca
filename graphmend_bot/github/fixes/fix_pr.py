"""Fix pull requests: the safe rewrites committed on a bot branch and proposed as a pull request.

Like Dependabot and autofix.ci: one branch per source (`graphmend/fix/pr-<N>` for pull request N,
`graphmend/fix/<default branch>` for scheduled scans), regenerated from the source head on every
run and force-updated only when its content changes; one pull request per branch, edited rather
than duplicated; closed with a comment when the findings are gone or the source pull request
closes. Files under `.github/workflows/` are never changed.

Commits are made through the git data API (blobs, tree, commit, ref) rather than `git push`:
the workspace needs no credentials (`persist-credentials: false`), and a GitHub App's API commits
are signed by GitHub.
"""

from __future__ import annotations

import base64
import os
import posixpath
import re
import stat
import tokenize
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from github import GithubException, InputGitAuthor, InputGitTreeElement
from github.GitCommit import GitCommit
from github.GitTree import GitTree
from github.PullRequest import PullRequest
from github.Repository import Repository

from graphmend_bot.fences import code_block, code_span, outside_code_blocks
from graphmend_bot.findings import Finding
from graphmend_bot.github.core.body_budget import GITHUB_BODY_LIMIT, body_size, lines_fitting
from graphmend_bot.github.core.markers import FIX_PR_MARKER, VERIFICATION_END, VERIFICATION_START
from graphmend_bot.github.core.outputs import Log
from graphmend_bot.github.fixes.narrowing import excluded_marker, with_exclusions
from graphmend_bot.github.review.suggestion import suggestion_for
from graphmend_bot.report.markdown import MOVED_BREAK, assumed_text
from graphmend_bot.report.untrusted_text import markdown_text
from graphmend_bot.source_lines import physical_lines

FIX_BRANCH_PREFIX = "graphmend/fix/"
BOT_NAME = "graphmend[bot]"
BOT_EMAIL = "graphmend[bot]@users.noreply.github.com"
PROTECTED_PREFIXES = (".github/workflows/",)
MAX_LISTED_REWRITES = 50
MAX_SNIPPET = 1500

# git check-ref-format, the parts that matter for names the bot builds or receives.
_BRANCH_FORBIDDEN = re.compile(r"(^[-/.])|(\.\.)|(//)|(@\{)|([\x00-\x20~^:?*\[\\\x7f])|([/.]$)|(\.lock$)|(\.lock/)|(/\.)")


_BRANCH_CHARS = re.compile(r"[A-Za-z0-9._/+-]+")


def valid_branch(name: str) -> bool:
    """A branch name git accepts, in a conservative alphabet (no shell or URL metacharacters): the
    bot writes only to branches whose names pass this check."""
    return (0 < len(name) <= 200 and _BRANCH_CHARS.fullmatch(name) is not None
            and _BRANCH_FORBIDDEN.search(name) is None)


def fix_branch_for_pull(number: int) -> str:
    return f"{FIX_BRANCH_PREFIX}pr-{number}"


def fix_branch_for(branch: str) -> str:
    return f"{FIX_BRANCH_PREFIX}{branch}"


def is_fix_branch(branch: str) -> bool:
    return branch.startswith(FIX_BRANCH_PREFIX)


def protected(path: str) -> bool:
    normal = posixpath.normpath(path.replace(os.sep, "/"))
    while normal.startswith("./"):
        normal = normal[2:]
    return any(normal.startswith(prefix) for prefix in PROTECTED_PREFIXES)


@dataclass(frozen=True)
class FileEdit:
    """One rewritten file: its path relative to the repository root and its new bytes."""

    path: str
    content: bytes
    executable: bool = False


@dataclass(frozen=True)
class Rewrite:
    """One line of the fix pull request's body: which rule, where, before and after."""

    path: str
    line: int
    code: str
    message: str
    before: str
    after: str
    assumptions: tuple[str, ...] = ()  # empty: a safe rewrite
    moves: bool = False  # the rewrite moves its break to the callers (Fix.effect): not a fix of it


@dataclass
class FixPlan:
    files: list[FileEdit] = field(default_factory=list)
    rewrites: list[Rewrite] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)  # paths the bot may not change
    verified: bool = False  # `fixes: verified`: unsafe rewrites too, unproven until the GPU job approves
    dropped: list[str] = field(default_factory=list)  # fixes left out: no verify entry point ran them (narrowing.py)

    @property
    def unsafe(self) -> list[Rewrite]:
        return [rewrite for rewrite in self.rewrites if rewrite.assumptions]

    @property
    def moved(self) -> list[Rewrite]:
        return [rewrite for rewrite in self.rewrites if rewrite.moves]

    @property
    def removed(self) -> int:
        """Breaks the rewrites remove; the changed files when only later passes rewrote (no listed rewrite)."""
        if not self.rewrites:
            return len(self.files)
        return len(self.rewrites) - len(self.moved)

    @property
    def empty(self) -> bool:
        return not self.files


def breaks_changed(plan: FixPlan, noun: str = "graph break(s)") -> str:
    """What the rewrites do to the breaks, for titles and messages: "fix 2 graph break(s)", and
    ", move 1 graph break(s) to the callers" when some only move their break."""
    moved = len(plan.moved)
    fixed = f"fix {plan.removed} {noun}"
    if not moved:
        return fixed
    move = f"move {moved} {noun} to the callers"
    return f"{fixed}, {move}" if plan.removed else move


def rewrites_for(findings: Iterable[Finding], sources: dict[str, str], paths: set[str],
                 unsafe: bool = False) -> list[Rewrite]:
    """Before/after of each safe fix (and unsafe one, with `unsafe`) in `paths` (the first pass;
    later passes are in the diff)."""
    out = []
    for finding in sorted(findings, key=lambda f: f.sort_key):
        source = sources.get(finding.path)
        if finding.path not in paths or source is None:
            continue
        suggestion = suggestion_for(finding, source, unsafe)
        if suggestion is None or finding.fix is None:
            continue
        lines = physical_lines(source)
        before = "\n".join(lines[suggestion.first_line - 1:suggestion.last_line])
        out.append(Rewrite(finding.path, suggestion.first_line, finding.code, finding.fix.message, before,
                           suggestion.text, finding.fix.assumptions, finding.fix.moves))
    return out


def plan_fix(changes: Sequence[tuple[str, str, str]], findings: Iterable[Finding], workspace: Path,
             allowed: set[str] | None = None, verified: bool = False) -> FixPlan:
    """Pure but for reading file modes and encodings: (path, before, after) -> what to commit.

    `allowed` limits the files (a pull request's changed files); workflow files are never changed.
    `verified`: the changes include unsafe fixes, listed with their assumptions.
    """
    plan = FixPlan(verified=verified)
    sources: dict[str, str] = {}
    for path, before, after in changes:
        if allowed is not None and path not in allowed:
            continue
        if protected(path):
            plan.skipped.append(path)
            continue
        sources[path] = before
        file = workspace / path
        with file.open("rb") as handle:
            encoding, _ = tokenize.detect_encoding(handle.readline)
        executable = bool(file.stat().st_mode & stat.S_IXUSR)
        plan.files.append(FileEdit(path, after.encode(encoding), executable))
    plan.rewrites = rewrites_for(findings, sources, set(sources), unsafe=verified)
    return plan


def _snippet(text: str) -> str:
    text = text if len(text) <= MAX_SNIPPET else text[:MAX_SNIPPET] + "\n..."
    return code_block(text, "python")


PENDING_VERIFICATION = (
    "Not verified on a GPU yet. The rewrites are the safe ones (same results by construction); the "
    "GPU workflow (`graphmend-verify.yml`) measures graph counts, output equality and timings on both sides "
    "and approves this pull request only when graph counts did not rise, at least one break went "
    "away and every output is equal. Comment `/graphmend verify` on the pull request to run it."
)


UNPROVEN_VERIFICATION = (
    "Not verified yet. Some rewrites are unsafe: each rests on an assumption listed above (a dtype, an "
    "exception type, an override) that the code alone does not prove, so they are **unproven until the "
    "verification approves this pull request**. The verification workflow (`graphmend-verify.yml`) runs "
    "the project's entry points on both sides, checks those assumptions on the project's own inputs "
    "(eager outputs bit-identical, compiled outputs within the equivalence policy, every rewritten line "
    "executed) and approves only then. Comment `/graphmend verify` on the pull request to run it."
)


def _assumptions_section(plan: FixPlan) -> list[str]:
    unsafe = plan.unsafe
    if not unsafe:
        return []
    lines = ["", f"### Assumptions ({len(unsafe)} unsafe rewrite(s), unproven until the verification approves)", ""]
    for rewrite in unsafe[:MAX_LISTED_REWRITES]:
        lines.append(f"- **{rewrite.code}** {code_span(rewrite.path)} line {rewrite.line}: "
                     f"assumes {assumed_text(rewrite.assumptions)}")
    if len(unsafe) > MAX_LISTED_REWRITES:
        lines.append(f"- ... {len(unsafe) - MAX_LISTED_REWRITES} more in the diff")
    return lines


def fix_body(plan: FixPlan, source: str, head_sha: str, verification: str | None = None) -> str:
    """The fix pull request's description: each rewrite (file, rule, before/after), the
    assumptions of the unsafe ones, verification.

    GitHub refuses a description over 65,536 characters, and then the pull request never opens or
    updates. So the body is built against MAX_FIX_BODY: the Before/After snippets go first ("N more
    in the diff"), then table rows; the sections the bot and the approval read back (the unproven-
    fixes record, the verification markers, FIX_PR_MARKER) and the assumptions are always whole."""
    if verification is None:
        verification = UNPROVEN_VERIFICATION if plan.unsafe else PENDING_VERIFICATION
    count = len(plan.rewrites)
    moved = len(plan.moved)
    head = [
        f"GraphMend removes {plan.removed} torch.compile graph break(s) in {len(plan.files)} file(s) of {source} "
        f"(at `{head_sha[:7]}`). Merge this pull request to apply them.",
        "",
        "| File | Line | Rule | Rewrite |",
        "|---|---:|---|---|",
    ]
    if moved:
        head[1:1] = ["", f"{moved} more rewrite(s) only move their break: {MOVED_BREAK} Not counted as removed."]
    tail = [*_assumptions_section(plan)]
    if plan.skipped:
        tail += ["", "Not changed (the bot never edits workflows): " + ", ".join(code_span(p) for p in plan.skipped)]
    tail += _dropped_section(plan)
    tail += ["", "### Verification", "", VERIFICATION_START, verification, VERIFICATION_END, "",
             "<sub>Updated by GraphMend on every push to the source; closed when it is no longer needed. "
             "Its commits never trigger another fix.</sub>", FIX_PR_MARKER]
    listed = plan.rewrites[:MAX_LISTED_REWRITES]
    rows = [_table_row(rewrite) for rewrite in listed]
    snippets = [_before_after(rewrite) for rewrite in listed]
    record = len(excluded_marker(plan.dropped)) + 1 if plan.dropped else 0
    room = MAX_FIX_BODY - body_size([*head, *tail]) - record - _MORE_LINES
    shown_rows = lines_fitting(rows, room)
    shown = lines_fitting(snippets[:shown_rows], room - body_size(rows[:shown_rows]))
    lines = [*head, *rows[:shown_rows]]
    if count > shown_rows:
        lines.append(f"| ... | | | {count - shown_rows} more in the diff |")
    lines += ["", "<details><summary>Before and after</summary>", "", *snippets[:shown]]
    if count > shown:
        lines += [f"Before and after of {count - shown} more rewrite(s) in the diff.", ""]
    lines += ["</details>", *tail]
    return with_exclusions("\n".join(lines) + "\n", plan.dropped)


# Under GITHUB_BODY_LIMIT by room for what the approval writes into the body later (its verdict in
# the verification section, the fixes it found unproven).
MAX_FIX_BODY = GITHUB_BODY_LIMIT - 9_536
_MORE_LINES = 200  # the two "N more in the diff" lines


def _table_row(rewrite: Rewrite) -> str:
    effect = "**Moves the break, not removed.** " if rewrite.moves else ""
    return (f"| {code_span(rewrite.path)} | {rewrite.line} | {rewrite.code} | "
            f"{effect}{markdown_text(rewrite.message)} |")


def _before_after(rewrite: Rewrite) -> str:
    """One rewrite's Before/After, as the lines of the body it adds (joined: it is kept or dropped whole)."""
    return "\n".join([f"**{rewrite.code}** {code_span(rewrite.path)} line {rewrite.line}", "", "Before:", "",
                      _snippet(rewrite.before), "", "After:", "", _snippet(rewrite.after), ""])


def _dropped_section(plan: FixPlan) -> list[str]:
    if not plan.dropped:
        return []
    named = ", ".join(code_span(name) for name in plan.dropped[:MAX_LISTED_REWRITES])
    more = f" and {len(plan.dropped) - MAX_LISTED_REWRITES} more" if len(plan.dropped) > MAX_LISTED_REWRITES else ""
    return ["", f"### Left out: {len(plan.dropped)} unproven fix(es)", "",
            f"Verification found that no verify entry point executes these fixes (file: base lines), so nothing "
            f"proves them: {named}{more}. They stay review suggestions; add an entry point that runs them to "
            "bring them back."]


def with_verification(body: str, verification: str) -> str:
    """`body` with its verification section replaced (the GPU job's verdict). Its markers count only
    as whole lines outside the code the body quotes, which may hold the same text."""
    lines = body.split("\n")
    outside = outside_code_blocks(lines)
    starts = [i for i, line in enumerate(lines) if outside[i] and line.strip() == VERIFICATION_START]
    ends = [i for i, line in enumerate(lines) if outside[i] and line.strip() == VERIFICATION_END]
    if not starts or not ends or ends[-1] < starts[-1]:
        return body
    return "\n".join([*lines[:starts[-1]], VERIFICATION_START, verification, *lines[ends[-1]:]])


# -- the API --------------------------------------------------------------------------------------
def build_tree(repo: Repository, parent: GitCommit, files: Sequence[FileEdit]) -> GitTree:
    """The parent's tree with `files` replaced (blobs and tree through the git data API)."""
    elements = []
    for file in files:
        blob = repo.create_git_blob(base64.b64encode(file.content).decode(), "base64")
        mode = "100755" if file.executable else "100644"
        elements.append(InputGitTreeElement(file.path, mode, "blob", sha=blob.sha))
    return repo.create_git_tree(elements, parent.tree)


def commit_files(repo: Repository, parent_sha: str, files: Sequence[FileEdit], message: str,
                 unless: str | None = None) -> str | None:
    """A commit with `files` on top of `parent_sha`; its sha, or None when commit `unless` is
    already exactly that (same parent, same tree): nothing to push, no CI run for nothing."""
    parent = repo.get_git_commit(parent_sha)
    tree = build_tree(repo, parent, files)
    if unless is not None:
        existing = repo.get_git_commit(unless)
        if existing.tree.sha == tree.sha and [p.sha for p in existing.parents] == [parent_sha]:
            return None
    author = InputGitAuthor(BOT_NAME, BOT_EMAIL)
    return repo.create_git_commit(message, tree, [parent], author=author, committer=author).sha


def branch_sha(repo: Repository, branch: str) -> str | None:
    try:
        return repo.get_git_ref(f"heads/{branch}").object.sha
    except GithubException as error:
        if error.status == 404:
            return None
        raise


@dataclass
class FixPullOutcome:
    """What publishing or closing did to the fix pull request (rewrite.FixOutcome is the fix run)."""

    pull: PullRequest | None
    created: bool = False
    pushed: bool = False
    closed: bool = False


def find_fix_pull(repo: Repository, branch: str) -> PullRequest | None:
    owner = repo.owner.login
    for pull in repo.get_pulls(state="open", head=f"{owner}:{branch}"):
        return pull
    return None


def publish_fix(repo: Repository, branch: str, base: str, parent_sha: str, plan: FixPlan, title: str, body: str,
                message: str, log: Log) -> FixPullOutcome:
    """Create or update the fix branch and its pull request into `base`."""
    if not valid_branch(branch) or not valid_branch(base):
        raise ValueError(f"refusing branch names {branch!r} -> {base!r}")
    current = branch_sha(repo, branch)
    outcome = FixPullOutcome(find_fix_pull(repo, branch) if current is not None else None)
    sha = commit_files(repo, parent_sha, plan.files, message, unless=current)
    if sha is not None:
        if current is None:
            repo.create_git_ref(f"refs/heads/{branch}", sha)
        else:
            repo.get_git_ref(f"heads/{branch}").edit(sha, force=True)  # the bot's own branch, regenerated
        outcome.pushed = True
        log.info(f"pushed {sha[:7]} to {branch} ({len(plan.files)} file(s))")
    else:
        log.info(f"{branch} already holds these rewrites: not pushed again")
    if outcome.pull is None:
        outcome.pull = repo.create_pull(base=base, head=branch, title=title, body=body, maintainer_can_modify=True)
        outcome.created = True
        log.info(f"opened fix pull request #{outcome.pull.number} ({branch} -> {base})")
    elif outcome.pull.body != body or outcome.pull.title != title:
        outcome.pull.edit(title=title, body=body)
        log.info(f"updated fix pull request #{outcome.pull.number}")
    return outcome


def close_fix(repo: Repository, branch: str, reason: str, log: Log, only_at: str | None = None) -> FixPullOutcome:
    """Close the fix pull request of `branch` with a comment saying why, and delete the branch.

    With `only_at`, the branch is deleted only while it still points at that commit: a commit
    pushed since the caller's check is left where it is. (GitHub has no compare-and-swap for
    deleting a ref, so the check is made right before the delete.)"""
    pull = find_fix_pull(repo, branch)
    if pull is not None:
        pull.create_issue_comment(f"{reason}\n\n<!-- graphmend:fix-closed -->")
        pull.edit(state="closed")
        log.info(f"closed fix pull request #{pull.number}: {reason}")
    tip = branch_sha(repo, branch)
    if tip is not None and only_at is not None and tip != only_at:
        log.warning(f"`{branch}` moved to {tip[:7]} since {only_at[:7]} was checked: the branch is kept")
    elif tip is not None:
        repo.get_git_ref(f"heads/{branch}").delete()
    return FixPullOutcome(pull, closed=pull is not None)


def push_to_branch(repo: Repository, branch: str, parent_sha: str, files: Sequence[FileEdit], message: str) -> str:
    """`/graphmend fix --push`: commit on the pull request's own branch, fast-forward only."""
    if not valid_branch(branch):
        raise ValueError(f"refusing branch name {branch!r}")
    sha = commit_files(repo, parent_sha, files, message)
    assert sha is not None
    repo.get_git_ref(f"heads/{branch}").edit(sha, force=False)
    return sha
