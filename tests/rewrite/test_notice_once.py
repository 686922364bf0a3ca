"""`*_once` logger notices through a `torch.compiler.assume_constant_result` helper (rewrite/python_io/notice_once.py).

Measured on torch 2.13: what the helper must keep is no break (fullgraph), one record per message
per process across calls, recompilations, inlined frames and a failed compile, and the very record
eager code makes. Where the once-per-process contract is proven the fix is safe; elsewhere unsafe.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path
from typing import Any

import libcst
import pytest
import torch
from fixture_support import FIXTURES, break_count, build_entry, load_module
from transformers.utils import logging as hf_logging

from graphmend_bot.config import Config
from graphmend_bot.engine import check
from graphmend_bot.rewrite import attach_fixes, fix_paths
from graphmend_bot.rewrite.context import FixContext
from graphmend_bot.rewrite.python_io.notice_once import HELPER, keep_notice

CASE = FIXTURES / "notice_once" / "transformers_past_key_values"


@pytest.fixture(autouse=True)
def _transformers_warning_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """transformers' own `Logger.warning_once`: fixtures that install theirs (defer_deprecation_t5,
    as transformers does) replace it for the whole process."""
    monkeypatch.setattr(logging.Logger, "warning_once", hf_logging.warning_once, raising=False)


class _Records(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


def _logged(calls: Callable[[], Any]) -> list[tuple[str, str, int, str]]:
    """(message, file, line, function) of every record the calls make; transformers' warning_once
    cache is cleared first, so each test starts as a fresh process would."""
    hf_logging.warning_once.cache_clear()
    handler = _Records()
    root = logging.getLogger()
    root.addHandler(handler)
    try:
        with torch.no_grad():
            calls()
    finally:
        root.removeHandler(handler)
    return [(r.getMessage(), Path(r.pathname).name, r.lineno, r.funcName) for r in handler.records]


def _compiled_calls(entry: Any, inputs_list: list[tuple[Any, ...]], **options: Any) -> Callable[[], None]:
    def run() -> None:
        torch._dynamo.reset()
        compiled = torch.compile(entry, backend="eager", **options)
        for inputs in inputs_list:
            compiled(*inputs)
    return run


def _shapes(width: int) -> tuple[Any, ...]:
    return (torch.randn(2, width), ())


def test_inlined_notice_breaks_nothing_and_is_logged_once_like_eager(tmp_path: Path) -> None:
    before_module = load_module(CASE.with_suffix(".in.py"), tmp_path, "notice_once_before")
    after_module = load_module(CASE.with_suffix(".out.py"), tmp_path, "notice_once_after")
    before, after = build_entry(before_module), build_entry(after_module)
    inputs = after_module.make_inputs(0)
    assert break_count(before, inputs) >= 2
    assert break_count(after, inputs) == 0
    # Three calls, the third with a new width: a recompilation, with the second notice's message
    # formatted from the new width (a new message, so logged once more, as in eager runs).
    calls = [_shapes(7), _shapes(7), _shapes(9)]
    eager_before = _logged(lambda: [before(*c) for c in calls])
    eager_after = _logged(lambda: [after(*c) for c in calls])
    compiled = _logged(_compiled_calls(after, calls, fullgraph=True))  # fullgraph: any break raises
    torch._dynamo.reset()
    assert [m for m, *_ in eager_before] == [
        "Passing a tuple of `past_key_values` is deprecated and will be removed in Transformers v4.48.0. "
        "You should pass an instance of `EncoderDecoderCache` instead.",
        "Inputs of width 7 are deprecated (since v4.48.0).",
        "Inputs of width 9 are deprecated (since v4.48.0).",
    ]
    # The record itself is unchanged: transformers' warning_once logs from its own frame.
    assert eager_after == eager_before
    assert compiled == eager_before


def _probe(tmp_path: Path, body: str) -> Any:
    """A module with transformers' logger, the shipped helper template and `body`."""
    source = "\n".join((
        "import torch", "from transformers.utils import logging", "",
        "logger = logging.get_logger(__name__)", "",
        HELPER.format(helper="_warning_once", logger="logger", method="warning_once"), body,
    ))
    path = tmp_path / "notice_probe.py"
    path.write_text(source, encoding="utf-8")
    return load_module(path, tmp_path, f"notice_probe_{abs(hash(body))}")


MESSAGES = {
    "constant": '_warning_once("`scale` is deprecated")',
    "implicit concatenation": '_warning_once("`scale` is " "deprecated " "in v5")',
    "f-string of a Python number": '_warning_once(f"`n={n}` is deprecated")',
    "f-string of a size": '_warning_once(f"width {x.shape[-1]} is deprecated")',
    "%-arguments": '_warning_once("`%s` is deprecated", "scale")',
}


@pytest.mark.parametrize("message", sorted(MESSAGES))
def test_every_taken_message_shape_is_logged_once_like_eager(message: str, tmp_path: Path) -> None:
    module = _probe(tmp_path, f"def f(x, n):\n    y = x + 1\n    {MESSAGES[message]}\n    return y * 2\n")
    inputs = [(torch.ones(3), 4), (torch.ones(3), 4), (torch.ones(5), 4)]
    assert break_count(module.f, inputs[0]) == 0
    eager = _logged(lambda: [module.f(*i) for i in inputs])
    assert eager
    assert _logged(_compiled_calls(module.f, inputs)) == eager
    torch._dynamo.reset()


def test_a_tensor_argument_would_be_formatted_while_tracing_so_it_is_refused(tmp_path: Path) -> None:
    """Why notice_once takes no tensor: Dynamo calls the helper with the traced value, once per
    compilation, where eager code formats each call's value (measured: compiled output differs)."""
    module = _probe(tmp_path, "def f(x):\n    y = x + 1\n    _warning_once(y.sum())\n    return y * 2\n")
    inputs = [(torch.ones(3),), (torch.full((3,), 2.0),)]
    eager = _logged(lambda: [module.f(*i) for i in inputs])
    compiled = _logged(_compiled_calls(module.f, inputs))
    torch._dynamo.reset()
    assert [m for m, *_ in eager] == ["tensor(6.)", "tensor(9.)"]
    assert [m for m, *_ in compiled] != [m for m, *_ in eager]


def test_a_compile_that_fails_and_falls_back_still_logs_once(tmp_path: Path) -> None:
    module = _probe(tmp_path, "def f(x):\n    y = x + 1\n    _warning_once('`scale` is deprecated')\n    return y * 2\n")

    def failing_backend(graph: Any, example_inputs: Any) -> Any:
        raise RuntimeError("backend failed")

    def run() -> None:
        torch._dynamo.reset()
        compiled = torch.compile(module.f, backend=failing_backend)
        with torch._dynamo.config.patch(suppress_errors=True):
            for width in (3, 3, 4):
                compiled(torch.ones(width))

    assert [m for m, *_ in _logged(run)] == ["`scale` is deprecated"]
    torch._dynamo.reset()


def _fix_in_tree(tmp_path: Path, logging_module: str) -> Any:
    """Fix a model module of a package whose utils/logging.py is `logging_module`."""
    package = tmp_path / "pkg"
    (package / "utils").mkdir(parents=True)
    (package / "models").mkdir()
    for init in (package, package / "utils", package / "models"):
        (init / "__init__.py").write_text("", encoding="utf-8")
    (package / "utils" / "logging.py").write_text(logging_module, encoding="utf-8")
    model = package / "models" / "model.py"
    model.write_text(
        "import torch\nfrom torch import nn\n\nfrom ..utils import logging\n\nlogger = logging.get_logger(__name__)\n\n\n"
        "class Block(nn.Module):\n    def forward(self, x, past_key_values=()):\n        x = x.softmax(-1)\n"
        "        if isinstance(past_key_values, tuple):\n"
        '            logger.warning_once("Passing a tuple of `past_key_values` is deprecated.")\n'
        "        return x * 2\n",
        encoding="utf-8",
    )
    return fix_paths([str(model)], Config(), unsafe=False), fix_paths([str(model)], Config(), unsafe=True)


def _offered_fix(tmp_path: Path) -> Any:
    (finding,) = attach_fixes(check([str(tmp_path / "pkg" / "models" / "model.py")], Config(), jobs=1), Config()).findings
    return finding.fix


CACHED_LOGGER = (
    "import functools\nimport logging\n\n\nclass ProjectLogger(logging.Logger):\n"
    "    @functools.lru_cache(None)\n    def warning_once(self, message):\n        self.warning(message)\n\n\n"
    "def get_logger(name):\n    logging.setLoggerClass(ProjectLogger)\n    return logging.getLogger(name)\n"
)


def test_a_get_logger_of_the_checked_tree_with_a_cached_method_proves_the_contract(tmp_path: Path) -> None:
    safe, _ = _fix_in_tree(tmp_path, CACHED_LOGGER)
    assert len(safe) == 1 and "_warning_once(\"Passing a tuple" in safe[0].after
    assert "@torch.compiler.assume_constant_result" in safe[0].after
    assert _offered_fix(tmp_path).applicability == "safe"


def test_an_uncached_warning_once_is_only_an_unsafe_fix(tmp_path: Path) -> None:
    safe, unsafe = _fix_in_tree(tmp_path, CACHED_LOGGER.replace("    @functools.lru_cache(None)\n", ""))
    assert safe == []
    assert len(unsafe) == 1 and "_warning_once(\"Passing a tuple" in unsafe[0].after
    fix = _offered_fix(tmp_path)
    assert fix.applicability == "unsafe" and "emits each message once per process" in fix.message


def test_the_rewritten_module_has_no_finding_left(tmp_path: Path) -> None:
    """The analysis never traces an assume_constant_result helper's body (Dynamo does not either)."""
    after = check([str(CASE.with_suffix(".out.py"))], Config(), jobs=1).findings
    before = check([str(CASE.with_suffix(".in.py"))], Config(), jobs=1).findings
    assert [f.code for f in before].count("GM402") == 2
    assert after == []


def test_the_helper_is_a_plain_function_for_eager_callers() -> None:
    """`assume_constant_result` only marks the function: eager calls run it every time."""
    calls = []

    @torch.compiler.assume_constant_result
    def record(message: str) -> None:
        calls.append(message)

    record("a")
    record("a")
    assert calls == ["a", "a"]


def test_a_proven_diagnostic_is_kept_under_compile_where_the_guard_hid_it(tmp_path: Path) -> None:
    """`use_cache=True ... Setting use_cache=False` is a diagnostic, not a deprecation: with the
    contract proven it takes the helper, so compiled callers see it once, as eager ones do."""
    case = FIXTURES / "notice_once" / "diagnostic_use_cache"
    before_module = load_module(case.with_suffix(".in.py"), tmp_path, "diagnostic_before")
    after_module = load_module(case.with_suffix(".out.py"), tmp_path, "diagnostic_after")
    before, after = build_entry(before_module), build_entry(after_module)
    inputs = after_module.make_inputs(0)
    assert break_count(before, inputs) >= 1
    assert break_count(after, inputs) == 0
    calls = [inputs, inputs]
    eager_before = _logged(lambda: [before(*c) for c in calls])
    compiled = _logged(_compiled_calls(after, calls, fullgraph=True))
    torch._dynamo.reset()
    assert [m for m, *_ in eager_before] == [
        "`use_cache=True` is incompatible with gradient checkpointing. Setting `use_cache=False`..."]
    assert compiled == eager_before


def _keep_notice(source: str) -> Any:
    """keep_notice's fix for the last `*.warning_once(...)` call of `source` (None: refused)."""
    ctx = FixContext(source)
    calls: list[libcst.Call] = []

    class Calls(libcst.CSTVisitor):
        def visit_Call(self, node: libcst.Call) -> None:
            if isinstance(node.func, libcst.Attribute) and node.func.attr.value == "warning_once":
                calls.append(node)

    ctx.module.visit(Calls())
    return keep_notice(ctx, calls[-1])


MODULE_LOGGER = "import torch\nfrom transformers.utils import logging\n\nlogger = logging.get_logger(__name__)\n\n\n"
TAKEN = "def forward(x):\n    logger.warning_once('`scale` is deprecated')\n    return x\n"


def test_the_module_logger_takes_the_helper() -> None:
    """The control for the refusals below: the same call on the module's own logger is fixed."""
    fix = _keep_notice(MODULE_LOGGER + TAKEN)
    assert fix is not None and fix.applicability == "safe"


@pytest.mark.parametrize("function", [
    "def forward(x):\n    logger = logging.get_logger('block.local')\n    logger.warning_once('deprecated')\n",
    "def forward(x, logger=logger):\n    logger.warning_once('deprecated')\n",
    "def outer():\n    logger = logging.get_logger('outer')\n\n    def forward(x):\n"
    "        logger.warning_once('deprecated')\n",
    "def forward(x):\n    from elsewhere import logger\n    logger.warning_once('deprecated')\n",
], ids=["local assignment", "parameter", "enclosing function", "local import"])
def test_a_logger_bound_in_the_function_is_not_the_module_logger_so_it_is_refused(function: str) -> None:
    """`_warning_once` logs through the module's `logger`: the record would go to another logger."""
    assert _keep_notice(MODULE_LOGGER + function) is None


def test_a_logger_declared_global_is_the_module_logger() -> None:
    function = "def forward(x):\n    global logger\n    logger = logging.get_logger('x')\n    logger.warning_once('a')\n"
    assert _keep_notice(MODULE_LOGGER + function) is not None


@pytest.mark.parametrize("binding", [
    "from os.path import join as _warning_once\n",
    "_warning_once = print\n",
    "class _warning_once:\n    pass\n",
    "if torch.cuda.is_available():\n    def _warning_once(*args):\n        pass\n",
], ids=["import", "assignment", "class", "conditional def"])
def test_a_helper_name_the_module_binds_otherwise_is_refused(binding: str) -> None:
    """The inserted `def _warning_once` would shadow the module's own `_warning_once`."""
    assert _keep_notice(MODULE_LOGGER + binding + "\n\n" + TAKEN) is None


def test_the_helper_inserted_earlier_is_reused_but_not_when_rebound() -> None:
    helper = HELPER.format(helper="_warning_once", logger="logger", method="warning_once")
    fix = _keep_notice(MODULE_LOGGER + helper + "\n\n" + TAKEN)
    assert fix is not None and not any("def _warning_once" in edit.content for edit in fix.edits)
    rebound = MODULE_LOGGER + helper + "\n\n" + "from os.path import join as _warning_once\n\n\n" + TAKEN
    assert _keep_notice(rebound) is None
