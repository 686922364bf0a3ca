"""Command-line interface: argument parsing only; each subcommand calls one function.

Exit codes follow ruff: 0 no findings, 1 findings, 2 usage, configuration or internal error.
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import os
import sys
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple, NoReturn

from graphmend_bot import __version__
from graphmend_bot.analysis.cache_trust import project_cache
from graphmend_bot.analysis.public_api import SCOPES
from graphmend_bot.analysis.summary_cache import SummaryCache
from graphmend_bot.baseline import without_baselined
from graphmend_bot.config import Config, ConfigError, find_config_file, load_config, unknown_codes
from graphmend_bot.engine import check
from graphmend_bot.exit_codes import EXIT_CLEAN, EXIT_ERROR, EXIT_FINDINGS, EXIT_INTERRUPTED
from graphmend_bot.findings import CheckResult, FileError
from graphmend_bot.git_command import run_git
from graphmend_bot.github.core.context import FAIL_ON
from graphmend_bot.project import ProjectScope, project_scope, within, write_root
from graphmend_bot.report import RENDERERS
from graphmend_bot.report.statistics import STATISTICS_FORMATS
from graphmend_bot.report.terminal import one_line, shown_to_a_person, terminal_text, visible
from graphmend_bot.rules import ALL_RULES_BY_CODE, RULES
from graphmend_bot.source_warnings import ignore_source_warnings
from graphmend_bot.verify.arguments import add_arguments as add_verify_arguments

if TYPE_CHECKING:
    from graphmend_bot.rewrite import FileChange

Command = Callable[[argparse.Namespace], int]


def _split_codes(value: str) -> list[str]:
    """`--select GM1,GM301`: codes or prefixes of real codes; an unknown one is a usage error (exit 2)."""
    codes = [code.strip() for code in value.split(",") if code.strip()]
    unknown = unknown_codes(codes)
    if unknown:
        raise argparse.ArgumentTypeError(
            f"{', '.join(map(repr, unknown))} matches no rule (`graphmend rules` lists them)"
        )
    return codes


def _missing_paths(paths: Sequence[str]) -> list[str]:
    """Paths that do not exist: each is an error (exit 2), the others are still checked and reported."""
    missing = [path for path in paths if not os.path.lexists(path)]
    for path in missing:
        print(f"graphmend: error: {visible(path)}: no such file or directory", file=sys.stderr)
    return missing


def _load_config(args: argparse.Namespace) -> Config:
    paths = getattr(args, "paths", None) or ["."]
    config = load_config(Path(args.config) if args.config else None, start=Path(paths[0]))
    if getattr(args, "select", None):
        config.select = args.select
    if getattr(args, "extend_ignore", None):
        config.ignore = [*config.ignore, *args.extend_ignore]
    if getattr(args, "ignore", None):
        config.ignore = args.ignore
    if getattr(args, "baseline", None):
        config.baseline = os.path.abspath(args.baseline)
    if getattr(args, "scope", None):
        config.scope = args.scope
    return config


def cmd_check(args: argparse.Namespace) -> int:
    if args.statistics and args.output_format not in STATISTICS_FORMATS:
        # ruff refuses the same ("Unsupported serialization format for statistics")
        print(f"graphmend: error: --statistics prints {' or '.join(STATISTICS_FORMATS)}, not {args.output_format}",
              file=sys.stderr)
        return EXIT_ERROR
    if len(writing := _writing_modes(args)) > 1:
        # Only one of them runs (_run_check): the others would be dropped without a word.
        print(f"graphmend: error: {' and '.join(writing)} cannot be used together; run one, then the other",
              file=sys.stderr)
        return EXIT_ERROR
    missing = _missing_paths(args.paths or ["."])
    if (args.fix or args.diff) and len(missing) == len(args.paths or ["."]):
        return EXIT_ERROR  # nothing to fix: the error is all there is to say
    groups = _paths_by_config(args)
    status = _run_check(args) if len(groups) < 2 else _run_config_groups(args, groups)
    # A typo in a CI path must fail the job even with findings or --exit-zero (ruff's E902 fails it too).
    return EXIT_ERROR if missing else status


def _writing_modes(args: argparse.Namespace) -> list[str]:
    """The modes given that each decide what the run writes (files, a baseline, comments)."""
    modes = {"--fix": args.fix, "--diff": args.diff and not args.fix, "--update-baseline": args.update_baseline,
             "--add-noqa": args.add_noqa}
    return [flag for flag, given in modes.items() if given]


def _scoped_check(args: argparse.Namespace, config: Config, scope: ProjectScope | None = None) -> CheckResult:
    """The given paths' findings, analysed within their project (project.py)."""
    scope = scope or project_scope(args.paths or ["."], config)
    return _restricted(check(scope.context, config, only=scope.only, cache=_cache(args, scope)), scope, args.paths,
                       config)


def _paths_by_config(args: argparse.Namespace) -> list[list[str]]:
    """The given paths grouped by the configuration file nearest each, as ruff picks one per file:
    pre-commit hands a monorepo's files from several projects to one run. One group when
    `--config` names the file."""
    paths = args.paths or ["."]
    if args.config:
        return [list(paths)]
    groups: dict[Path | None, list[str]] = {}
    nearest: dict[str, Path | None] = {}  # by folder: pre-commit passes many files of one folder
    for path in paths:
        if not os.path.lexists(path):
            continue  # an error already (_missing_paths); it would make a group of its own
        folder = path if os.path.isdir(path) else os.path.dirname(os.path.abspath(path))
        if folder not in nearest:
            nearest[folder] = find_config_file(Path(folder))
        groups.setdefault(nearest[folder], []).append(path)
    return list(groups.values())


def _run_config_groups(args: argparse.Namespace, groups: list[list[str]]) -> int:
    """Each group of paths checked with its own configuration. A report is one document over all
    of them; writing modes (fix, baseline, noqa) run group by group, each in its own project."""
    if args.shard or args.save_result:
        print("graphmend: error: the paths belong to different configurations "
              f"({', '.join(visible(group[0]) for group in groups)}, ...): a shard or a saved result "
              "holds one; check them one project at a time", file=sys.stderr)
        return EXIT_ERROR
    runs = [argparse.Namespace(**{**vars(args), "paths": group}) for group in groups]
    if args.update_baseline or args.add_noqa:
        return max(_run_check(run) for run in runs)
    if args.fix or args.diff:  # fixed group by group, reported once (one -o file, one JSON document)
        return _fix_report(args, [_fixed(run, _load_config(run)) for run in runs])
    return _report(args, _merged([_checked(run, _load_config(run)) for run in runs]))


def _merged(results: Sequence[CheckResult]) -> CheckResult:
    return CheckResult(
        findings=[finding for result in results for finding in result.findings],
        errors=[error for result in results for error in result.errors],
        files_checked=sum(result.files_checked for result in results),
        baselined=sum(result.baselined for result in results),
    )


def _run_check(args: argparse.Namespace) -> int:
    config = _load_config(args)
    if args.update_baseline:
        return _update_baseline(args, config)
    if args.fix or args.diff:
        return _fix(args, config)
    if args.add_noqa:
        return _add_noqa(args, config)
    if args.shard or args.save_result:
        return _check_shard(args, config)
    return _report(args, _checked(args, config))


def _checked(args: argparse.Namespace, config: Config) -> CheckResult:
    """The paths' findings as `check` reports them: with fixes and the census when asked for."""
    if args.ends_process:
        # The process ends when this returns (`run`): the cyclic collector stays off from here.
        # engine.check pauses it for the analysis; back on, its next young collection would walk
        # every summary and solver object still alive, in vain (0.3 s on transformers' models/).
        gc.disable()
    result = _scoped_check(args, config)
    # Offering fixes parses the flagged files with libcst, several times slower than detection,
    # so a plain check stays fast (ruff's --show-fixes is the anchor for the flag).
    if args.show_fixes:
        from graphmend_bot.rewrite import attach_fixes

        result = attach_fixes(result, config, args.paths or ["."])
    if args.census:
        result = _with_census(args, config, result)
    return result


def _cache(args: argparse.Namespace, scope: ProjectScope) -> SummaryCache | None:
    """The project's summary cache, unless `--no-cache` (analysis/summary_cache.py)."""
    if args.no_cache:
        return None
    return project_cache(scope.root, _warn)


def _warn(message: str) -> None:
    print(one_line(f"graphmend: warning: {message}"), file=sys.stderr)


def _restricted(result: CheckResult, scope: ProjectScope, given: Sequence[str], config: Config) -> CheckResult:
    """A check of given paths in a larger project: its errors and file count are those of the paths,
    and the configuration's own warnings (a mistyped entry point), which lie in no given path."""
    if scope.only is None:
        return result
    errors = [error for error in result.errors if within(error.path, given) or _names_config(error.path, config)]
    return replace(result, errors=errors, files_checked=len(scope.only))


def _names_config(path: str, config: Config) -> bool:
    """Whether a message is the configuration's own: its path is the config file, however spelled (a
    cached result keeps the spelling of the run that stored it)."""
    if not config.source:
        return path == "configuration"
    return path == config.source or os.path.realpath(path) == os.path.realpath(config.source)


def _with_census(args: argparse.Namespace, config: Config, result: CheckResult) -> CheckResult:
    """Merge what Dynamo said in the tests; a census that cannot be used is a message, never the end
    of the run (the static findings are still reported)."""
    from graphmend_bot.analysis.files import discover
    from graphmend_bot.census.merge import merge_census
    from graphmend_bot.census.record import CensusError, load_census
    from graphmend_bot.census.staleness import refuse_if_edited
    from graphmend_bot.rules import RUNTIME_RULES, select_codes

    root = Path(args.census_root) if args.census_root else _repository_root(Path.cwd())
    try:
        head = _head_commit(root)
        census = load_census(Path(args.census), expected_commit=head)
        if head:
            refuse_if_edited(census, root)  # the commit is HEAD, but the working tree may differ from it
    except CensusError as error:
        print(one_line(f"graphmend: census not used: {error}; the findings are the static analysis alone"), file=sys.stderr)
        return result
    if not census.complete:
        print("graphmend: the census's test run stopped before its end (a crash?): it holds the tests that ran "
              "before", file=sys.stderr)
    files, _ = discover(args.paths or ["."], config.exclude, config.folder)
    codes = select_codes(config.select, config.ignore, RUNTIME_RULES)
    return merge_census(result, census, root, [f.path for f in files], codes)


def _repository_root(start: Path) -> Path:
    done = run_git(["rev-parse", "--show-toplevel"], start, text=True)
    return Path(done.stdout.strip()) if done.returncode == 0 and done.stdout.strip() else start


def _head_commit(root: Path) -> str:
    """The commit checked, so a census from another commit is refused; "" outside git."""
    done = run_git(["rev-parse", "HEAD"], root, text=True)
    return done.stdout.strip() if done.returncode == 0 else ""


def _check_shard(args: argparse.Namespace, config: Config) -> int:
    """`--shard I/N`: the files of one shard, checked with the whole tree as context."""
    import json

    from graphmend_bot.rewrite import attach_fixes
    from graphmend_bot.shards import ShardError, dump_result, parse_shard, shard_files

    if not args.shard or not args.save_result:
        print("graphmend: --shard and --save-result go together", file=sys.stderr)
        return EXIT_ERROR
    try:
        index, count = parse_shard(args.shard)
    except ShardError as error:
        print(one_line(f"graphmend: --shard: {error}"), file=sys.stderr)
        return EXIT_ERROR
    paths = args.paths or ["."]
    files = shard_files(paths, config, index, count)
    result = attach_fixes(check(paths, config, only=files), config, paths)
    Path(args.save_result).write_text(json.dumps(dump_result(result, f"{index}/{count}", files)), encoding="utf-8")
    return _report(args, result)


def _fix(args: argparse.Namespace, config: Config) -> int:
    """ruff semantics: --fix writes safe fixes (+ unsafe with --unsafe-fixes); --diff only prints."""
    return _fix_report(args, [_fixed(args, config)])


class _FixRun(NamedTuple):
    changes: list[FileChange]
    remaining: CheckResult  # what the given paths still report
    skipped: list[FileError]  # files whose fixes were not made (limits, symlinks out of the project)


def _fixed(args: argparse.Namespace, config: Config) -> _FixRun:
    """The fixes of one configuration's paths, written unless `--diff`."""
    from graphmend_bot.rewrite import FIXES_SKIPPED, fix_outcome, write_changes

    scope = project_scope(args.paths or ["."], config)  # --fix of one file writes that file only
    outcome = fix_outcome(scope.context, config, unsafe=args.unsafe_fixes, only=scope.only, cache=_cache(args, scope),
                          write_root=write_root(scope, args.paths))
    if not args.diff:
        write_changes(outcome.changes)
    skipped = [error for error in outcome.remaining.errors if error.message.startswith(FIXES_SKIPPED)]
    remaining = without_baselined(_restricted(outcome.remaining, scope, args.paths, config), config)
    return _FixRun(outcome.changes, remaining, skipped)


def _fix_report(args: argparse.Namespace, runs: Sequence[_FixRun]) -> int:
    """One summary and one report over every run (a run per configuration group)."""
    from graphmend_bot.report.text import fix_summary
    from graphmend_bot.rewrite import unified_diff

    changes = [change for run in runs for change in run.changes]
    if args.diff:
        diff = "".join(unified_diff(change) for change in changes)
        # Shown, the diff quotes the tree's code like the report does; piped or redirected, it stays a patch.
        sys.stdout.write(terminal_text(diff) if shown_to_a_person(sys.stdout) else diff)
        for error in (error for run in runs for error in run.skipped):  # no report here: say what went unfixed
            print(terminal_text(f"{visible(error.path)}: {visible(error.message)}"), file=sys.stderr)
        sys.stderr.write(fix_summary(changes, dry_run=True))
        return EXIT_FINDINGS if changes and not args.exit_zero else EXIT_CLEAN
    sys.stderr.write(fix_summary(changes))
    return _report(args, _merged([run.remaining for run in runs]))


def _update_baseline(args: argparse.Namespace, config: Config) -> int:
    """Write every current finding to the baseline, so later runs report only new ones; exit 0."""
    from graphmend_bot.baseline import Checked, baseline_path, write_baseline
    from graphmend_bot.rules import select_codes

    path = baseline_path(config)
    if path is None:
        print("graphmend: --update-baseline needs --baseline FILE or `baseline` in the configuration",
              file=sys.stderr)
        return EXIT_ERROR
    config.baseline = None  # every finding, the ones the old baseline held too
    scope = project_scope(args.paths or ["."], config)
    result = _scoped_check(args, config, scope)
    # Some files or some rules: their entries are replaced and the rest of the baseline stays. The
    # whole project with every rule replaces it all, so it also mends a baseline that no longer loads.
    given = args.paths or ["."]
    files = _files_checked(given, scope, path.parent, config)
    whole = files is None and not config.select and not config.ignore
    checked = None if whole else Checked(files, select_codes(config.select, config.ignore),
                                         [folder for folder in given if os.path.isdir(folder)])
    try:
        count = write_baseline(path, result.findings, checked, write_root(scope, given),
                               configured=not getattr(args, "baseline", None))
    except ConfigError as error:
        print(one_line(f"graphmend: --update-baseline: {error}"), file=sys.stderr)
        return EXIT_ERROR
    print(one_line(f"Wrote {count} finding(s) to the baseline {path}."), file=sys.stderr)
    return EXIT_CLEAN


def _files_checked(paths: Sequence[str], scope: ProjectScope, folder: Path, config: Config) -> list[str] | None:
    """The files a check of `paths` reports; None when they hold `folder` (the baseline's) whole,
    so that entries of files deleted since are dropped too."""
    if any(Path(os.path.abspath(folder)).is_relative_to(os.path.abspath(path)) for path in paths):
        return None
    if scope.only is not None:
        return scope.only
    from graphmend_bot.analysis.files import discover

    return [file.path for file in discover(paths, config.exclude, config.folder)[0]]


def _add_noqa(args: argparse.Namespace, config: Config) -> int:
    """ruff's --add-noqa: a `# graphmend: ignore[CODE]` comment on every finding's line; exit 0."""
    from graphmend_bot.add_noqa import add_noqa

    scope = project_scope(args.paths or ["."], config)
    outcome = add_noqa(_scoped_check(args, config, scope).findings, write_root(scope, args.paths))
    for path in outcome.outside:
        print(terminal_text(f"{visible(path)}: skipped: its real path is outside the project (a symlink out of it), "
                            "where --add-noqa never writes"), file=sys.stderr)
    print(f"Added {outcome.added} `# graphmend: ignore` comment(s) in {outcome.files} file(s).", file=sys.stderr)
    if outcome.skipped:
        print(f"graphmend: {outcome.skipped} finding(s) have no line that can take a comment without changing "
              "the code (inside a multi-line string, after a backslash): left as they are", file=sys.stderr)
    return EXIT_CLEAN


def _report(args: argparse.Namespace, result: CheckResult) -> int:
    if getattr(args, "statistics", False):
        from graphmend_bot.report.statistics import render_statistics

        output = render_statistics(result, args.output_format)
    else:
        output = RENDERERS[args.output_format](result)
    if args.output_file and not _write_report(Path(args.output_file), output):
        return EXIT_ERROR
    if not args.output_file:
        sys.stdout.write(output)
    return failing_status(result, args.exit_zero)


def _write_report(path: Path, output: str) -> bool:
    """`-o FILE`: False (said on stderr, the report then on stdout, so no finding is lost) when
    FILE cannot be written: a folder that does not exist, no permission, a full disk."""
    try:
        path.write_text(output, encoding="utf-8")
    except OSError as error:
        print(one_line(f"graphmend: cannot write {visible(str(path))}: {error.strerror or error}"), file=sys.stderr)
        sys.stdout.write(output)
        return False
    return True


def failing_status(result: CheckResult, exit_zero: bool) -> int:
    """1 for findings, and for a file that could not be checked at all (ruff's E999/E902 fail too)."""
    if (result.findings or any(error.blocking for error in result.errors)) and not exit_zero:
        return EXIT_FINDINGS
    return EXIT_CLEAN


def cmd_review(args: argparse.Namespace) -> int:
    """The pull-request review of the working tree against `--base`, printed: what the bot would post."""
    from graphmend_bot.github.core.results import failing
    from graphmend_bot.github.review.git_changes import GitError
    from graphmend_bot.github.review.local_review import RENDERERS as REVIEW_RENDERERS
    from graphmend_bot.github.review.local_review import review_working_tree

    missing = _missing_paths(args.paths or [])
    config = _load_config(args)  # before review_working_tree enters the repository's top
    output_file = Path(args.output_file).resolve() if args.output_file else None
    try:
        census = Path(args.census).resolve() if args.census else None  # before the review enters the top
        census_base = Path(args.census_base).resolve() if args.census_base else None
        review = review_working_tree(args.base, args.paths or ["."], config, args.max_comments, census,
                                     use_cache=not args.no_cache, census_base=census_base)
    except GitError as error:
        print(one_line(f"graphmend review: {error}"), file=sys.stderr)
        return EXIT_ERROR
    output = REVIEW_RENDERERS[args.output_format](review)
    if output_file and not _write_report(output_file, output):
        return EXIT_ERROR
    if not output_file:
        sys.stdout.write(output)
    if missing:
        return EXIT_ERROR
    if args.exit_zero:
        return EXIT_CLEAN
    if args.fail_on == "new-breaks" and review.gate_failure is None:
        print("graphmend review: --fail-on new-breaks compares censuses: give --census HEAD_CENSUS and "
              "--census-base BASE_CENSUS", file=sys.stderr)
        return EXIT_ERROR
    return EXIT_FINDINGS if failing(review.findings, args.fail_on, review.gate_failure) else EXIT_CLEAN


def _comment_limit(value: str) -> int:
    if not value.isdigit() or not 0 <= int(value) <= 100:
        raise argparse.ArgumentTypeError(f"must be a whole number from 0 to 100 (the action's `max-comments`), got {value!r}")
    return int(value)


def cmd_census(args: argparse.Namespace) -> int:
    from graphmend_bot.census.command import census_command

    return census_command(args.file, args.pytest_args, args.commit, args.entry, args.compare, args.head,
                          args.output_format, args.budget, args.update_budget, args.changed_since)


def cmd_verify(args: argparse.Namespace) -> int:
    from graphmend_bot.verify.command import run_verify

    return run_verify(args)


def cmd_rule(args: argparse.Namespace) -> int:
    rule = ALL_RULES_BY_CODE.get(args.code.upper())
    if rule is None:
        print(f"graphmend: unknown rule {args.code!r}; `graphmend rules` lists them", file=sys.stderr)
        return EXIT_ERROR
    sys.stdout.write(rule.documentation())
    return EXIT_CLEAN


def cmd_rules(args: argparse.Namespace) -> int:
    width = max(len(rule.name) for rule in RULES)
    for rule in RULES:
        print(f"{rule.code}  {rule.gb_id}  {rule.name:<{width}}  {rule.family}")
    return EXIT_CLEAN


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="graphmend",
        description="Find and fix torch.compile graph breaks.",
    )
    parser.add_argument("--version", action="version", version=f"graphmend {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    p = sub.add_parser("check", help="report graph breaks in Python files and directories")
    p.add_argument("paths", nargs="*", metavar="PATH", help="files or directories (default: .)")
    p.add_argument(
        "--output-format", choices=sorted(RENDERERS), default="text", help="how to print findings"
    )
    p.add_argument("--output-file", "-o", metavar="FILE", help="write the report here instead of stdout")
    p.add_argument("--select", type=_split_codes, metavar="CODES", help="only these codes or prefixes")
    p.add_argument("--ignore", type=_split_codes, metavar="CODES", help="skip these codes or prefixes")
    p.add_argument("--extend-ignore", type=_split_codes, metavar="CODES", help="skip these too")
    p.add_argument("--exit-zero", action="store_true", help="exit 0 even when there are findings")
    p.add_argument(
        "--show-fixes", action="store_true", help="say which findings have a fix, and what it does"
    )
    p.add_argument("--fix", action="store_true", help="apply safe fixes, writing the files")
    p.add_argument("--unsafe-fixes", action="store_true", help="with --fix or --diff, apply unsafe fixes too")
    p.add_argument("--diff", action="store_true", help="print the fixes as a unified diff; write nothing")
    p.add_argument("--config", metavar="FILE", help="pyproject.toml or .graphmend.yml to use")
    add_scope_argument(p)
    p.add_argument("--shard", metavar="I/N", help="report only shard I of N of the files (the rest is context)")
    p.add_argument("--save-result", metavar="FILE", help="with --shard: also save the result for `graphmend merge`")
    p.add_argument("--census", metavar="FILE",
                   help="merge a `pytest --graphmend-census` file: confirmed findings, and breaks only Dynamo saw (GM801)")
    p.add_argument("--census-root", metavar="DIR",
                   help="the folder the census paths are relative to (default: the git repository's top)")
    p.add_argument("--no-cache", action="store_true",
                   help="neither read nor write the summary cache (.graphmend_cache, or GRAPHMEND_CACHE_DIR)")
    p.add_argument("--statistics", action="store_true", help="print how many findings each rule has, not the findings")
    p.add_argument("--add-noqa", action="store_true",
                   help="add `# graphmend: ignore[CODE]` to the line of every finding (adopting on existing code)")
    add_baseline_arguments(p)
    p.add_argument("--update-baseline", action="store_true",
                   help="write every current finding to the baseline, so later runs report only new ones")
    p.set_defaults(handler=cmd_check)

    p = sub.add_parser("review", help="print the pull-request review of the working tree against a commit, as the bot would post it")
    p.add_argument("paths", nargs="*", metavar="PATH", help="what the bot checks, its `paths` input (default: .)")
    p.add_argument("--base", required=True, metavar="REF", help="the pull request's base: a branch, tag or commit")
    p.add_argument("--output-format", choices=("text", "markdown", "json"), default="text", help="how to print the review")
    p.add_argument("--output-file", "-o", metavar="FILE", help="write the review here instead of stdout")
    p.add_argument("--max-comments", type=_comment_limit, default=30, metavar="N",
                   help="inline comments per review, as the action's `max-comments` (default: 30)")
    p.add_argument("--select", type=_split_codes, metavar="CODES", help="only these codes or prefixes")
    p.add_argument("--ignore", type=_split_codes, metavar="CODES", help="skip these codes or prefixes")
    p.add_argument("--extend-ignore", type=_split_codes, metavar="CODES", help="skip these too")
    p.add_argument("--exit-zero", action="store_true", help="exit 0 even when there are findings")
    p.add_argument("--config", metavar="FILE", help="pyproject.toml or .graphmend.yml to use")
    add_scope_argument(p)
    p.add_argument("--census", metavar="FILE",
                   help="merge a `pytest --graphmend-census` file recorded on HEAD, as the bot merges its "
                        "`census-file` input: comments say what Dynamo confirmed, GM801 for breaks only it saw")
    p.add_argument("--census-base", metavar="FILE",
                   help="the base's census: the summary gets the table of graph breaks the change added and removed "
                        "(with the budget graphmend-breaks.json in --base's tree)")
    p.add_argument("--fail-on", choices=FAIL_ON, default="findings",
                   help="what makes the exit status 1, as the action's `fail-on` (new-breaks: breaks the census "
                        "comparison added beyond the budget; default: findings)")
    p.add_argument("--no-cache", action="store_true",
                   help="neither read nor write the summary cache (.graphmend_cache, or GRAPHMEND_CACHE_DIR)")
    add_baseline_arguments(p)
    p.set_defaults(handler=cmd_review)

    p = sub.add_parser("census", help="run the project's tests with the census plugin: Dynamo's own graph breaks, "
                                      "for `check --census`",
                       description="Runs `python -m pytest --graphmend-census` in this environment. Exit status: "
                                   "pytest's, or 2 when no census was written. With --compare or --budget: 1 when "
                                   "the change added graph breaks the budget does not expect (or a target can no "
                                   "longer be explained), 2 when a census or the budget cannot be used, else 0. "
                                   "With --update-budget: 0 once the budget is written, else 2.")
    p.add_argument("--file", default="graphmend-census.json", metavar="FILE",
                   help="where to write the census (default: graphmend-census.json)")
    p.add_argument("--commit", metavar="SHA", help="the commit to record (default: git's HEAD)")
    p.add_argument("--entry", action="append", default=[], metavar="MODULE:FUNCTION",
                   help="also census this function (repeatable; added to the configuration's entry-points)")
    p.add_argument("--changed-since", metavar="BASE",
                   help="pull-request mode: explain only the calls that reach a file changed since BASE (a branch, "
                        "tag or commit; git diff of the working tree); the census is partial, completed with BASE's "
                        "census when compared")
    p.add_argument("--compare", metavar="BASE_CENSUS",
                   help="then list the graph breaks added and removed since this census (the base's), per "
                        "target graphs, recompiles and fallbacks to eager; exit 1 when breaks were added")
    p.add_argument("--head", metavar="HEAD_CENSUS",
                   help="with --compare: compare this census instead of running the tests")
    p.add_argument("--budget", metavar="FILE",
                   help="graph breaks the repository expects (graphmend-breaks.json): an added break it holds does "
                        "not fail the gate; without --compare, the head is judged against it alone")
    p.add_argument("--update-budget", action="store_true",
                   help="write the census's breaks (or --head's) to the budget file (default: graphmend-breaks.json)")
    p.add_argument("--output-format", choices=("text", "json"), default="text",
                   help="how to print the comparison (default: text)")
    p.add_argument("pytest_args", nargs=argparse.REMAINDER, metavar="-- PYTEST_ARGS",
                   help="passed to pytest as they are")
    p.set_defaults(handler=cmd_census)

    p = sub.add_parser("verify", help="measure original vs rewritten code: graphs, outputs, compile and run time")
    add_verify_arguments(p)
    p.set_defaults(handler=cmd_verify)

    p = sub.add_parser("rule", help="explain one rule")
    p.add_argument("code", metavar="CODE")
    p.set_defaults(handler=cmd_rule)

    p = sub.add_parser("rules", help="list every rule")
    p.set_defaults(handler=cmd_rules)

    p = sub.add_parser("bot", help="run as the GitHub Action (reads the GITHUB_* and INPUT_* environment)")
    p.set_defaults(handler=cmd_bot)

    p = sub.add_parser("approve", help="GPU verification of GraphMend's fix pull requests, in three jobs")
    add_approve_commands(p)

    p = sub.add_parser("merge", help="merge the results of `graphmend check --shard i/N` into one report")
    p.add_argument("results", nargs="+", metavar="FILE", help="shard result files, or folders holding them")
    p.add_argument("--output-format", choices=sorted(RENDERERS), default="text", help="how to print findings")
    p.add_argument("--output-file", "-o", metavar="FILE", help="write the report here instead of stdout")
    p.add_argument("--exit-zero", action="store_true", help="exit 0 even when there are findings")
    p.set_defaults(handler=cmd_merge)
    return parser


def add_scope_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--scope", choices=SCOPES,
                        help="where traced code starts: forwards and compiled functions (model), also every "
                             "public function and method (library), or library for a package with no "
                             "compiled roots of its own (auto, the default; overrides `scope` in the config)")


def add_baseline_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--baseline", metavar="FILE",
                        help="hide the findings this baseline file holds (default: the configuration's `baseline`)")


def add_approve_commands(parser: argparse.ArgumentParser) -> None:
    """`approve preflight | measure | submit`: three jobs, so no token is ever near the PR's code."""
    steps = parser.add_subparsers(dest="step", required=True, metavar="STEP")
    bot_login_help = "login of the GitHub App that opens fix pull requests (default: graphmend[bot])"

    p = steps.add_parser("preflight", help="GitHub-hosted, read token: may this pull request be verified? (API only)")
    p.add_argument("--pull-request", type=int, required=True, metavar="N")
    p.add_argument("--bot-login", default="graphmend[bot]", metavar="LOGIN", help=bot_login_help)
    p.set_defaults(handler=_approve_step("preflight"))

    p = steps.add_parser("measure", help="GPU runner, no token: graphmend verify of the head against the base")
    p.add_argument("--checkout", required=True, metavar="DIR", help="the pull request's head, with its history")
    p.add_argument("--head-sha", required=True, metavar="SHA")
    p.add_argument("--base-sha", required=True, metavar="SHA")
    p.add_argument("--report", required=True, metavar="FILE", help="where to write the verify report (JSON)")
    p.add_argument("--device", choices=("auto", "cpu", "cuda"), help="passed to graphmend verify")
    p.add_argument("--entrypoint", action="append", metavar="MODULE:CALLABLE", help="passed to graphmend verify")
    p.add_argument("--timeout", type=float, metavar="S", help="passed to graphmend verify")
    p.add_argument("--python", metavar="PATH",
                   help="the interpreter with torch that runs the measured code, readable by every user "
                        "(passed to graphmend verify)")
    p.add_argument("--no-sandbox", action="store_true",
                   help="run the measured code as this user, unisolated: only for code you trust (tests, a local "
                        "try-out); the verify action never passes it (docs/security.md)")
    p.set_defaults(handler=_approve_step("measure"))

    p = steps.add_parser("submit", help="GitHub-hosted, pull-requests: write: check, recompute, review")
    p.add_argument("--pull-request", type=int, required=True, metavar="N")
    p.add_argument("--head-sha", required=True, metavar="SHA", help="the commit that was measured")
    p.add_argument("--report", required=True, metavar="FILE", help="the report measure wrote (untrusted)")
    p.add_argument("--bot-login", default="graphmend[bot]", metavar="LOGIN", help=bot_login_help)
    p.add_argument("--fixes", choices=("safe", "verified"), default="safe",
                   help="the fix set the bot commits (its `fixes` input): recomputed from the base to compare")
    p.add_argument("--narrow-workflow", default="", metavar="FILE",
                   help="the bot's fix workflow, dispatched to narrow the fix pull request when fixes are unproven")
    p.set_defaults(handler=_approve_step("submit"))


def _approve_step(step: str) -> Command:
    def run(args: argparse.Namespace) -> int:
        import os

        # Each step imports only its own module (measure has no token, so no client to build).
        if step == "preflight":
            from graphmend_bot.github.approval.preflight import preflight

            return preflight(args, os.environ)
        if step == "measure":
            from graphmend_bot.github.approval.measure import measure

            return measure(args, os.environ)
        from graphmend_bot.github.approval.submit import submit

        return submit(args, os.environ)

    return run


def cmd_merge(args: argparse.Namespace) -> int:
    from graphmend_bot.shards import ShardError, merge_shards, shard_paths

    try:
        result = merge_shards(shard_paths(args.results))
    except ShardError as error:
        print(one_line(f"graphmend merge: {error}"), file=sys.stderr)
        return EXIT_ERROR
    return _report(args, result)


def cmd_bot(args: argparse.Namespace) -> int:
    import os

    from graphmend_bot.github import run_bot  # PyGithub is imported only for this subcommand

    return run_bot(os.environ)


def main(argv: Sequence[str] | None = None, ends_process: bool = False) -> int:
    """The CLI; `ends_process`: the caller ends the process when it returns (`run`), so nothing
    it built needs to be collected or freed."""
    ignore_source_warnings()
    parser = build_parser()
    args = parser.parse_args(argv)
    args.ends_process = ends_process
    handler: Command = args.handler
    try:
        status = handler(args)
        sys.stdout.flush()  # here, so a closed pipe is caught below and not at interpreter exit
        return status
    except BrokenPipeError:
        # The reader went away (`graphmend rules | head -1`): end quietly and successfully, as ruff and
        # ripgrep do. stdout now points at devnull so the interpreter's final flush cannot fail again.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_CLEAN
    except ConfigError as error:
        print(one_line(f"graphmend: invalid configuration: {error}"), file=sys.stderr)
        return EXIT_ERROR
    except KeyboardInterrupt:
        # 128 + SIGINT, what a shell reports for a command stopped by Ctrl-C (2 means a usage error).
        print("Interrupted.", file=sys.stderr)
        return EXIT_INTERRUPTED
    except Exception as error:  # a message, never a traceback
        print(one_line(f"graphmend: internal error: {type(error).__name__}: {error}"), file=sys.stderr)
        print("Please report this at https://github.com/graphmend/action/issues", file=sys.stderr)
        return EXIT_ERROR


def run() -> NoReturn:
    """The `graphmend` script and `python -m graphmend_bot.cli`: `main`, then, after a check, the
    process ends at once.

    An interpreter's normal exit walks every object still alive with a last cyclic collection and
    frees them one by one: after a check of a large tree, millions of summary objects, 1.1 s of CPU
    on transformers' models/ once the report is out (a sixth of ruff's whole run). A check needs
    none of it: its pool is joined, its files are written and closed, and the output is flushed
    here, so it ends as mypy's does (os._exit). Every other command exits normally: the bot, the
    census and verify keep their atexit handlers and temporary directories' cleanup.
    """
    argv = sys.argv[1:]
    checking = argv[:1] == ["check"]
    status = main(argv, ends_process=checking)
    if not checking:
        sys.exit(status)
    if "logging" in sys.modules:  # a handler a dependency installed: its last flush
        sys.modules["logging"].shutdown()
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError):  # a reader gone (main's BrokenPipe case), a stream closed
            stream.flush()
    os._exit(status)


if __name__ == "__main__":
    run()
