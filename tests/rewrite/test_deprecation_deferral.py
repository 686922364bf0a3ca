"""Deprecation notices deferred through Dynamo (rewrite/python_io/io_deprecation.py), measured on torch 2.13.

What the deferral must keep: eager runs warn and log from the same file and line as before the
rewrite, Dynamo counts no break, and a compiled call still emits the notice, with its category, on
the first call and on cached ones.
"""

from __future__ import annotations

import linecache
import logging
import warnings
from pathlib import Path
from typing import Any

import pytest
import torch
from fixture_support import FIXTURES, break_count, build_entry, load_module

from graphmend_bot.rewrite.python_io.io_deprecation import LOG_HELPER, REGISTRATION, WARNING_HELPER

CASES = ("defer_deprecation_t5", "defer_deprecation_argument", "defer_deprecation_diffusers")


class _Records(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


def _notices(call: Any) -> tuple[list[warnings.WarningMessage], list[logging.LogRecord]]:
    """The warnings and log records of one call (every warning shown, every level logged)."""
    handler = _Records()
    root = logging.getLogger()
    level = root.level
    root.addHandler(handler)
    root.setLevel(logging.DEBUG)
    try:
        with warnings.catch_warnings(record=True) as caught, torch.no_grad():
            warnings.simplefilter("always")
            call()
    finally:
        root.removeHandler(handler)
        root.setLevel(level)
    return list(caught), [r for r in handler.records if r.levelno >= logging.WARNING]


def _caller(entry: Any, inputs: tuple[Any, ...]) -> Any:
    return entry(*inputs)  # the line a `stacklevel=2` warning names


def _pair(case: str, tmp_path: Path) -> tuple[Any, Any, tuple[Any, ...]]:
    before = load_module(FIXTURES / "io" / f"{case}.in.py", tmp_path, f"deferral_{case}_before")
    after = load_module(FIXTURES / "io" / f"{case}.out.py", tmp_path, f"deferral_{case}_after")
    return build_entry(before), build_entry(after), before.make_inputs(0)


def _named_line(filename: str, lineno: int) -> str:
    return linecache.getline(filename, lineno).strip()


@pytest.mark.parametrize("case", CASES)
def test_eager_notices_name_the_same_file_and_line_as_before(case: str, tmp_path: Path) -> None:
    before, after, inputs = _pair(case, tmp_path)
    old_warnings, old_logs = _notices(lambda: _caller(before, inputs))
    new_warnings, new_logs = _notices(lambda: _caller(after, inputs))
    assert old_warnings or old_logs, "the fixture must emit its notice"
    assert [(w.category, str(w.message)) for w in new_warnings] == [(w.category, str(w.message)) for w in old_warnings]
    for old, new in zip(old_warnings, new_warnings, strict=True):
        if old.filename == __file__:  # stacklevel=2: the caller's line, the very same one
            assert (new.filename, new.lineno) == (old.filename, old.lineno)
        else:  # the notice's own line in each version of the module (the helper moved it down)
            assert Path(new.filename).name.endswith("_after.py") and Path(old.filename).name.endswith("_before.py")
            assert _named_line(old.filename, old.lineno).startswith("warnings.warn(")
            assert _named_line(new.filename, new.lineno).startswith("_future_warning_after_graph(")
    assert [(r.levelno, r.getMessage(), r.funcName) for r in new_logs] == [
        (r.levelno, r.getMessage(), r.funcName) for r in old_logs
    ]
    for old_record, new_record in zip(old_logs, new_logs, strict=True):
        if old_record.funcName == "warning_once":  # transformers' record names its own frame, both ways
            continue
        assert _named_line(new_record.pathname, new_record.lineno).startswith("_log_after_graph(")
        assert _named_line(old_record.pathname, old_record.lineno).startswith("logger.")


@pytest.mark.parametrize("case", CASES)
def test_deferred_notice_breaks_nothing_and_is_emitted_under_compile(case: str, tmp_path: Path) -> None:
    before, after, inputs = _pair(case, tmp_path)
    assert break_count(before, inputs) >= 1
    assert break_count(after, inputs) == 0
    eager_warnings, eager_logs = _notices(lambda: after(*inputs))
    torch._dynamo.reset()
    compiled = torch.compile(after, backend="eager", fullgraph=True)  # fullgraph: any break raises
    for attempt in ("first call", "cached call"):
        compiled_warnings, compiled_logs = _notices(lambda: compiled(*inputs))
        assert [(w.category, str(w.message)) for w in compiled_warnings] == [
            (w.category, str(w.message)) for w in eager_warnings
        ], attempt
        if case != "defer_deprecation_t5":  # warning_once logs once per process, whoever calls it
            assert [r.getMessage() for r in compiled_logs] == [r.getMessage() for r in eager_logs], attempt
    torch._dynamo.reset()


def _helper_module(tmp_path: Path, body: str) -> Any:
    """A module with the shipped FutureWarning and logger helpers (their templates), and `body`."""
    source = "\n".join((
        "import logging", "import warnings", "", "import torch", "",
        'logger = logging.getLogger("deferral_probe")',
        'HEAD_MASK_WARNING_MSG = "`head_mask` is deprecated"', "",
        WARNING_HELPER.format(helper="_future_warning_after_graph", category="FutureWarning"),
        REGISTRATION.format(name="_future_warning_after_graph"), "",
        LOG_HELPER.format(helper="_log_after_graph", logger="logger"),
        REGISTRATION.format(name="_log_after_graph"), "", body,
    ))
    path = tmp_path / "deferral_probe.py"
    path.write_text(source, encoding="utf-8")
    return load_module(path, tmp_path, f"deferral_probe_{abs(hash(body))}")


MESSAGES = {
    "constant": '_future_warning_after_graph("`scale` is deprecated")',
    "module constant": "_future_warning_after_graph(HEAD_MASK_WARNING_MSG)",
    "f-string of a Python value": '_future_warning_after_graph(f"`n={n}` is deprecated")',
    "f-string of a tensor": '_future_warning_after_graph(f"`x={x.shape}` is deprecated")',
    ".format": '_future_warning_after_graph("`n={}` is deprecated".format(n))',
    "stacklevel": '_future_warning_after_graph("`scale` is deprecated", stacklevel=2)',
    "logger %-args": '_log_after_graph("warning", "`n=%s` is deprecated", n)',
}


@pytest.mark.parametrize("message", sorted(MESSAGES))
def test_the_helpers_carry_every_message_shape_past_the_graph(message: str, tmp_path: Path) -> None:
    """The measurements behind GM402/GM403's fix safety: no break for any message shape, and the
    notice still comes out of the compiled call."""
    module = _helper_module(tmp_path, f"def f(x, n):\n    y = x + 1\n    {MESSAGES[message]}\n    return y * 2\n")
    inputs = (torch.ones(3), 4)
    assert break_count(module.f, inputs) == 0
    eager = _notices(lambda: module.f(*inputs))
    torch._dynamo.reset()
    compiled = torch.compile(module.f, backend="eager", fullgraph=True)
    for _ in range(2):
        got = _notices(lambda: compiled(*inputs))
        assert [(w.category, str(w.message)) for w in got[0]] == [(w.category, str(w.message)) for w in eager[0]]
        assert [r.getMessage() for r in got[1]] == [r.getMessage() for r in eager[1]]
        assert got[0] or got[1]
    torch._dynamo.reset()


def test_torch_2_13_emits_a_deferred_notice_only_from_the_compiled_frame(tmp_path: Path) -> None:
    """The limit of the deferral, measured: Dynamo keeps a reorderable call's arguments in the
    translator of the frame that made it and emits only the compiled frame's own after the graph
    (output_graph.py: "TODO get debug_locals working for nested graph breaks"). From a function
    inlined into the compiled one (a submodule's forward, a helper) the notice is dropped under
    compile, as a guard would drop it; eager runs keep it either way. When this fails, torch
    carries nested notices: update GM402/GM403's fix safety and DEFERRAL_ASSUMPTION."""
    body = (
        "def f(x, n):\n    y = x + 1\n    _future_warning_after_graph(HEAD_MASK_WARNING_MSG)\n    return y * 2\n\n\n"
        "def caller(x, n):\n    return f(x, n) - 1\n"
    )
    module = _helper_module(tmp_path, body)
    inputs = (torch.ones(3), 4)
    assert break_count(module.caller, inputs) == 0
    assert len(_notices(lambda: module.caller(*inputs))[0]) == 1  # eager: the notice
    torch._dynamo.reset()
    compiled_root = torch.compile(module.f, backend="eager", fullgraph=True)
    assert len(_notices(lambda: compiled_root(*inputs))[0]) == 1  # f is the compiled frame: kept
    torch._dynamo.reset()
    compiled_caller = torch.compile(module.caller, backend="eager", fullgraph=True)
    assert _notices(lambda: compiled_caller(*inputs))[0] == []  # f inlined into caller: dropped
    torch._dynamo.reset()
