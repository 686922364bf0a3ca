"""Near misses of GM614 (class assignment) and GM615 (TypedDicts with optional keys) that Dynamo
reports with another id or traces: their fixtures' Dynamo cases cannot hold them; and GM637's
autograd.Function classes, judged across modules."""

from __future__ import annotations

import textwrap
from pathlib import Path

from graphmend_bot.engine import check


def _codes(tmp_path: Path, source: str) -> list[tuple[int, str]]:
    path = tmp_path / "model.py"
    path.write_text(textwrap.dedent(source), encoding="utf-8")
    result = check([str(path)], None, jobs=1)
    assert not result.errors, result.errors
    return [(f.location.row, f.code) for f in result.findings]


def test_a_tensors_class_assignment_is_left_to_the_tensor_attributes(tmp_path: Path) -> None:
    # Measured on torch 2.13: GB0058 "Failed to set tensor attribute", not GB4271.
    assert _codes(tmp_path, """
        import torch
        from torch import nn

        class Sub(torch.Tensor):
            pass

        class Model(nn.Module):
            def forward(self, x: torch.Tensor) -> torch.Tensor:
                y = x * 2
                y.__class__ = Sub
                return y
    """) == []


def test_a_typed_dict_defined_in_a_function_or_without_optional_keys_is_not_reported(tmp_path: Path) -> None:
    assert _codes(tmp_path, """
        from typing import TypedDict
        import torch
        from torch import nn

        class Base(TypedDict):
            a: float

        class Child(Base):  # still total: every key required
            b: float

        class Empty(TypedDict, total=False):  # no key at all
            pass

        class Model(nn.Module):
            def forward(self, x: torch.Tensor) -> torch.Tensor:
                c = Child(a=1.0, b=2.0)
                e = Empty()
                return x * c["a"] + len(e)
    """) == []


def _project_codes(tmp_path: Path, files: dict[str, str]) -> list[tuple[str, int, str]]:
    for name, source in files.items():
        path = tmp_path / "pkg" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(source), encoding="utf-8")
    result = check([str(tmp_path / "pkg")], None, jobs=1)
    assert not result.errors, result.errors
    return sorted((Path(f.path).name, f.location.row, f.code) for f in result.findings)


def test_a_typed_dict_with_optional_keys_imported_from_another_module_is_reported(tmp_path: Path) -> None:
    assert _project_codes(tmp_path, {
        "__init__.py": "",
        "types.py": """
            from typing import NotRequired, TypedDict

            class Options(TypedDict, total=False):
                scale: float

            class Plain(TypedDict):
                scale: float

            class Marked(TypedDict):
                scale: float
                shift: NotRequired[float]
        """,
        "model.py": """
            import torch
            from torch import nn

            from pkg import types
            from pkg.types import Options, Plain

            class Model(nn.Module):
                def forward(self, x: torch.Tensor) -> torch.Tensor:
                    a = Options(scale=2.0)
                    b = types.Marked(scale=1.0)
                    c = Plain(scale=3.0)
                    return x * a["scale"] * b["scale"] * c["scale"]
        """,
    }) == [("model.py", 10, "GM615"), ("model.py", 11, "GM615")]


def test_a_call_with_two_positional_arguments_builds_no_typed_dict(tmp_path: Path) -> None:
    # `Options(a, b)` raises TypeError when Options is a TypedDict: the name is something else here.
    assert _codes(tmp_path, """
        from typing import TypedDict
        import torch
        from torch import nn

        class Options(TypedDict, total=False):
            scale: float

        def make(a, b):
            return Options(a, b)

        class Model(nn.Module):
            def forward(self, x: torch.Tensor) -> torch.Tensor:
                options = make({"scale": 2.0}, None)
                if False:
                    Options({"scale": 1.0}, {"scale": 2.0})
                return x
    """) == []


def test_a_capitalized_factory_of_a_typed_dict_is_reported_where_it_builds_it(tmp_path: Path) -> None:
    # Dynamo breaks once, at `Options(...)` inside the factory (measured on torch 2.13): the
    # factory's own call builds no TypedDict and is not a second finding.
    assert _codes(tmp_path, """
        from typing import TypedDict
        import torch
        from torch import nn

        class Options(TypedDict, total=False):
            scale: float

        def Defaults():
            return Options(scale=2.0)

        class Model(nn.Module):
            def forward(self, x: torch.Tensor) -> torch.Tensor:
                options = Defaults()
                return x * options["scale"]
    """) == [(10, "GM615")]


def test_a_function_class_imported_from_another_module_is_judged_by_its_own_body(tmp_path: Path) -> None:
    assert _project_codes(tmp_path, {
        "__init__.py": "",
        "functions.py": """
            import functools

            import torch
            from torch.autograd import Function

            class WithJvp(Function):
                @staticmethod
                def forward(ctx, x):
                    return x * 2

                jvp = forward

            class Plain(torch.autograd.Function):
                @staticmethod
                def forward(ctx, x):
                    return x * 2

            def _scaled(ctx, x, scale):
                return x * scale

            class Partial(torch.autograd.Function):
                forward = staticmethod(functools.partial(_scaled, scale=2))
        """,
        "model.py": """
            import torch
            from torch import nn

            from pkg import functions
            from pkg.functions import Plain, WithJvp

            class Model(nn.Module):
                def forward(self, x: torch.Tensor) -> torch.Tensor:
                    a = WithJvp.apply(x)
                    b = functions.Partial.apply(x)
                    c = Plain.apply(x)
                    return a + b + c
        """,
    }) == [("model.py", 10, "GM637"), ("model.py", 11, "GM637")]
