"""GM647 held-generator-method: its documentation, in one place with how it is detected.

Measured on torch 2.13 (tests/test_held_generator_methods.py): Dynamo breaks with GB7650
("torch.Generator method") at a stateful method of any `torch.Generator` object, whatever built it
(`variables/user_defined.py` tests `isinstance(value, torch._C.Generator)` against
`trace_rules._GENERATOR_METHODS_THAT_GRAPH_BREAK`): one `__init__` built and held in `self.NAME`
(`self.gen = torch.Generator()`, or `.manual_seed(s)` on it), one a module global holds
(`GEN = torch.Generator()`), one a parameter annotated `torch.Generator` receives (`Optional` or
`| None` too), and `torch.random.default_generator`, the default generator's other public name.
A generator built in the traced frame is GM604's (it breaks at its construction as well), as is
`torch.default_generator.manual_seed(s)` by that name. Reading `g.device` and passing a generator
that is no input (`torch.rand(3, generator=g)` on a local) trace; a held one passed is GM646's.
A held `self.NAME` is judged by every value `__init__` stores in it (analysis/held_contexts.py):
one a caller passes (`self.gen = gen`) is not reported; nor is an unannotated parameter.
"""

from __future__ import annotations

import ast

from graphmend_bot.rules.detect import Checker, Detection
from graphmend_bot.rules.gm646_held_generator_argument import HELD_GENERATORS
from graphmend_bot.rules.rule import Rule
from graphmend_bot.vocabulary.kind import TENSOR

GENERATOR_METHOD = "GB7650"  # "torch.Generator method"
# trace_rules._GENERATOR_METHODS_THAT_GRAPH_BREAK of torch 2.13 (a test keeps them in step)
GENERATOR_METHODS = (
    "clone_state", "get_offset", "get_state", "graphsafe_get_state", "graphsafe_set_state",
    "initial_seed", "manual_seed", "seed", "set_offset", "set_state",
)
_GENERATOR_CLASSES = frozenset({"torch.Generator", "torch._C.Generator"})
# The default generator by a name GM604's table does not list (it lists `torch.default_generator`).
_DEFAULT_GENERATOR_ALIASES = frozenset({"torch.random.default_generator"})


def _annotated_generator(checker: Checker, receiver: ast.expr) -> bool:
    """`receiver` is a parameter, not bound again so far, annotated `torch.Generator` (or Optional)."""
    if not isinstance(receiver, ast.Name):
        return False
    annotation = checker.parameter_annotation(receiver.id)
    if isinstance(annotation, ast.Constant) and isinstance(annotation.value, str):  # `"torch.Generator | None"`
        try:
            annotation = ast.parse(annotation.value, mode="eval").body
        except SyntaxError:
            return False
    if annotation is None:
        return False
    if isinstance(annotation, ast.Subscript) and (checker.resolve(annotation.value) or "").endswith("Optional"):
        annotation = annotation.slice
    elif isinstance(annotation, ast.BinOp) and isinstance(annotation.op, ast.BitOr):
        parts = (annotation.left, annotation.right)
        others = [part for part in parts if not (isinstance(part, ast.Constant) and part.value is None)]
        if len(others) != 1:
            return False
        annotation = others[0]
    return checker.resolve(annotation) in _GENERATOR_CLASSES


def _generator_method(rule: Rule, checker: Checker, node: ast.Attribute) -> None:
    receiver = node.value
    message = (f"`torch.Generator.{node.attr}()` on a generator {{where}}: a stateful RNG operation "
               "Dynamo cannot trace, so it breaks the graph")
    if _annotated_generator(checker, receiver):
        checker.report(rule, node, message.format(where="received as a parameter"), TENSOR, gb_id=GENERATOR_METHOD)
    elif checker.resolve(receiver) in _DEFAULT_GENERATOR_ALIASES:
        checker.report(rule, node, message.format(where="that is torch's default one"), TENSOR, gb_id=GENERATOR_METHOD)
    elif isinstance(receiver, (ast.Name, ast.Attribute)):  # `self.gen`, `GEN`: judged by their builders
        where = "built in `__init__`" if isinstance(receiver, ast.Attribute) else "built at module level"
        checker.report_if_held_context_refused(rule, receiver, message.format(where=where))


RULE = Rule(
    code="GM647",
    name="held-generator-method",
    family="not traceable",
    gb_id=GENERATOR_METHOD,
    summary=(
        "Flags the stateful methods of a `torch.Generator` (`manual_seed`, `seed`, `initial_seed`, "
        "`get_state`, `set_state`, `clone_state`, `get_offset`, `set_offset`, `graphsafe_get_state`, "
        "`graphsafe_set_state`) called in traced code on a generator held from outside the compiled "
        "region: `self.gen` where every write of `__init__` builds it (`torch.Generator(...)`, "
        "`.manual_seed(s)`), a module global built so, a parameter annotated `torch.Generator` "
        "(`Optional` too), or `torch.random.default_generator`."
    ),
    why=(
        "TorchDynamo treats a generator's seeding and state methods as stateful RNG operations it "
        "cannot record soundly in the graph (GB7650, \"torch.Generator method\", measured on torch "
        "2.13): wherever the generator came from, the graph breaks at the call, which runs eagerly."
    ),
    example=(
        "class Noise(nn.Module):\n"
        "    def __init__(self):\n"
        "        super().__init__()\n"
        "        self.gen = torch.Generator()\n"
        "\n"
        "    def forward(self, x):\n"
        "        self.gen.manual_seed(0)\n"
        "        return x + 1"
    ),
    use_instead=(
        "class Noise(nn.Module):\n"
        "    def __init__(self):\n"
        "        super().__init__()\n"
        "        self.gen = torch.Generator()\n"
        "\n"
        "    def forward(self, x):\n"
        "        return x + 1  # seed `model.gen` before calling the compiled model"
    ),
    fix_safety=(
        "No automatic fix: the generator's state lives outside the graph. Seed it or read its state "
        "before the compiled call, or draw the random numbers there and pass them in."
    ),
    detection=Detection(
        attribute_reads=dict.fromkeys(GENERATOR_METHODS, _generator_method),
        held_context=HELD_GENERATORS.__contains__,
    ),
    advice="Seed or read the generator of `{code}` outside the compiled region: Dynamo cannot trace its state methods",
)
