"""Shared helpers for the rewrite fixture pairs (tests/fixtures/rewrite/<transformation>/<case>.in.py).

A fixture may start with a directive comment choosing how it is fixed:

    # fixture: unsafe-fixes, io-strategy=defer, deprecation-notices=defer

Without one, only safe fixes are applied with the default configuration.
"""

from __future__ import annotations

import importlib.util
import io
import logging
import shutil
import sys
import warnings
from contextlib import redirect_stdout
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

import torch

from graphmend_bot.census.dynamo import Tree, explain_breaks
from graphmend_bot.config import Config
from graphmend_bot.rewrite import fix_paths

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "rewrite"
SEEDS = (0, 1, 2, 3)


@dataclass(frozen=True)
class FixtureOptions:
    unsafe: bool = False
    io_strategy: str = "guard"
    deprecation_notices: str = "advice"


def fixture_cases() -> list[Path]:
    """Every `<case>.in.py` under tests/fixtures/rewrite/*/, for all transformations."""
    return sorted(FIXTURES.glob("*/*.in.py"))


def case_id(path: Path) -> str:
    return f"{path.parent.name}/{path.name.removesuffix('.in.py')}"


def expected_path(path: Path) -> Path:
    return path.with_name(path.name.removesuffix(".in.py") + ".out.py")


def options(source: str) -> FixtureOptions:
    unsafe, strategy, notices = False, "guard", "advice"
    for line in source.splitlines():
        if not line.startswith("#"):
            break
        if line.startswith("# fixture:"):
            for item in line.removeprefix("# fixture:").split(","):
                key, _, value = item.strip().partition("=")
                if key == "unsafe-fixes":
                    unsafe = True
                elif key == "io-strategy":
                    strategy = value
                elif key == "deprecation-notices":
                    notices = value
                else:
                    raise ValueError(f"unknown fixture directive {item.strip()!r}")
    return FixtureOptions(unsafe, strategy, notices)


def fix_source(source: str, workdir: Path, name: str = "case.py") -> str:
    """What `graphmend check --fix` (with the fixture's directive) makes of `source`."""
    chosen = options(source)
    target = workdir / name
    target.write_text(source, encoding="utf-8")
    changes = fix_paths([str(target)], Config(io_strategy=chosen.io_strategy, deprecation_notices=chosen.deprecation_notices), unsafe=chosen.unsafe)
    assert len(changes) <= 1
    return changes[0].after if changes else source


def load_module(path: Path, workdir: Path, name: str) -> ModuleType:
    """Import a copy of `path` under a unique module name (the two versions never share state)."""
    copy = workdir / f"{name}.py"
    shutil.copyfile(path, copy)
    spec = importlib.util.spec_from_file_location(name, copy)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def build_entry(module: ModuleType) -> Any:
    entry = module.ENTRY
    if isinstance(entry, type) and issubclass(entry, torch.nn.Module):
        torch.manual_seed(0)  # same parameters for both versions
        return entry().eval()
    return entry


@dataclass
class EagerRun:
    output: Any
    stdout: str
    warnings: list[str]
    logs: list[str]


class _Capture(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.messages.append(f"{record.levelname}:{record.getMessage()}")


def run_eager(entry: Any, inputs: tuple[Any, ...]) -> EagerRun:
    """Call `entry` eagerly, capturing what it prints, warns and logs."""
    stdout = io.StringIO()
    handler = _Capture()
    root = logging.getLogger()
    level = root.level
    root.addHandler(handler)
    root.setLevel(logging.DEBUG)
    try:
        with redirect_stdout(stdout), warnings.catch_warnings(record=True) as caught, torch.no_grad():
            warnings.simplefilter("always")
            output = entry(*inputs)
    finally:
        root.removeHandler(handler)
        root.setLevel(level)
    return EagerRun(output, stdout.getvalue(), [f"{w.category.__name__}:{w.message}" for w in caught], handler.messages)


def assert_identical(before: Any, after: Any, where: str = "output") -> None:
    """Same structure; tensors bit-identical with the same dtype and shape."""
    if isinstance(before, torch.Tensor):
        assert isinstance(after, torch.Tensor), f"{where}: tensor became {type(after).__name__}"
        assert before.dtype == after.dtype, f"{where}: dtype {before.dtype} -> {after.dtype}"
        assert before.shape == after.shape, f"{where}: shape {tuple(before.shape)} -> {tuple(after.shape)}"
        assert torch.equal(before, after) or (
            before.is_floating_point() and torch.equal(before.isnan(), after.isnan())
            and torch.equal(before.nan_to_num(), after.nan_to_num())
        ), f"{where}: values differ"
    elif isinstance(before, tuple | list):
        assert type(before) is type(after) and len(before) == len(after), f"{where}: structure differs"
        for index, (a, b) in enumerate(zip(before, after, strict=True)):
            assert_identical(a, b, f"{where}[{index}]")
    elif isinstance(before, dict):
        assert before.keys() == after.keys(), f"{where}: keys differ"
        for key in before:
            assert_identical(before[key], after[key], f"{where}[{key!r}]")
    else:
        assert before == after, f"{where}: {before!r} != {after!r}"


def _source_folder(entry: Any) -> str:
    """The folder of the module defining `entry` (a function or a module instance): breaks are
    located in the frames under it."""
    owner = type(entry) if isinstance(entry, torch.nn.Module) else entry
    module = sys.modules.get(getattr(owner, "__module__", "") or "")
    path = getattr(module, "__file__", None)
    return str(Path(path).parent) if path else str(Path.cwd())


def break_count(entry: Any, inputs: tuple[Any, ...]) -> int:
    """Dynamo's breaks for one call, as verify and the census count them: explain's, plus those only
    the `graph_breaks` log reports (a break inside a generator `all()` consumes makes Dynamo skip
    the frame: no graph, nothing in explain)."""
    torch._dynamo.reset()
    # Logging stays on: the graph_breaks log is read through it.
    with warnings.catch_warnings(), redirect_stdout(io.StringIO()), torch.no_grad():
        warnings.simplefilter("ignore")
        result = explain_breaks(entry, inputs, {}, Tree([_source_folder(entry)]))
    torch._dynamo.reset()
    # A break inside a loop makes Dynamo run the whole frame eagerly: no graph is split, so
    # graph_break_count stays 0, but the reason is recorded.
    return max(int(result.graph_break_count), len(result.breaks))


def module_output_and_gradient(source: str, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor | None]:
    """Run `M()(x)` of generated module source eagerly: its output, and the gradient `x` receives
    from the sum of the output's squares (`x` enters as a non-leaf, so in-place updates are allowed)."""
    namespace: dict[str, object] = {}
    exec(compile(source, "<case>", "exec"), namespace)  # generated test code
    leaf = x.clone().requires_grad_(True)
    out = namespace["M"]()(leaf * 1)  # type: ignore[operator]
    (out ** 2).sum().backward()
    return out.detach(), leaf.grad
