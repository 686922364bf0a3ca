"""Run the engine for the bot: changed files reported, the whole tree as context for scope.

The workspace holds a pull request's files, symlinks included: every read here (and in the engine,
through `confine_reads`) refuses a file whose real path is outside the workspace.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from pathlib import Path

from graphmend_bot.analysis.files import confine_reads, outside_read_root, read_source
from graphmend_bot.analysis.summary_cache import SummaryCache
from graphmend_bot.config import Config, ConfigError, find_config_file, load_config
from graphmend_bot.engine import check, check_change
from graphmend_bot.findings import CheckResult
from graphmend_bot.github.core.context import ActionContext
from graphmend_bot.github.core.outputs import Log
from graphmend_bot.github.review.pull_request_cache import UNTRUSTED_SCOPE_EVENTS, PullRequestCache


def load_action_config(ctx: ActionContext) -> Config:
    """The `config` input (relative to the workspace), else the nearest config file in it."""
    confine_reads(ctx.workspace)
    path = ctx.workspace / ctx.inputs.config if ctx.inputs.config else find_config_file(ctx.workspace)
    if path is not None and path.is_relative_to(ctx.workspace) and outside_read_root(str(path)):
        raise ConfigError(f"{path.relative_to(ctx.workspace)} is a symlink to a file outside the workspace: "
                          "not read")
    config = load_config(path) if path is not None else load_config(start=ctx.workspace)
    if ctx.inputs.baseline:  # the `baseline` input wins over the config's key; read only inside the workspace
        config.baseline = str(ctx.workspace / ctx.inputs.baseline)
    return config


def analyse(ctx: ActionContext, config: Config, log: Log, only: Sequence[str] | None = None,
            added_lines: Mapping[str, Collection[int]] | None = None,
            replaced: Mapping[str, Mapping[int, Collection[str]]] | None = None,
            patches: Mapping[str, str | None] | None = None,
            before: Mapping[str, str | None] | None = None,
            renamed: Mapping[str, str] | None = None) -> CheckResult:
    """Check `paths` from the workspace (paths in findings are then relative to the repository);
    with `added_lines` (the pull request's, by path), as its review (engine.check_change), which
    `replaced` (diff.replaced_calls) tells the calls only edited or moved, and `patches` (each
    file's diff, undone to the file before) the calls an added import redirects; `before` (the
    changed files at the base, base_texts.py) the findings the base lacks, new through data flow;
    `renamed` (old path -> new) matches a renamed file's breaks with the base's under its old name."""
    os.chdir(ctx.workspace)
    confine_reads(ctx.workspace)
    cache = action_cache(ctx, log, only, before)
    result = check_change(ctx.inputs.paths, config, only or [], added_lines, cache, replaced, patches, before,
                          renamed) \
        if added_lines is not None \
        else check(ctx.inputs.paths, config, only=only, cache=cache)
    return _with_fixes(result, config, log)


def action_cache(ctx: ActionContext, log: Log, changed: Sequence[str] | None = None,
                 before: Mapping[str, str | None] | None = None) -> SummaryCache | None:
    """The `cache-dir` input's summary cache: a folder inside the workspace, reached by no symlink.

    The workflow empties it after the checkout (a pull request may commit a `.graphmend_cache`) and
    restores what was saved. Entries are type-checked JSON in any case (analysis/summary_cache.py),
    never code. In a run whose cache scope a pull request's runs can save into (a pull request's
    own), only the entries of texts other than the `changed` files' (as the workspace has them, and
    as `before` has them at the base) are read, and no whole-project entry (pull_request_cache.py);
    with `changed` unknown, none."""
    name = ctx.inputs.cache_dir
    if not name:
        return None
    workspace = ctx.workspace.resolve()
    folder = workspace / name
    if Path(name).is_absolute() or ".." in Path(name).parts or not folder.resolve().is_relative_to(workspace):
        log.warning(f"cache-dir {name[:100]!r} is not a folder inside the workspace: no summary cache")
        return None
    if any(part.is_symlink() for part in (folder, *folder.parents) if part.is_relative_to(workspace)):
        log.warning(f"cache-dir {name[:100]!r} is a symlink: no summary cache")
        return None
    if ctx.event_name in UNTRUSTED_SCOPE_EVENTS:
        if changed is None:
            return None
        based = (text for text in (before or {}).values() if text is not None)
        return PullRequestCache(folder, [*read_sources(changed, ctx.workspace).values(), *based])
    return SummaryCache(folder)


def _with_fixes(result: CheckResult, config: Config, log: Log) -> CheckResult:
    return with_fixes(result, config, log.warning)


def with_fixes(result: CheckResult, config: Config, warn: Callable[[str], None]) -> CheckResult:
    """Attach the rewrite engine's fixes when it is available; findings never depend on it."""
    try:
        from graphmend_bot.rewrite import attach_fixes  # type: ignore[attr-defined,unused-ignore]
    except ImportError:
        return result
    try:
        attached = attach_fixes(result, config)
    except Exception as error:
        warn(f"could not compute fixes ({type(error).__name__}: {error}); reporting findings without them")
        return result
    return attached if isinstance(attached, CheckResult) else result


def read_sources(paths: Iterable[str], workspace: Path) -> dict[str, str]:
    """The files' text, leaving out any that cannot be read (the engine reported why)."""
    confine_reads(workspace)
    sources = {}
    for path in paths:
        try:
            sources[path] = read_source(str(workspace / path))
        except ValueError:
            continue
    return sources
