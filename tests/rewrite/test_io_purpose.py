"""I/O guards that respect what the I/O is for (issue 16 part 2): output, export-time warnings,
rare-branch warnings, upgrade notices and modules without torch get no guard; each finding stays,
with advice. Deprecation notices get a guard only as an unsafe fix (issue 11: it states that
compiled calls skip the notice), so `--fix` still leaves them.
"""

from __future__ import annotations

import importlib.util
import io
import warnings
from pathlib import Path

import pytest
import torch

from graphmend_bot.config import Config
from graphmend_bot.engine import check
from graphmend_bot.findings import Finding
from graphmend_bot.rewrite import attach_fixes
from graphmend_bot.rewrite.python_io.io_deprecation import DEFERRAL_ASSUMPTION
from graphmend_bot.rewrite.python_io.io_purpose import DEPRECATION_ASSUMPTION
from graphmend_bot.rules import advice_for as advice

TRANSCRIPT_WRITER = '''
import torch


@torch.compile
def write_segments(segments, file):
    for segment_text in segments:
        print(segment_text, file=file, flush=True)
    return torch.ones(1)
'''

WRITER_FUNCTION = '''
import torch


def write_srt_entry(x):
    print("1\\n00:00:00,000 --> 00:00:01,000")
    return x


@torch.compile
def run(x):
    return write_srt_entry(x * 2)
'''

ONNX_EXPORT_WARNING = '''
import warnings

import torch
from torch import nn


class M(nn.Module):
    def forward(self, x):
        if torch.onnx.is_in_onnx_export():
            warnings.warn("exporting a dynamic slice as a constant")
        return x * 2
'''

MISCONFIGURATION_WARNING = '''
import warnings

import torch
from torch import nn


class Dice(nn.Module):
    def __init__(self, softmax=True):
        super().__init__()
        self.softmax = softmax

    def forward(self, x):
        if self.softmax:
            if x.shape[1] == 1:
                warnings.warn("single channel prediction, `softmax=True` ignored.")
            else:
                x = torch.softmax(x, 1)
        return x
'''

DEPRECATION_WARNING = '''
import warnings

import torch


def _warn_bonus_deprecated():
    warnings.warn("`strict_maxima_bonus` is deprecated and ignored", DeprecationWarning, stacklevel=3)


@torch.compile
def f(x):
    _warn_bonus_deprecated()
    return x * 2
'''

FROM_IMPORT_MISCONFIGURATION = '''
from warnings import warn

import torch


@torch.compile
def combine(x, allow_auto_unpadding=False):
    if x.shape[-1] % 4:
        if not allow_auto_unpadding:
            warn("The window will not fit into the image.", stacklevel=1)
    return x * 2
'''

DEPRECATED_LOGGER_MESSAGE = '''
import logging

import torch

logger = logging.getLogger(__name__)


@torch.compile
def f(x, txt_ids):
    if txt_ids.ndim == 3:
        txt_ids = txt_ids[0]
        logger.warning("Passing `txt_ids` 3d torch.Tensor is deprecated. Please remove the batch dimension")
    return x * 2 + txt_ids
'''

UNUSED_KWARGS_WARNING = '''
import logging

import torch

logger = logging.getLogger(__name__)


@torch.compile
def f(x, **kwargs):
    unused_kwargs = [k for k in kwargs if k != "scale"]
    if len(unused_kwargs) > 0:
        logger.warning(f"kwargs {unused_kwargs} are not expected and will be ignored.")
    return x * 2
'''

# torchdiffeq's np_nextafter: a fallback path that asks the user to upgrade (issue 16's rejected hunk).
UPGRADE_NOTICE = '''
import warnings

import numpy as np
import torch


def np_nextafter(x1, x2):
    warnings.warn("torch.nextafter is only available in PyTorch 1.7 or newer."
                  "Falling back to numpy.nextafter. Upgrade PyTorch to remove this warning.")
    return torch.tensor(np.nextafter(x1.detach().numpy(), x2.detach().numpy())).to(x1)


@torch.compile
def step(t0, t1):
    return np_nextafter(t0, t1) * 2
'''

NO_TORCH_UTILITY = '''
def report(x):
    print("value", x)
    return x
'''

NO_TORCH_CALLER = '''
import torch

from util import report


@torch.compile
def f(x):
    return report(x * 2)
'''

CASES = {
    "print-to-owned-file": ({"case.py": TRANSCRIPT_WRITER}, "GM401"),
    "writer-function": ({"case.py": WRITER_FUNCTION}, "GM401"),
    "misconfiguration-warning": ({"case.py": MISCONFIGURATION_WARNING}, "GM403"),
    "module-without-torch": ({"case.py": NO_TORCH_CALLER, "util.py": NO_TORCH_UTILITY}, "GM401"),
    "unused-kwargs-warning": ({"case.py": UNUSED_KWARGS_WARNING}, "GM402"),
    "upgrade-notice-on-fallback": ({"case.py": UPGRADE_NOTICE}, "GM403"),
    "from-import-misconfiguration": ({"case.py": FROM_IMPORT_MISCONFIGURATION}, "GM403"),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_no_guard_and_the_finding_keeps_its_advice(name: str, tmp_path: Path) -> None:
    files, code = CASES[name]
    for file_name, source in files.items():
        (tmp_path / file_name).write_text(source, encoding="utf-8")
    findings = [f for f in attach_fixes(check([str(tmp_path)]), Config()).findings if f.code == code]
    assert len(findings) == 1, findings
    assert findings[0].fix is None, findings[0].fix and findings[0].fix.message
    assert advice(findings[0]).strip()


# transformers' get_extended_attention_mask: the branch is "the caller passed the deprecated
# argument", a warning that is an `if` arm's whole body (rare-branch to the frequency analysis), yet
# it runs on every call of layoutlmv3 (Dynamo: modeling_utils.py:1614 breaks on Table 2's inputs).
DEPRECATED_ARGUMENT = '''
import warnings

import torch


@torch.compile
def extended_mask(mask, device=None):
    mask = mask[:, None, None, :]
    if device is not None:
        warnings.warn("The `device` argument is deprecated and will be removed in v5.", FutureWarning)
    return mask * 2
'''

DEPRECATIONS = {
    "deprecation-warning": ({"case.py": DEPRECATION_WARNING}, "GM403"),
    "deprecated-logger-message": ({"case.py": DEPRECATED_LOGGER_MESSAGE}, "GM402"),
    "deprecated-argument-branch": ({"case.py": DEPRECATED_ARGUMENT}, "GM403"),
}


def _notice_findings(tmp_path: Path, name: str, choice: str) -> list[Finding]:
    files, code = DEPRECATIONS[name]
    for file_name, source in files.items():
        (tmp_path / file_name).write_text(source, encoding="utf-8")
    config = Config(deprecation_notices=choice)
    return [f for f in attach_fixes(check([str(tmp_path)]), config).findings if f.code == code]


@pytest.mark.parametrize("name", sorted(DEPRECATIONS))
def test_a_deprecation_notice_is_left_with_advice_by_default(name: str, tmp_path: Path) -> None:
    """Compiled callers need the notice: by default no fix hides or moves it (issue 16)."""
    [finding] = _notice_findings(tmp_path, name, "advice")
    assert finding.fix is None
    assert "deprecation-notices" in advice(finding)


@pytest.mark.parametrize("name", sorted(DEPRECATIONS))
def test_a_project_that_guards_its_notices_gets_an_unsafe_guard_of_the_notice_alone(name: str, tmp_path: Path) -> None:
    """`deprecation-notices: guard` (transformers guards its own, `deprecate_kwarg`): the guard is
    unsafe and says what it assumes; it never becomes a safe fix."""
    [finding] = _notice_findings(tmp_path, name, "guard")
    fix = finding.fix
    assert fix is not None and fix.applicability == "unsafe"
    assert fix.assumptions == (DEPRECATION_ASSUMPTION,)
    assert "is_compiling" in "".join(edit.content for edit in fix.edits)


@pytest.mark.parametrize("name", sorted(DEPRECATIONS))
def test_a_deferred_deprecation_notice_is_routed_through_a_reorderable_helper(name: str, tmp_path: Path) -> None:
    """`deprecation-notices: defer`: unsafe, since it moves after the graph (and torch 2.13 drops it
    from inlined frames)."""
    [finding] = _notice_findings(tmp_path, name, "defer")
    fix = finding.fix
    assert fix is not None and fix.applicability == "unsafe"
    assert fix.assumptions == (DEFERRAL_ASSUMPTION,)
    assert fix.message.startswith("Defer ")
    new_text = "".join(edit.content for edit in fix.edits)
    assert "is_compiling" not in new_text and "reorderable_logging_functions.add(" in new_text


@pytest.mark.parametrize("choice", ["advice", "guard", "defer"])
def test_a_diagnostic_next_to_a_deprecation_notice_is_guarded_alone(choice: str, tmp_path: Path) -> None:
    """Consecutive I/O statements share one guard, but a deprecation notice is no part of the run:
    the print gets its safe guard whatever the notice gets."""
    (tmp_path / "case.py").write_text(
        "import warnings\n\nimport torch\n\n\n@torch.compile\ndef f(x):\n    y = x + 1\n"
        "    print('step')\n    warnings.warn('`scale` is deprecated', FutureWarning)\n    return y\n",
        encoding="utf-8")
    config = Config(deprecation_notices=choice)
    findings = {f.code: f for f in attach_fixes(check([str(tmp_path)]), config).findings}
    assert sorted(findings) == ["GM401", "GM403"]
    guard, notice = findings["GM401"].fix, findings["GM403"].fix
    assert guard is not None and guard.applicability == "safe" and "is_compiling" in guard.message
    assert all(edit.location.row == 9 for edit in guard.edits if "is_compiling" in edit.content), guard.edits
    if choice == "advice":
        assert notice is None
    else:
        assert notice is not None and notice.applicability == "unsafe"


def _future_warning(x: torch.Tensor) -> torch.Tensor:
    y = x + 1  # a graph before the warning, or explain() counts no break
    warnings.warn("`head_mask` is deprecated", FutureWarning, stacklevel=2)
    return y * 2


def _guarded_future_warning(x: torch.Tensor) -> torch.Tensor:
    y = x + 1
    if not torch.compiler.is_compiling():
        warnings.warn("`head_mask` is deprecated", FutureWarning, stacklevel=2)
    return y * 2


def test_deprecation_guard_removes_the_break_and_eager_runs_still_warn() -> None:
    """Measured on torch 2.13: the FutureWarning breaks the graph; registering `warnings.warn`
    itself does not defer it (`reorderable_logging_functions` refuses a warn with a category, which
    is why the deferral helper keeps the category in its body: test_deprecation_deferral.py); the
    guard removes the break and an eager call of the same code still shows the notice."""
    torch._dynamo.reset()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert torch._dynamo.explain(_future_warning)(torch.ones(2)).graph_break_count == 1
        config = torch._dynamo.config
        saved = set(config.reorderable_logging_functions)
        config.reorderable_logging_functions.add(warnings.warn)
        try:
            torch._dynamo.reset()
            assert torch._dynamo.explain(_future_warning)(torch.ones(2)).graph_break_count == 1
        finally:
            config.reorderable_logging_functions.clear()
            config.reorderable_logging_functions.update(saved)
        torch._dynamo.reset()
        assert torch._dynamo.explain(_guarded_future_warning)(torch.ones(2)).graph_break_count == 0
    torch._dynamo.reset()
    with pytest.warns(FutureWarning, match="deprecated"):
        _guarded_future_warning(torch.ones(2))


def test_an_export_only_warning_gets_neither_a_finding_nor_a_guard(tmp_path: Path) -> None:
    """`torch.onnx.is_in_onnx_export()` is False under torch.compile (torch 2.13), so Dynamo never
    traces the warning: nothing to report, and no `is_compiling()` guard to silence it in export."""
    (tmp_path / "case.py").write_text(ONNX_EXPORT_WARNING, encoding="utf-8")
    assert attach_fixes(check([str(tmp_path)]), Config()).findings == []
    model = _load(tmp_path / "case.py").M()
    torch._dynamo.reset()
    explanation = torch._dynamo.explain(model)(torch.ones(2))
    assert explanation.graph_break_count == 0


def _load(path: Path):  # type: ignore[no-untyped-def]
    spec = importlib.util.spec_from_file_location(path.stem, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_stderr_print_is_still_a_diagnostic_and_gets_its_guard(tmp_path: Path) -> None:
    (tmp_path / "case.py").write_text(
        "import sys\n\nimport torch\n\n\n@torch.compile\ndef f(x):\n"
        "    print('debug', file=sys.stderr)\n    return x * 2\n", encoding="utf-8")
    findings = attach_fixes(check([str(tmp_path)]), Config()).findings
    assert [f.code for f in findings] == ["GM401"]
    assert findings[0].fix is not None and "is_compiling" in findings[0].fix.message


def test_a_guarded_print_to_a_file_writes_nothing_under_compile() -> None:
    """Why output is never guarded: measured on torch 2.13, the guard empties the file."""

    def guarded(x: torch.Tensor, buffer: io.StringIO) -> torch.Tensor:
        if not torch.compiler.is_compiling():
            print("segment", file=buffer)
        return x + 1

    torch._dynamo.reset()
    eager, compiled = io.StringIO(), io.StringIO()
    guarded(torch.ones(2), eager)
    torch.compile(guarded)(torch.ones(2), compiled)
    torch._dynamo.reset()
    assert eager.getvalue() == "segment\n"
    assert compiled.getvalue() == ""
