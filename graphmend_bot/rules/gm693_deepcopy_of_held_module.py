"""GM693 deepcopy-of-held-module: its documentation, in one place with how it is detected.

Measured on torch 2.13 (tests/test_module_copies.py, tests/coverage_probes/gb4198_deepcopy_of_held_module.py):
Dynamo inlines `copy.deepcopy` (the `copy` module is polyfilled) and refuses it as soon as it
reaches a tensor (GB4198 "Attempted to copy.deepcopy a tensor"): an nn.Module held in `self` by
`__init__` or in a module global holds its parameters and buffers, so deepcopy of it breaks at the
call; one with none (`nn.ReLU()`) breaks at the same line all the same, its `__setstate__` being a
function Dynamo refuses to inline (GB0008; the finding carries GB4198, which class holds tensors
being unknown here). A deepcopy of plain Python data (a config object of the tree) traces,
and of a tensor GM604 reports. Which class built the object is known only to the scope solver
(analysis/held_contexts.py, which judges GM612's held context managers the same way): a finding
stands when every builder found is an nn.Module class, of torch (`torch.nn.Linear`) or of the tree,
and no `__init__` write may leave another value (`nn.Linear(...) if ema else None`: a deepcopy of None
traces; ClassSummary.partly_built).
"""

from __future__ import annotations

from graphmend_bot.rules.detect import Detection
from graphmend_bot.rules.rule import Rule

# torch.nn classes that build tensors, not modules: a deepcopy of one is GM604's (a tensor's).
_TENSORS = frozenset({"Parameter", "Buffer", "UninitializedParameter", "UninitializedBuffer"})


def module_builder(constructor: str) -> bool:
    """A torch.nn class (`torch.nn.Linear`, `torch.nn.Sequential`), by its qualified name: each holds
    tensors or refuses its `__setstate__`. Classes of the tree are judged by the solver (is_module_class)."""
    package, dot, leaf = constructor.rpartition(".")
    return (
        bool(dot) and leaf[:1].isupper() and leaf not in _TENSORS
        and (package == "torch.nn" or package.startswith("torch.nn.modules"))
    )


RULE = Rule(
    code="GM693",
    name="deepcopy-of-held-module",
    family="not traceable",
    gb_id="GB4198",
    summary=(
        "Flags `copy.deepcopy(self.NAME)` and `copy.deepcopy(NAME)` in traced code on an nn.Module built "
        "outside the compiled region, in `__init__` or at module level (`self.ema = nn.Linear(...)`, a "
        "module class of the tree)."
    ),
    why=(
        "TorchDynamo traces `copy.deepcopy` through its Python code and refuses to copy a tensor "
        '(GB4198, "Attempted to copy.deepcopy a tensor", measured on torch 2.13): a module holds its '
        "parameters and buffers, so the copy breaks the graph and runs eagerly; a module without any "
        "breaks on its `__setstate__` (GB0008). A deepcopy of plain Python data traces."
    ),
    example=(
        "import copy\n\n"
        "class M(nn.Module):\n"
        "    def __init__(self):\n"
        "        super().__init__()\n"
        "        self.head = nn.Linear(8, 8)\n\n"
        "    def forward(self, x):\n"
        "        head = copy.deepcopy(self.head)\n"
        "        return head(x)"
    ),
    use_instead=(
        "import copy\n\n"
        "class M(nn.Module):\n"
        "    def __init__(self):\n"
        "        super().__init__()\n"
        "        self.head = nn.Linear(8, 8)\n"
        "        self.head_copy = copy.deepcopy(self.head)  # copied once, outside the compiled code\n\n"
        "    def forward(self, x):\n"
        "        return self.head_copy(x)"
    ),
    fix_safety=(
        "No automatic fix: where the copy is made decides which weights it holds. Copy the module "
        "before the compiled call (in `__init__`, or where its weights are meant to be snapshotted) "
        "or use `torch.func.functional_call` with the parameters to use."
    ),
    detection=Detection(held_context=module_builder),  # asked through GM604's `copy.deepcopy` hook
    advice=(
        "Dynamo cannot deepcopy a module (its tensors) in `{code}`: make the copy outside the compiled "
        "code and hold it"
    ),
)
