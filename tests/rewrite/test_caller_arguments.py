"""A rewrite of a helper is safe only when every caller in the tree passes it a tensor (review4 finding 1).

`helper` branches on `x.sum() > 0`; `Net.forward` passes it a tensor, `preprocess` a numpy array.
`torch.where(x.sum() > 0, ...)` would raise on the array where the branch ran: the fix is offered as
unsafe, naming that call (analysis/caller_arguments.py). Each case applies the safe fixes to a copy
of the tree and runs both copies eagerly: outputs and gradients must match.
"""

from __future__ import annotations

import importlib
import itertools
import shutil
import sys
import textwrap
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest
import torch
from fixture_support import assert_identical

from graphmend_bot.config import Config
from graphmend_bot.rewrite import fix_outcome, write_changes

HELPER = """
    import torch


    def helper(x):
        if x.sum() > 0:
            return x * 2
        return x + 1
"""

NET = """
    from torch import nn

    from .utils import helper


    class Net(nn.Module):
        def forward(self, x):
            return helper(x * 3)
"""

PREP_NUMPY = """
    import numpy as np

    from .utils import helper


    def preprocess(values):
        return helper(np.asarray(values, dtype=np.float32))
"""

PREP_TENSOR = PREP_NUMPY.replace("np.asarray(values, dtype=np.float32)", "torch.as_tensor(values)").replace(
    "import numpy as np", "import torch")

_names = itertools.count()


def _tree(root: Path, files: dict[str, str]) -> Path:
    package = root / "original" / f"callers_{next(_names)}"
    for name, text in {"__init__.py": "", **files}.items():
        (package / name).parent.mkdir(parents=True, exist_ok=True)
        (package / name).write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")
    return package


def _safely_fixed(original: Path, function: str = "helper", code: str = "GM101") -> tuple[Path, str]:
    """A copy of the package with the safe fixes written, and `function`'s fix as the fixer offers it."""
    copy = original.parent.parent / "fixed" / f"callers_{next(_names)}"
    shutil.copytree(original, copy)
    outcome = fix_outcome([str(copy.parent)], Config())
    write_changes(outcome.changes)
    offered = [f.fix.message for f in outcome.remaining.findings
               if f.symbol.endswith(f"utils.{function}") and f.code == code and f.fix is not None]
    return copy, offered[0] if offered else ""


def _load(package: Path, module: str) -> ModuleType:
    sys.path.insert(0, str(package.parent))
    try:
        return importlib.import_module(f"{package.name}.{module}")
    finally:
        sys.path.remove(str(package.parent))


def _forward(package: Path) -> tuple[torch.Tensor, torch.Tensor | None]:
    x = torch.tensor([[0.5, -1.5], [2.0, 0.25]], requires_grad=True)
    out = _load(package, "net").Net()(x)
    (out ** 2).sum().backward()
    return out.detach(), x.grad


def _same_behaviour(before: Path, after: Path, values: list[float]) -> None:
    for (out_before, grad_before), (out_after, grad_after) in [(_forward(before), _forward(after))]:
        assert_identical(out_before, out_after)
        assert_identical(grad_before, grad_after, "gradient")
    prepared_before = _load(before, "prep").preprocess(values)
    prepared_after = _load(after, "prep").preprocess(values)  # raised TypeError when rewritten to torch.where
    assert type(prepared_before) is type(prepared_after)
    np.testing.assert_array_equal(np.asarray(prepared_before), np.asarray(prepared_after))


def test_a_helper_another_caller_gives_a_numpy_array_keeps_its_branch(tmp_path: Path) -> None:
    original = _tree(tmp_path, {"utils.py": HELPER, "net.py": NET, "prep.py": PREP_NUMPY})
    fixed, offered = _safely_fixed(original)
    _same_behaviour(original, fixed, [1.0, 2.0])
    _same_behaviour(original, fixed, [-1.0, -2.0])
    assert "if x.sum() > 0:" in (fixed / "utils.py").read_text(encoding="utf-8")
    assert offered.startswith("Return the `torch.where` selection")
    assert "unsafe" in offered and "every caller passes `x` a tensor" in offered and "prep.preprocess` (" in offered and "/prep.py)" in offered


def test_a_helper_every_caller_gives_a_tensor_is_rewritten_safely(tmp_path: Path) -> None:
    original = _tree(tmp_path, {"utils.py": HELPER, "net.py": NET, "prep.py": PREP_TENSOR})
    fixed, _ = _safely_fixed(original)
    assert "torch.where(x.sum() > 0, x * 2, x + 1)" in (fixed / "utils.py").read_text(encoding="utf-8")
    _same_behaviour(original, fixed, [1.0, 2.0])


def test_a_tensor_annotation_stands_for_every_caller(tmp_path: Path) -> None:
    annotated = HELPER.replace("def helper(x):", "def helper(x: torch.Tensor):")
    original = _tree(tmp_path, {"utils.py": annotated, "net.py": NET, "prep.py": PREP_NUMPY})
    fixed, _ = _safely_fixed(original)
    assert "torch.where(x.sum() > 0, x * 2, x + 1)" in (fixed / "utils.py").read_text(encoding="utf-8")


def test_a_file_the_analysis_does_not_read_may_call_it_with_anything(tmp_path: Path) -> None:
    script = """
        from callers_pkg.utils import helper

        print(helper([1.0]))
    """
    original = _tree(tmp_path, {"utils.py": HELPER, "net.py": NET, "prep.py": PREP_TENSOR})
    (original.parent / "scripts").mkdir()
    (original.parent / "scripts" / "run.py").write_text(
        textwrap.dedent(script).replace("callers_pkg", original.name), encoding="utf-8")
    outcome = fix_outcome([str(original.parent)], Config())
    assert not outcome.changes or all(not change.path.endswith("utils.py") for change in outcome.changes)
    offered = [f.fix.message for f in outcome.remaining.findings if f.code == "GM101" and f.fix is not None]
    assert offered and "scripts/run.py imports it and is not analysed" in offered[0]


# review7 finding 2: a function passed as a value is called by code the analysis does not see.
NORM = """
    import torch


    def norm(v):
        s = v.max().item()
        return v - s
"""

NORM_NET = NET.replace("helper", "norm").replace("x * 3", "x")

MAPPED = """
    import functools

    import numpy as np

    from .utils import norm

    HANDLERS = {{"norm": norm}}


    def preprocess(values):
        arrays = [np.asarray(values, dtype=np.float32)]
        return {use}
"""


@pytest.mark.parametrize("use", [
    "list(map(norm, arrays))",
    "sorted(arrays, key=norm)[0] - 0",
    "functools.partial(norm)(arrays[0])",
    'HANDLERS["norm"](arrays[0])',
])
def test_a_function_passed_as_a_value_keeps_its_item(use: str, tmp_path: Path) -> None:
    original = _tree(tmp_path, {"utils.py": NORM, "net.py": NORM_NET, "prep.py": MAPPED.format(use=use)})
    fixed, offered = _safely_fixed(original, "norm", "GM301")
    assert "s = v.max().item()" in (fixed / "utils.py").read_text(encoding="utf-8")
    assert "unsafe" in offered and "every caller passes `v` a tensor" in offered
    assert "uses it as a value" in offered or "`HANDLERS`" in offered or "holds it" in offered
    _same_behaviour(original, fixed, [1.0, 3.0])  # raised AttributeError: numpy.float64 has no `detach`


def test_a_function_under_an_unknown_decorator_keeps_its_item(tmp_path: Path) -> None:
    decorated = NORM.replace("    def norm(v):", "    from .registry import register\n\n\n    @register\n    def norm(v):")
    registry = """
        def register(fn):
            return fn
    """
    original = _tree(tmp_path, {"utils.py": decorated, "registry.py": registry, "net.py": NORM_NET,
                                "prep.py": MAPPED.format(use="arrays[0]")})
    _, offered = _safely_fixed(original, "norm", "GM301")
    assert "unsafe" in offered and "its decorator `@register` may call it with other values" in offered


def test_a_function_only_called_with_tensors_keeps_its_safe_item_fix(tmp_path: Path) -> None:
    direct = MAPPED.format(use="[norm(torch.as_tensor(a)) for a in arrays]").replace(
        "import functools\n", "import functools\n\n    import torch\n").replace('    HANDLERS = {"norm": norm}\n', "")
    original = _tree(tmp_path, {"utils.py": NORM, "net.py": NORM_NET, "prep.py": direct})
    fixed, offered = _safely_fixed(original, "norm", "GM301")
    assert "s = v.max().detach()" in (fixed / "utils.py").read_text(encoding="utf-8"), offered
    _same_behaviour(original, fixed, [1.0, 3.0])
