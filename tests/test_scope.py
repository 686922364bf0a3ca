"""What counts as traced: only breaks in code torch.compile would trace are findings."""

from graphmend_bot.config import Config
from graphmend_bot.engine import check

BRANCHY = """
    import torch

    def helper(x):
        if x.sum() > 0:
            return x * 2
        return x
"""


def codes_by_line(root, **kwargs):
    result = check([str(root)], **kwargs)
    assert not result.errors
    return {(f.path.rsplit("/", 1)[-1], f.location.row, f.code) for f in result.findings}


def test_uncompiled_code_is_not_reported(write_tree):
    root = write_tree({"lib.py": BRANCHY})
    assert codes_by_line(root) == set()


def test_forward_of_module_subclass_and_helper_across_modules(write_tree):
    root = write_tree({
        "pkg/__init__.py": "",
        "pkg/helpers.py": BRANCHY,
        "pkg/model.py": """
            from torch import nn
            from .helpers import helper

            class Block(nn.Module):
                def forward(self, x):
                    return helper(x)
        """,
    })
    assert codes_by_line(root) == {("helpers.py", 4, "GM101")}


def test_module_subclass_through_in_tree_base(write_tree):
    root = write_tree({
        "base.py": """
            import torch

            class Base(torch.nn.Module):
                pass
        """,
        "model.py": """
            from base import Base

            class Model(Base):
                def forward(self, x):
                    print("debug")
                    return x
        """,
    })
    assert codes_by_line(root) == {("model.py", 5, "GM401")}


def test_compiled_function_decorator_and_call(write_tree):
    root = write_tree({
        "fns.py": """
            import torch

            @torch.compile
            def decorated(x):
                return x.sum().item()

            def passed(x):
                return float(x.mean())

            def not_compiled(x):
                return x.sum().item()

            fast = torch.compile(passed, mode="max-autotune")
        """,
    })
    assert codes_by_line(root) == {("fns.py", 5, "GM301"), ("fns.py", 8, "GM302")}


def test_compile_call_under_an_import_alias(write_tree):
    # The call's line never says "compile": only the import does (summary.py searches the lines
    # that say it, and every statement once torch.compile has another name).
    root = write_tree({
        "fns.py": """
            import torch
            from torch import compile as jit  # the file mentions torch.compile here

            def passed(x):
                return float(x.mean())

            fast = jit(passed)
        """,
    })
    assert codes_by_line(root) == {("fns.py", 5, "GM302")}


def test_compile_call_found_by_the_row_the_parser_counts(write_tree):
    # "compile" on the second line of a statement, in a file with \r\n and lone \r line ends.
    source = (
        "import torch\r\n\rdef passed(x):\r    return float(x.mean())\r\n\r\n"
        "fast = (\n    torch.compile(passed))\n"
    )
    root = write_tree({"fns.py": source.encode()})
    assert codes_by_line(root) == {("fns.py", 4, "GM302")}


def test_model_compile_method_and_self_method(write_tree):
    root = write_tree({
        "run.py": """
            import torch

            class Plain:  # not an nn.Module: only compiled explicitly
                def __call__(self, x):
                    return self.step(x)

                def step(self, x):
                    if x.max() > 1:
                        x = x / 2
                    return x

            def main():
                runner = Plain()
                compiled = torch.compile(runner.__call__)
        """,
    })
    assert codes_by_line(root) == {("run.py", 8, "GM101")}


def test_decorator_wrapper_defined_in_tree_is_traced(write_tree):
    root = write_tree({
        "rope.py": """
            import torch
            from torch import nn

            def dynamic_update(forward):
                def wrapper(self, x, position_ids):
                    seq_len = torch.max(position_ids) + 1
                    if seq_len > 8:
                        self.scale = 2.0
                    return forward(self, x, position_ids)
                return wrapper

            class Rotary(nn.Module):
                @dynamic_update
                def forward(self, x, position_ids):
                    return x
        """,
    })
    assert codes_by_line(root) == {("rope.py", 7, "GM101")}


def test_a_helper_the_decorator_wrapper_calls_is_traced(write_tree):
    """transformers' `dynamic_rope_update`: the wrapper calls a nested helper that branches on a
    tensor (Dynamo breaks there: phi3_longrope in detect_accuracy.py)."""
    root = write_tree({
        "rope.py": """
            import torch
            from torch import nn

            def dynamic_rope_update(rope_forward):
                def longrope_frequency_update(self, position_ids):
                    seq_len = torch.max(position_ids) + 1
                    if seq_len > 8:
                        self.scale = 2.0

                def wrapper(self, x, position_ids):
                    longrope_frequency_update(self, position_ids)
                    return rope_forward(self, x, position_ids)
                return wrapper

            class Rotary(nn.Module):
                @dynamic_rope_update
                def forward(self, x, position_ids):
                    return x
        """,
    })
    assert codes_by_line(root) == {("rope.py", 7, "GM101")}


def test_a_decorator_that_only_edits_its_argument_is_not_traced(write_tree):
    """transformers' `@auto_docstring`: its nested function runs once, at import time."""
    root = write_tree({
        "docs.py": """
            import torch
            from torch import nn

            def auto_docstring(obj=None, custom_intro=None):
                def decorate(obj):
                    if torch.tensor(1.0) > 0:
                        obj.__doc__ = (obj.__doc__ or "") + (custom_intro or "")
                    return obj
                return decorate(obj) if obj is not None else decorate

            class Block(nn.Module):
                @auto_docstring
                def forward(self, x):
                    return x
        """,
    })
    assert codes_by_line(root) == set()


def test_a_wrapper_reaches_the_helpers_nested_beside_it(write_tree):
    """transformers' `@dynamic_rope_update`: the wrapper calls a sibling nested helper."""
    root = write_tree({
        "rope.py": """
            import torch
            from torch import nn

            def dynamic_update(forward):
                def refresh(self, position_ids):
                    if torch.max(position_ids) + 1 > 8:
                        self.scale = 2.0
                def wrapper(self, x, position_ids):
                    refresh(self, position_ids)
                    return forward(self, x, position_ids)
                return wrapper

            class Rotary(nn.Module):
                @dynamic_update
                def forward(self, x, position_ids):
                    return x
        """,
    })
    assert codes_by_line(root) == {("rope.py", 6, "GM101")}


def test_configured_entry_point(write_tree):
    root = write_tree({"lib.py": BRANCHY})
    config = Config(entry_points=["lib:helper"])
    assert codes_by_line(root, config=config) == {("lib.py", 4, "GM101")}


def test_compile_guard_hides_eager_only_code(write_tree):
    root = write_tree({
        "m.py": """
            import warnings
            import torch
            from torch import nn

            def is_torchdynamo_compiling():
                return torch.compiler.is_compiling()

            class M(nn.Module):
                def forward(self, x):
                    if not is_torchdynamo_compiling():
                        warnings.warn("eager only")
                    if torch.compiler.is_compiling():
                        return x
                    print("never traced")
                    return x
        """,
    })
    assert codes_by_line(root) == set()


def test_static_conditions_are_not_reported(write_tree):
    root = write_tree({
        "m.py": """
            import copy
            import torch
            from torch import nn

            class M(nn.Module):
                def forward(self, x, mask=None, output_attentions: bool = False, scale=2):
                    if x.shape[0] > 2 and x.dim() == 2 and mask is None:
                        x = x + 1
                    if isinstance(x, torch.Tensor) and self.training:
                        x = x * scale
                    if output_attentions or scale > 1:
                        x = x - 1
                    assert (x > -100).all()
                    start = len(x.shape)
                    shapes = [d for d in x.shape if d > 1]
                    return x, copy.deepcopy(shapes), start
        """,
    })
    assert codes_by_line(root) == set()


def test_helper_parameter_is_tensor_only_when_a_tensor_reaches_it(write_tree):
    root = write_tree({
        "m.py": """
            from torch import nn

            def pick(value, limit):
                if value > limit:
                    return limit
                return value

            class M(nn.Module):
                def forward(self, x):
                    size = pick(x.shape[-1], 8)    # ints: fine
                    return x * pick(x.mean(), 1)    # tensor: breaks inside pick
        """,
    })
    assert codes_by_line(root) == {("m.py", 4, "GM101")}


def test_suppression_comments(write_tree):
    root = write_tree({
        "m.py": """
            import torch
            from torch import nn

            class M(nn.Module):
                def forward(self, x):
                    a = x.sum().item()  # graphmend: ignore[GM301]
                    b = x.max().item()  # graphmend: ignore
                    c = x.min().item()  # graphmend: ignore[GM101]
                    return a + b + c
        """,
    })
    assert codes_by_line(root) == {("m.py", 8, "GM301")}


def test_suppression_comments_hide_findings_the_solver_keeps(write_tree):
    """A finding that stands only once the scope solver resolves what it depends on (what built
    `self.lock`, the class of an operand, a method `super()` reaches) is hidden by its comment too."""
    root = write_tree({
        "m.py": """
            import threading
            import torch
            from torch import nn

            class M(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.lock = threading.Lock()

                def forward(self, x):
                    y = self.step(x)
                    with self.lock:  # graphmend: ignore[GM612]
                        return y * 2

                def step(self, x):
                    with self.lock:
                        return x + 1
        """,
    })
    assert codes_by_line(root) == {("m.py", 16, "GM612")}


def test_a_hidden_break_is_still_a_break_to_the_rest_of_the_program(write_tree):
    """A comment hides its finding only where findings are reported: the solve still sees the
    break. Dynamo (torch 2.13) runs the rest of the frame eagerly after an unsupported `with`, so
    the `.item()` in its body is no break whether or not the `with`'s GM612 is hidden; and building
    `Chatty(verbose=True)` breaks in `__init__` (GM684 at the `with`), hidden `print` or not."""
    root = write_tree({
        "m.py": """
            import numpy as np
            import torch
            from torch import nn

            class M(nn.Module):
                def forward(self, x):
                    with np.errstate(all="raise"):  # graphmend: ignore[GM612]
                        y = x * 2
                        n = y.sum().item()
                    return y + n
        """,
        "chat.py": """
            class Chatty:
                def __init__(self, name, verbose=False):
                    self.name = name
                    if verbose:
                        print("entering", name)  # graphmend: ignore[GM401]

                def __enter__(self):
                    return self

                def __exit__(self, *exc):
                    return False
        """,
        "use.py": """
            import torch
            from chat import Chatty

            @torch.compile
            def f(x):
                with Chatty("loud", verbose=True):
                    y = x + 1
                return y
        """,
    })
    assert codes_by_line(root) == {("use.py", 6, "GM684")}
    # the same findings as hiding them with `--ignore` (after the solve) leaves
    unhidden = {name: (root / name).read_text().replace("  # graphmend: ignore[GM612]", "").replace(
        "  # graphmend: ignore[GM401]", "") for name in ("m.py", "chat.py")}
    for name, text in unhidden.items():
        (root / name).write_text(text)
    assert codes_by_line(root) == {("m.py", 7, "GM612"), ("chat.py", 5, "GM401"), ("use.py", 6, "GM684")}


def test_only_limits_reported_files_but_keeps_scope(write_tree):
    root = write_tree({
        "pkg/__init__.py": "",
        "pkg/helpers.py": BRANCHY,
        "pkg/model.py": """
            from torch import nn
            from pkg.helpers import helper

            class Block(nn.Module):
                def forward(self, x):
                    print(x.shape)
                    return helper(x)
        """,
    })
    only = [str(root / "pkg/helpers.py")]
    result = check([str(root)], only=only)
    assert [(f.path.rsplit("/", 1)[-1], f.code) for f in result.findings] == [("helpers.py", "GM101")]
