"""I/O in traced code: guard (default) and defer, measured with Dynamo and compared eagerly."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest
import torch
from fixture_support import FIXTURES, assert_identical, break_count, load_module, run_eager
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from graphmend_bot.config import Config
from graphmend_bot.engine import check
from graphmend_bot.rewrite import fix_outcome, fix_paths

IO_CALLS = (
    'print("step", {n})',
    'logger.warning("rows: %d", {n})',
    'logger.info(f"value {{{n}}}")',
    'warnings.warn("slow path {n}")',
    'logger.debug("shape %s", str(h.shape))',
)
DIAGNOSTIC_IO_CALLS = tuple(call for call in IO_CALLS if not call.startswith(("warnings.warn", "logger.warning")))
TENSOR_STEPS = ("h = h * 2", "h = torch.relu(h) + 1", "h = h - h.mean()", "h = h.tanh()")

HEADER = '''import logging
import warnings

import torch

logger = logging.getLogger("generated_io_case")


def f(x, flag):
    h = x + 1
'''
FOOTER = '''    return h


compiled = torch.compile(f)
'''


def _body(steps: list[tuple[str, int, bool]]) -> str:
    lines = []
    for kind, n, nested in steps:
        # A warning that is an `if`'s whole body is a rare-branch signal, left as written
        # (rewrite/python_io/io_purpose.py, test_rare_branch_warnings_are_left_with_advice): nested I/O here
        # is the diagnostic kind a guard is for.
        calls = DIAGNOSTIC_IO_CALLS if nested else IO_CALLS
        code = TENSOR_STEPS[n % len(TENSOR_STEPS)] if kind == "tensor" else calls[n % len(calls)].format(n=n)
        lines.append(f"    if flag:\n        {code}\n" if nested else f"    {code}\n")
    return "".join(lines)


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    steps=st.lists(
        st.tuples(st.sampled_from(["tensor", "io"]), st.integers(0, 9), st.booleans()), min_size=1, max_size=6
    ).filter(lambda steps: any(kind == "io" for kind, _, _ in steps)),
    flag=st.booleans(),
)
def test_guarded_io_keeps_eager_behaviour_and_compiles_to_one_graph(
    tmp_path: Path, steps: list[tuple[str, int, bool]], flag: bool
) -> None:
    source = HEADER + _body(steps) + FOOTER
    path = tmp_path / "generated_io.py"
    path.write_text(source, encoding="utf-8")
    changes = fix_paths([str(path)], Config())
    assert changes, "every I/O call in traced code has a safe guard fix"
    fixed = changes[0].after
    compile(fixed, "fixed", "exec")
    path.write_text(fixed, encoding="utf-8")
    assert fix_paths([str(path)], Config()) == []
    (tmp_path / "before.py").write_text(source, encoding="utf-8")
    before = load_module(tmp_path / "before.py", tmp_path, f"io_before_{abs(hash(source))}")
    after = load_module(path, tmp_path, f"io_after_{abs(hash(source))}")
    inputs = (torch.randn(3, 4, generator=torch.Generator().manual_seed(len(steps))), flag)
    original, rewritten = run_eager(before.f, inputs), run_eager(after.f, inputs)
    assert_identical(original.output, rewritten.output)
    assert (rewritten.stdout, rewritten.warnings, rewritten.logs) == (original.stdout, original.warnings, original.logs)
    assert break_count(after.f, inputs) == 0


class Messages(logging.Handler):
    def __init__(self, logger: logging.Logger) -> None:
        super().__init__(logging.DEBUG)
        self.logger = logger
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.messages.append(record.getMessage())

    def __enter__(self) -> list[str]:
        self.logger.addHandler(self)
        self.logger.setLevel(logging.DEBUG)
        return self.messages

    def __exit__(self, *exc: object) -> None:
        self.logger.removeHandler(self)


def test_defer_emits_the_message_after_the_compiled_graph(tmp_path: Path) -> None:
    module = load_module(FIXTURES / "io" / "defer_logger.out.py", tmp_path, "deferred_logger_case")
    x = torch.randn(5, 2)
    assert break_count(module.scale_rows, (x,)) == 0
    torch._dynamo.reset()
    compiled = torch.compile(module.scale_rows, fullgraph=True)  # fullgraph: any break would raise
    with Messages(module.logger) as messages:
        result = compiled(x)
    assert messages == ["scaled by 3"]
    assert torch.allclose(result, module.scale_rows(x))  # inductor vs eager: same maths, not bit for bit
    torch._dynamo.reset()


def test_guard_skips_the_message_under_compile(tmp_path: Path) -> None:
    source = (FIXTURES / "io" / "defer_logger.in.py").read_text(encoding="utf-8").replace(
        "# fixture: io-strategy=defer, unsafe-fixes\n", ""
    )
    path = tmp_path / "guarded_logger_source.py"
    path.write_text(source, encoding="utf-8")
    path.write_text(fix_paths([str(path)], Config())[0].after, encoding="utf-8")
    module = load_module(path, tmp_path, "guarded_logger_case")
    torch._dynamo.reset()
    compiled = torch.compile(module.scale_rows, fullgraph=True)
    with Messages(module.logger) as messages:
        compiled(torch.randn(5, 2))
    assert messages == []
    with Messages(module.logger) as messages:
        module.scale_rows(torch.randn(5, 2))
    assert messages == ["scaled by 3"]
    torch._dynamo.reset()


def test_no_guard_reads_torch_above_the_functions_own_import_of_it(tmp_path: Path) -> None:
    # `torch` is a local of `forward` (its own `import torch`): a guard above that line would raise
    # UnboundLocalError on every call.
    path = tmp_path / "local_torch.py"
    path.write_text(
        "import torch\nfrom torch import nn\n\n\nclass M(nn.Module):\n    def forward(self, x):\n        print('start')\n"
        "        import torch\n\n        return torch.relu(x)\n",
        encoding="utf-8",
    )
    assert [f.code for f in check([str(path)], jobs=1).findings] == ["GM401"]
    assert fix_paths([str(path)], Config()) == []


def test_fix_messages_say_what_changes_and_unsafe_when_arguments_have_effects(tmp_path: Path) -> None:
    path = tmp_path / "effects.py"
    path.write_text(
        "import torch\n\n\ndef f(x, items):\n    y = x * 2\n    print('next', items.pop())\n    return y\n\n\n"
        "compiled = torch.compile(f)\n",
        encoding="utf-8",
    )
    remaining = fix_outcome([str(path)], Config()).remaining
    (finding,) = [f for f in remaining.findings if f.code == "GM401"]
    assert finding.fix is not None and finding.fix.applicability == "unsafe"
    assert "eager behaviour unchanged, skipped under torch.compile" in finding.fix.message
    assert "no longer evaluated under compile" in finding.fix.message
    defer = fix_outcome([str(path)], Config(io_strategy="defer")).remaining
    (deferred,) = [f for f in defer.findings if f.code == "GM401"]
    assert deferred.fix is not None and "emitted after the graph" in deferred.fix.message


def test_non_module_logger_cannot_be_deferred_and_says_why(tmp_path: Path) -> None:
    path = tmp_path / "self_logger.py"
    path.write_text(
        "import logging\n\nimport torch\n\n\nclass M(torch.nn.Module):\n    def __init__(self):\n"
        "        super().__init__()\n        self.logger = logging.getLogger('m')\n\n"
        "    def forward(self, x):\n        logger = self.logger\n        y = x + 1\n"
        "        logger.warning('careful')\n        return y\n",
        encoding="utf-8",
    )
    remaining = fix_outcome([str(path)], Config(io_strategy="defer")).remaining
    fixes = [f.fix for f in remaining.findings if f.code == "GM402"]
    assert fixes and fixes[0] is not None
    assert fixes[0].applicability == "unsafe"
    assert "not deferred" in fixes[0].message


SHADOWED_LOGGER = (
    "import logging\n\nimport torch\n\nlogger = logging.getLogger(__name__)\n\n\n"
    "class M(torch.nn.Module):\n    def __init__(self):\n        super().__init__()\n"
    "        self.logger = logging.getLogger('m')\n\n"
    "    def forward(self, x):\n        logger = self.logger\n        y = x + 1\n"
    "        logger.warning({message!r})\n        return y\n"
)


@pytest.mark.parametrize(("message", "config"), [
    ("careful", Config(io_strategy="defer")),
    ("`old` is deprecated, use `new`", Config(deprecation_notices="defer")),
])
def test_a_local_logger_shadowing_the_module_one_is_not_deferred_through_it(
    message: str, config: Config, tmp_path: Path
) -> None:
    # The deferral helper logs through the module's `logger`; this call logs through `self.logger`.
    path = tmp_path / "shadowed_logger.py"
    source = SHADOWED_LOGGER.format(message=message)
    path.write_text(source, encoding="utf-8")
    changes = fix_paths([str(path)], config, unsafe=True)
    fixed = changes[0].after if changes else source
    assert "_after_graph" not in fixed
    assert f"logger.warning({message!r})" in fixed


@pytest.mark.parametrize("case", ["defer_logger", "defer_print_and_warning"])
def test_deferral_helpers_are_not_reported_after_the_fix(case: str) -> None:
    # Dynamo calls functions in reorderable_logging_functions after the graph, never tracing them.
    # The FutureWarning is deferred through a helper that keeps its category (io_deprecation.py).
    result = check([str(FIXTURES / "io" / f"{case}.out.py")])
    assert [f"{f.code}:{f.location.row}" for f in result.findings] == []
