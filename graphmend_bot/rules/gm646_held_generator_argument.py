"""GM646 held-generator-argument: its documentation, in one place with how it is detected.

Measured on torch 2.13 (tests/fixtures/rules/GM646_held_generator_argument.py): a torch random
function given a `torch.Generator` built outside the compiled region, held in `self.NAME` by
`__init__` (`self.gen = torch.Generator().manual_seed(0)`) or in a module global
(`GEN = torch.Generator()`), breaks at the call with GB0055 ("Failed to convert args/kwargs to
proxy"): Dynamo holds the generator as a plain object it cannot pass to the operation
(`torch.randn(3, generator=self.gen)`, `torch.randperm`, `torch.rand`, `torch.multinomial`).
`generator=None` traces. A generator built in the traced frame is GM604's (it breaks at its
construction too). Judged by what built the attribute, in every write of `__init__`
(analysis/held_contexts.py, as GM612 judges `with self.lock:`): a parameter or an attribute some
other code may set is not reported.
"""

from __future__ import annotations

import ast

from graphmend_bot.rules.detect import Checker, Detection
from graphmend_bot.rules.rule import Rule

# The builders of a generator: the constructor, and its seeding method, which returns the generator.
HELD_GENERATORS = frozenset({"torch.Generator", "torch.Generator.manual_seed", "torch._C.Generator"})


def _held_generator(rule: Rule, checker: Checker, call: ast.Call, name: str) -> None:
    value = next(keyword.value for keyword in call.keywords if keyword.arg == "generator")

    if isinstance(value, ast.Name) or (
            isinstance(value, ast.Attribute) and isinstance(value.value, ast.Name) and value.value.id == "self"):
        where = "in `__init__`" if isinstance(value, ast.Attribute) else "at module level"
        checker.report_if_held_context_refused(
            rule, value, f"`{name}()` with a `torch.Generator` built {where}: Dynamo cannot pass a generator "
            "from outside the compiled region to the operation and breaks the graph",
        )


RULE = Rule(
    code="GM646",
    name="held-generator-argument",
    family="not traceable",
    gb_id="GB0055",
    summary=(
        "Flags torch random functions in traced code given a `torch.Generator` held from outside the "
        "compiled region: `generator=self.gen` where `__init__` built it (`torch.Generator(...)`, "
        "`.manual_seed(s)`), or `generator=GEN` built at module level."
    ),
    why=(
        "Dynamo holds a generator from outside the compiled region as an opaque object and cannot "
        "pass it to the operation it records (\"Failed to convert args/kwargs to proxy\", GB0055, "
        "measured on torch 2.13): the graph breaks at the call, which runs eagerly."
    ),
    example=(
        "class Noise(nn.Module):\n"
        "    def __init__(self):\n"
        "        super().__init__()\n"
        "        self.gen = torch.Generator().manual_seed(0)\n"
        "\n"
        "    def forward(self, x):\n"
        "        return x + torch.randn(x.shape, generator=self.gen)"
    ),
    use_instead=(
        "class Noise(nn.Module):\n"
        "    def forward(self, x, noise):\n"
        "        return x + noise  # draw `noise` with the generator outside the compiled region"
    ),
    fix_safety=(
        "No automatic fix: dropping the generator changes the random stream; draw the numbers "
        "outside the compiled region, or seed the global generator (`torch.manual_seed`) if the "
        "program allows."
    ),
    detection=Detection(generator_keyword=_held_generator, held_context=HELD_GENERATORS.__contains__),
    advice="Draw `{code}`'s random numbers outside the compiled region: Dynamo cannot pass it a held generator",
)
