"""How kinds reach parameters and attributes across a tree (issue 12): what the single-file
fixtures (tests/fixtures/rules/flow_*.py, checked against Dynamo) cannot show — packages,
re-exports, and the callers that confirm an annotation."""

from graphmend_bot.engine import check


def codes_by_line(root):
    result = check([str(root)], jobs=1)
    assert not result.errors
    return {(f.path.rsplit("/", 1)[-1], f.location.row, f.code) for f in result.findings}


SCHEDULER = """
    import torch

    def step(sample: torch.Tensor, timestep: int) -> torch.Tensor:
        if timestep > 0:
            return sample * 2
        return sample
"""


def test_a_tensor_passed_to_an_int_parameter_makes_it_a_tensor(write_tree):
    root = write_tree({
        "sched.py": SCHEDULER,
        "model.py": """
            import torch
            from torch import nn
            from sched import step

            class Sampler(nn.Module):
                def forward(self, x, timesteps):
                    return step(x, timesteps[0])
        """,
    })
    assert codes_by_line(root) == {("sched.py", 4, "GM101")}


def test_a_caller_passing_a_python_value_confirms_the_annotation(write_tree):
    # transformers' _ignore_causal_mask_sdpa(past_key_values_length: int): dozens of callers
    # pass ints, one passes cache_position[0]; the annotation stands for all of them.
    root = write_tree({
        "sched.py": SCHEDULER,
        "model.py": """
            import torch
            from torch import nn
            from sched import step

            class Sampler(nn.Module):
                def forward(self, x, timesteps):
                    x = step(x, 3)
                    return step(x, timesteps[0])
        """,
    })
    assert codes_by_line(root) == set()


def test_containers_annotated_without_tensors_keep_their_annotation(write_tree):
    root = write_tree({
        "m.py": """
            from typing import Any, Dict, Sequence
            import torch
            from torch import nn

            def scaled(x, sizes: Sequence[float], flags: Dict[str, Any]):
                if sizes[0] > 1 or flags["mode"] == "fast":
                    return x * 2
                return x

            class M(nn.Module):
                def forward(self, x):
                    return scaled(x, (x.sum(),), {"mode": x.max()})
        """,
    })
    assert codes_by_line(root) == set()


def test_a_method_returning_its_tensor_attribute_returns_a_tensor_at_every_call(write_tree):
    # `c = self.count()` where `count` returns `self.total * 2`, a buffer: the result depends on no
    # parameter, only on the callee's attribute (measured: GB0170 at both `if`s). A Python number
    # held in an attribute (`self.limit = 4`) stays one.
    root = write_tree({
        "m.py": """
            import torch
            from torch import nn

            class M(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.total = nn.Buffer(torch.tensor(3), persistent=False)
                    self.limit = 4

                def count(self):
                    return self.total * 2

                def pad(self, x):
                    return (x.shape[-1] - self.total) % 2

                def bound(self):
                    return self.limit * 2

                def forward(self, x):
                    if self.count() > 1:
                        x = x + 1
                    if self.pad(x) > 0:
                        x = x + 1
                    if self.bound() > 1:
                        x = x + 1
                    return x
        """,
    })
    assert codes_by_line(root) == {("m.py", 20, "GM101"), ("m.py", 22, "GM101")}


def test_classes_reexported_by_star_imports_resolve(write_tree):
    # kornia: `self._param_generator = rg.ColorJiggleGenerator(...)`, where the package's
    # __init__ re-exports its submodules with `from ._2d import *`.
    root = write_tree({
        "aug/__init__.py": "",
        "aug/generators/__init__.py": "from aug.generators.jiggle import *\n",
        "aug/generators/jiggle.py": """
            import torch
            from torch import nn

            class JiggleGenerator(nn.Module):
                def forward(self, batch_size):
                    return {"order": torch.randperm(4)}
        """,
        "aug/base.py": """
            from torch import nn

            class AugmentationBase(nn.Module):
                def forward(self, x):
                    params = self._param_generator(x.shape[0])
                    return self.apply_transform(x, params)
        """,
        "aug/jiggle.py": """
            from aug import generators as rg
            from aug.base import AugmentationBase

            class ColorJiggle(AugmentationBase):
                def __init__(self):
                    super().__init__()
                    self._param_generator = rg.JiggleGenerator()

                def apply_transform(self, x, params):
                    return x * len(params["order"].tolist())
        """,
        "model.py": """
            from torch import nn
            from aug.jiggle import ColorJiggle

            class Pipeline(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.augment = ColorJiggle()

                def forward(self, x):
                    return self.augment(x)
        """,
    })
    assert codes_by_line(root) == {("jiggle.py", 10, "GM303")}


ENUMS = """
    from enum import Enum

    class StrEnum(str, Enum):
        pass

    class BlendMode(StrEnum):
        CONSTANT = "constant"

    class Colour(Enum):
        RED = "red"
"""

LOOKUP = """
    def look_up_option(opt_str, supported):
        if isinstance(opt_str, str):
            opt_str = opt_str.strip()
        return opt_str
"""


def test_a_str_enum_member_reaches_a_str_method_across_modules(write_tree):
    # monai: sliding_window_inference(mode=BlendMode.CONSTANT) -> compute_importance_map(mode=mode)
    # -> look_up_option(mode, BlendMode) -> opt_str.strip(); the enum base lives in a third module.
    root = write_tree({
        "enums.py": ENUMS,
        "options.py": LOOKUP,
        "model.py": """
            import torch
            from torch import nn
            from enums import BlendMode
            from options import look_up_option

            def importance(x, mode=BlendMode.CONSTANT):
                mode = look_up_option(mode, BlendMode)
                return x

            class Inferer(nn.Module):
                def forward(self, x):
                    return importance(x * 2)
        """,
    })
    assert codes_by_line(root) == {("options.py", 3, "GM604")}


def test_plain_strings_and_members_of_other_enums_do_not_reach_it(write_tree):
    # A plain Enum member has no str methods to call; a string literal traces.
    root = write_tree({
        "enums.py": ENUMS,
        "options.py": LOOKUP,
        "model.py": """
            import torch
            from torch import nn
            from enums import Colour
            from options import look_up_option

            class Inferer(nn.Module):
                def forward(self, x, mode=Colour.RED):
                    look_up_option(" constant ", None)
                    look_up_option(mode, Colour)
                    return x * 2
        """,
    })
    assert codes_by_line(root) == set()
