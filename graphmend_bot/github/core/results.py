"""Leave the findings behind (SARIF, job summary, outputs, annotations) and pick the exit status."""

from __future__ import annotations

from collections.abc import Sequence

from graphmend_bot.config import Config
from graphmend_bot.exit_codes import EXIT_CLEAN, EXIT_FINDINGS
from graphmend_bot.findings import CheckResult, Finding
from graphmend_bot.github.core.context import ActionContext
from graphmend_bot.github.core.outputs import Log, append_summary, write_outputs, write_sarif
from graphmend_bot.github.review.analyse import analyse
from graphmend_bot.report.markdown import SummaryView, summary_markdown


def failing(findings: Sequence[Finding], fail_on: str, census_gate: str | None = None) -> bool:
    """`census_gate`: why the census comparison fails `fail-on: new-breaks` ("" it passes; None: no
    pull-request census comparison, so nothing for that gate to judge)."""
    if fail_on == "new-breaks":
        return bool(census_gate)
    if fail_on == "findings":
        return bool(findings)
    if fail_on == "fixable":
        return any(f.fix is not None and f.fix.applicability == "safe" for f in findings)
    return False


def finish(
    ctx: ActionContext, log: Log, result: CheckResult, view: SummaryView, annotate: Sequence[Finding] = (),
    census_gate: str | None = None,
) -> int:
    """Write SARIF, the job summary and the outputs (before any API write), then annotations."""
    sarif = ctx.workspace / ctx.inputs.sarif_file
    try:
        write_sarif(result, sarif)
    except OSError as error:
        log.error(f"cannot write the SARIF file {ctx.inputs.sarif_file}: {error.strerror}")
    try:
        append_summary(ctx.summary_file, summary_markdown(view))
    except OSError as error:
        log.warning(f"cannot write the job summary: {error.strerror}")
    fixable = sum(1 for f in result.findings if f.fix is not None and f.fix.applicability == "safe")
    try:
        write_outputs(ctx.output_file, {
            "findings": str(len(result.findings)),
            "fixable": str(fixable),
            "sarif-file": ctx.inputs.sarif_file,
        })
    except OSError as error:
        log.warning(f"cannot write the step outputs: {error.strerror}")
    for file_error in result.errors:
        log.warning(f"{file_error.path}: {file_error.message}")
    log.annotations(annotate)
    if failing(result.findings, ctx.inputs.fail_on, census_gate):
        why = census_gate if ctx.inputs.fail_on == "new-breaks" else f"{len(result.findings)} finding(s)"
        log.info(f"failing the check: {why} and `fail-on: {ctx.inputs.fail_on}`")
        return EXIT_FINDINGS
    return EXIT_CLEAN


def scan_everything(ctx: ActionContext, config: Config, log: Log) -> int:
    """No pull request to review: check every file under `paths`; annotations, summary, SARIF."""
    result = analyse(ctx, config, log)
    view = SummaryView(result.findings, result.errors, result.files_checked, changed_files=result.files_checked, baselined=result.baselined)
    log.info(f"checked {result.files_checked} file(s): {len(result.findings)} finding(s)")
    return finish(ctx, log, result, view, annotate=result.findings)
