"""A pull request's partial census completed with the base commit's census.

In pull-request mode (`--graphmend-census-changed-since BASE`) the census explains only the calls
whose frames reach a file the change touched; every other call runs only code that is byte for
byte the base's, so the base census already says what Dynamo does there. `complete_partial` puts
the two together into the census the head would have had:

- breaks: in a changed file, the partial census's alone (the base's lines there point at other
  code); in any other file, the partial census's, plus the base's at lines the partial did not
  record (a call the partial re-explained may also see breaks in unchanged files);
- calls: the partial's, plus the base's for targets the partial did not explain;
- executed lines: the partial's (every first call is run and traced in both modes), plus the
  base's in unchanged files.

A break in an unchanged file that the change removed (a changed caller now passes other types) stays
as the base recorded it: removals are only seen in changed files. Additions anywhere are seen, since
the calls that reach the change are explained whole.

Pure: two Census values in, one out. Which base census may be trusted (the default branch's, never
one a pull request wrote) is the caller's rule; the base must be the census of the commit the
partial one was diffed against.
"""

from __future__ import annotations

from pathlib import Path

from graphmend_bot.census.record import BreakRecord, Census, CensusError, load_census


def complete_partial(base: Census, partial: Census) -> Census:
    """The head's whole census: `partial` (a pull-request mode census) with the records of files it
    did not touch taken from `base`. CensusError when `base` is not a whole census of the commit
    `partial` was diffed against."""
    if not partial.partial:
        return partial
    if base.partial:
        raise CensusError("the base census is itself partial: a whole census of the base commit is needed")
    if not base.commit or base.commit != partial.changed_since:
        raise CensusError(f"the base census was recorded on commit {base.commit[:12] or 'unknown'}, but the "
                          f"partial census reuses commit {partial.changed_since[:12]}'s: its records may describe "
                          "other code")
    changed = set(partial.changed_files)
    recorded = {(record.path, record.line) for record in partial.breaks}
    breaks = [*partial.breaks, *(_copy(record) for record in base.breaks
                                 if record.path not in changed and (record.path, record.line) not in recorded)]
    explained_targets = {call.target for call in partial.calls}
    calls = [*partial.calls, *(call for call in base.calls if call.target not in explained_targets)]
    executed = {path: sorted(set(lines)) for path, lines in partial.executed.items()}
    for path, lines in base.executed.items():
        if path not in changed:
            executed[path] = sorted(set(executed.get(path, [])) | set(lines))
    return Census(commit=partial.commit, torch=partial.torch, calls=calls,
                  breaks=sorted(breaks, key=lambda record: (record.path, record.line)),
                  executed=dict(sorted(executed.items())), coverage=base.coverage and partial.coverage,
                  complete=base.complete and partial.complete)


def _copy(record: BreakRecord) -> BreakRecord:
    return BreakRecord(record.path, record.line, record.reason, record.gb_id, list(record.tests), record.function,
                       record.source)


def complete_partial_file(base: Path, partial: Path) -> Census:
    """`complete_partial` of two census files, each read by the strict reader."""
    return complete_partial(load_census(base), load_census(partial))
