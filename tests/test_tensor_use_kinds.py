"""A local the code uses as a tensor is one from there on (tensor_uses.note_tensor_use): measured
with Dynamo on samples whose value comes from where graphmend cannot tell (an attribute of a plain
object), each with a near miss holding a Python number in the same position, which must stay quiet."""

from __future__ import annotations

import warnings
from pathlib import Path

import pytest
import torch
from sample_modules import agreed_break_lines, line_of

from graphmend_bot.analysis.tensor_uses import takes_tensor_first

_TEMPLATE = '''import torch
import torch.nn as nn
import torch.nn.functional as F


class State:
    pass


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.state = State()
        self.state.a = torch.ones(())
        self.state.g = 0.5

    def forward(self, x):
        a = self.state.a
        y = {use}
        if a > 0:
            y = y + 1
        g = self.state.g
        z = {miss}
        if g > 0:
            z = z + 1
        return y * x + z
'''


@pytest.mark.parametrize(
    ("use", "miss"),
    [
        ("torch.exp(a)", "torch.tensor(g)"),  # a torch function's input; a tensor built from a number
        ("F.relu(a)", "torch.as_tensor(g)"),
        ("a.unsqueeze(0)", "torch.mul(g, x)"),  # a tensor-only method; torch.mul takes a number first
        ("torch.sigmoid(a)", "torch.pow(g, x)"),
        ("torch.clamp(a, min=0)", "torch.full_like(x, g)"),
        ("a.rsqrt()", "torch.tensor(g).rsqrt()"),  # a method only tensors have, on the name itself
    ],
)
def test_a_local_used_as_a_tensor_is_one_after_the_use(use: str, miss: str, tmp_path: Path) -> None:
    source = _TEMPLATE.format(use=use, miss=miss)
    assert agreed_break_lines(source, tmp_path) == {line_of(source, "if a > 0:")}


def test_a_sequence_passed_to_cat_holds_tensors(tmp_path: Path) -> None:
    source = _TEMPLATE.format(use="torch.stack([a, a]).sum()", miss="torch.tensor([g, g]).sum()")
    assert agreed_break_lines(source, tmp_path) == {line_of(source, "if a > 0:")}


def test_a_name_rebound_after_the_use_holds_what_it_is_bound_to(tmp_path: Path) -> None:
    """The use proves a tensor until the name is bound again: rebound to a number, its test traces."""
    source = _TEMPLATE.format(use="torch.exp(a)", miss="torch.tensor(g)")
    source = source.replace("        g = self.state.g\n", "        g = self.state.a\n        w = torch.exp(g)\n        g = self.state.g\n")
    assert "w = torch.exp(g)\n        g = self.state.g\n" in source
    assert agreed_break_lines(source, tmp_path) == {line_of(source, "if a > 0:")}


def test_a_use_in_an_arm_of_a_type_test_proves_nothing_after_it(tmp_path: Path) -> None:
    """`if isinstance(g, torch.Tensor): torch.exp(g)`: a tensor in that arm only, a number after it."""
    source = _TEMPLATE.format(use="torch.exp(a)", miss="torch.tensor(g)")
    source = source.replace("        z = torch.tensor(g)\n",
                            "        z = torch.tensor(g)\n        if isinstance(g, torch.Tensor):\n            z = torch.exp(g)\n")
    assert agreed_break_lines(source, tmp_path) == {line_of(source, "if a > 0:")}


def test_a_value_cast_to_a_tensor_type_is_one(tmp_path: Path) -> None:
    """`cast(torch.Tensor, v)` says what `v` holds; `cast(float, v)` on a number traces its test."""
    source = "from typing import cast\n\n" + _TEMPLATE.format(use="cast(torch.Tensor, a)", miss="cast(float, g)")
    source = source.replace("        if a > 0:", "        if y > 0:").replace("        if g > 0:", "        if z > 0:")
    source = source.replace("return y * x + z", "return y * x + torch.tensor(z)")
    assert agreed_break_lines(source, tmp_path) == {line_of(source, "if y > 0:")}



def test_a_method_a_class_of_the_module_defines_proves_nothing(tmp_path: Path) -> None:
    """review30: `s.view()` on a value of unknown class, where a class of the module defines `view`,
    may be that class's: its truth test traces (on lead `if s:` was a GM101 false positive). The
    same name used as a tensor's (`a.unsqueeze(0)`, no class defining it) still proves a tensor."""
    source = _TEMPLATE.format(use="a.unsqueeze(0)", miss="g.view()")
    source = source.replace("class State:\n    pass\n", "class State:\n    pass\n\n\nclass Shape:\n"
                            "    def view(self):\n        return (1, 2)\n\n    def __len__(self):\n        return 2\n")
    source = source.replace("self.state.g = 0.5", "self.state.g = Shape()").replace("if g > 0:", "if g:")
    source = source.replace("z = z + 1", "z = len(z)").replace("return y * x + z", "return y * x + len(g)")
    assert agreed_break_lines(source, tmp_path) == {line_of(source, "if a > 0:")}

_PROBES: tuple[object, ...] = (2, 2.0, True, "ij,j->i", [2, 3], (2, 3), None, torch.float32, [torch.ones(2)])
_EXTRA: tuple[tuple[object, ...], ...] = ((), (torch.ones(3),), (2,), (torch.ones(3), torch.ones(3)), ("x",))


def _takes(function: object, first: object) -> bool:
    """Whether `function` gets past its argument parsing with `first` as its first argument."""
    for extra in _EXTRA:
        try:
            function(first, *extra)  # type: ignore[operator]
            return True
        except TypeError as error:
            if "Tensor" in str(error) and ("input" in str(error) or "position 1" in str(error)):
                return False
        except AttributeError:  # a Python function reading `input.dim()`
            return False
        except ValueError as error:
            return not ("Tensor" in str(error) or "dimension" in str(error))
        except Exception:
            return True
    return False


def test_functions_taken_to_hold_a_tensor_first_refuse_anything_else() -> None:
    """Over torch's namespace and its tensor submodules: every function whose first argument is
    read as proof of a tensor refuses a number, string, list, None or dtype there."""
    taking = []
    modules = ((torch, "torch"), (torch.nn.functional, "torch.nn.functional"), (torch.linalg, "torch.linalg"),
               (torch.fft, "torch.fft"), (torch.special, "torch.special"))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for module, prefix in modules:
            for name in sorted(dir(module)):
                function = getattr(module, name, None)
                if not callable(function) or isinstance(function, type) or not takes_tensor_first(f"{prefix}.{name}"):
                    continue
                if any(_takes(function, probe) for probe in _PROBES):
                    taking.append(f"{prefix}.{name}")
    assert taking == []
    assert takes_tensor_first("torch.exp") and takes_tensor_first("torch.nn.functional.relu")


def test_methods_taken_to_prove_a_tensor_are_no_other_common_values() -> None:
    """Each is a method of torch.Tensor and of none of NumPy's arrays, nn.Modules or the builtins."""
    import numpy as np

    from graphmend_bot.analysis.tensor_uses import _MORE_TENSOR_METHODS

    others: set[str] = set(dir(np.ndarray)) | set(dir(torch.nn.Module))
    for builtin in (str, bytes, list, tuple, dict, set, int, float, complex):
        others |= set(dir(builtin))
    assert all(callable(getattr(torch.Tensor, name, None)) for name in _MORE_TENSOR_METHODS)
    assert sorted(_MORE_TENSOR_METHODS & others) == []
