"""A package's public API, the roots of the library scope, and when that scope is chosen by itself.

Users compile a library's functions and methods (`torch.compile(odeint)`, a compiled training
step that calls `kornia.filters.gaussian_blur2d`), not only its nn.Modules. In the library scope
every public callable is an entry point, as if it were listed in `entry-points`: its parameters
without annotation or default are tensors, unless a caller in the tree passes them (then the
callers decide, as for a forward) or they are named as counts (`num_samples`: an int by
convention, parameter_annotations.is_count_name) or typed as Python scalars by the docstring
(`pad_left : int`, documented_types.py).

Public, by Python's own conventions (PEP 8: "Public and internal interfaces"):
- a module is public when it lies in a package (a folder with `__init__.py`; a loose script is
  nobody's import) and no part of its dotted name starts with `_` or names tests (`tests`,
  `test`, `test_*`, `*_test`, `conftest`);
- its exported names are its `__all__` when it spells one with string literals; else, for a
  package's `__init__`, every public name it defines or imports (its re-exports), and for any
  other module every public name it defines;
- an exported name is followed through imports and `from x import *` to where it is defined,
  so `from ._impl import odeint` in a public `__init__` exports the function of a private module;
- an exported function is a root; an exported class gives its public methods, its in-tree bases'
  included, and `__call__` (calling an instance); a torch.distributions Transform's also its `_call`
  and `_inverse`, which torch's `__call__` and `inv` run (`t(x)`, `t.inv(y)` in a flow's
  `log_prob`: private names, public behaviour). Other dunders (`__init__`, `__repr__`) are
  left out: constructing and printing are not what users compile. So are properties: a getter
  is no callable users compile; it is traced where traced code reads it (Program._property_getters).
Private helpers are traced when public code calls them, like any callee. A builder is no root:
a public callable that creates parameters, itself or through what it calls (a torch.nn layer or
`nn.Parameter`, in an nn.Module's constructor too: `conv_bn(c)`, `Sam.from_name(name)`), makes the
model users then compile; it runs once, eagerly (and compiled, it would break on every call).

The automatic choice (`scope: auto`, the default), for a tree that holds a package:
- the model scope where the tree names its roots (knows_its_roots): it compiles something (a
  `@torch.compile`, a `torch.compile(...)` or `.compile()` call) outside its tests and exports
  nn.Modules (a model zoo: users compile its models), or compiles only what it is handed (a
  trainer's `torch.compile(model)`); or, in a package that exports no nn.Module, `entry-points`
  are configured;
- else the library scope where no public class is an nn.Module whose `forward` Dynamo would
  trace and nothing is compiled (torchdiffeq: its only modules are private wrappers around the
  user's vector field);
- else, for a package that exports nn.Modules or compiles kernels of its own (heavyball, which
  exports optimizers), the public-api scope: the forwards and what is compiled, and every public
  callable, as in the library scope. Users compile kornia's functional API beside its modules, a
  flow's `inverse`, an optimizer's `step`, a metric's `update` and `compute`, an agent's `act`.
  Rooting only the callables whose signatures name a tensor (signature_tensor_roots, below) left out
  those that take objects or nothing (`compute(self)` over its states): on the wild corpus's test
  half that scope found 164 of 274 break statements and every public callable 179, with the same 62
  false positives on executed lines (the dev half, tuned on the narrower scope: 184 and 183, with
  one false positive more, a `dictionary` documented type since read). What the signatures say still
  decides one thing: what these callables construct is built in compiled code only where a root
  whose signature names tensors reaches it (Program.surely_compiled); a public `make_private(opt)`
  wraps an optimizer at setup, and its `step` meets the object from outside.
  Signature roots take or return a tensor (a parameter or the result annotated as one, or as a
  container of them, an unannotated parameter the body uses as one or the docstring documents
  as one (tensor_uses.py), a method
  of no other parameter than its object annotated to return one, a loss over a model's layers
  (model_reductions.py: `get_kl_loss(m)`), a result that is one whatever
  the arguments, or what a model's method returns from its submodules or itself, or a tensor subclass of the
  tree it builds: `return LieTensor(data)`), and the methods torch's base classes define on
  tensors though their signatures name none (keeps_torch_contract): every public method of a
  torch.Tensor subclass of the tree (its object is a tensor), the `step` and `zero_grad` of its
  torch.optim optimizers (they update the parameters' tensors; a compiled training step calls
  both), the `sample`, `rsample`, `log_prob`, `entropy`,
  `cdf`, `icdf` of its torch.distributions Distributions and a Transform's
  `log_abs_det_jacobian`, `_call` and `_inverse`.
A lone file or a folder of scripts keeps the model scope, unless the file is a single-module
library of functions: its top level only defines, so users import it, and its public callables
on tensors are roots (lone_modules.py).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING

from graphmend_bot.analysis.forwarded_tensors import forwarding_tensors
from graphmend_bot.analysis.lone_modules import lone_library
from graphmend_bot.analysis.value_class import is_property

if TYPE_CHECKING:
    from graphmend_bot.analysis.model import FunctionSummary, ModuleSummary
    from graphmend_bot.analysis.scope import FunctionId, Program

SCOPES = ("auto", "model", "library")
TENSOR_API = "tensor-api"  # what `auto` settles to for a lone file of functions on tensors (no config value)
PUBLIC_API = "public-api"  # what `auto` settles to for a package exporting nn.Modules (no config value)
PARAMETER_CREATION = "GB0264"  # Dynamo's id for an nn.Parameter built in traced code (rule GM607)
# torch.optim's submodules whose classes are no optimizers (schedulers, weight averaging)
_OPTIMIZER_HELPERS = frozenset({"lr_scheduler", "swa_utils"})
_TEST_PARTS = frozenset({"tests", "test", "conftest"})
# torch.Tensor as a class's base names it (nn.Parameter is one too).
TENSOR_BASES = frozenset(
    {"torch.Tensor", "torch._tensor.Tensor", "torch.nn.Parameter", "torch.nn.parameter.Parameter"}
)
# What torch.distributions' Distribution and Transform define on tensors (not `expand`: a distribution).
_DISTRIBUTION_METHODS = frozenset({
    "sample", "rsample", "sample_n", "log_prob", "cdf", "icdf", "entropy", "perplexity", "enumerate_support",
})  # fmt: skip
_TRANSFORM_METHODS = frozenset({"log_abs_det_jacobian", "__call__"})
# What torch's Transform runs of a subclass: `t(x)` its `_call`, `t.inv(y)` (TransformedDistribution's
# log_prob) its `_inverse`; private by name, they are the subclass's side of the public contract.
_TRANSFORM_IMPLEMENTATIONS = frozenset({"_call", "_inverse"})


def is_public_module(module: str, is_package: bool) -> bool:
    """A module of a package whose dotted name has no private or test part."""
    parts = module.split(".")
    if len(parts) == 1 and not is_package:
        return False  # a loose module: a script, not part of a package
    return not any(part.startswith("_") for part in parts) and not is_test_module(module)


def is_test_module(module: str) -> bool:
    """A module whose dotted name has a test part (`tests`, `test_ops`, `conftest`, `ops_test`)."""
    return any(part in _TEST_PARTS or part.startswith("test_") or part.endswith("_test") for part in module.split("."))


def is_package_module(summary: ModuleSummary) -> bool:
    return summary.path.replace("\\", "/").rsplit("/", 1)[-1] == "__init__.py"


def _public(name: str) -> bool:
    return not name.startswith("_")


def exported_names(summary: ModuleSummary) -> Iterator[str]:
    """What `from module import *` and a reader of its docs would take as its API."""
    if summary.exports is not None:
        yield from summary.exports
        return
    defined = (name for name in (*summary.functions, *summary.classes) if "." not in name)
    if is_package_module(summary):
        yield from (name for name in dict.fromkeys([*defined, *summary.imports]) if _public(name))
    else:
        yield from (name for name in defined if _public(name))


def signature_tensor_roots(program: Program) -> set[FunctionId]:
    """The public callables that take or return a tensor, and its optimizers' `step` (module
    docstring): those users surely compile, whose constructions are compiled code
    (Program.surely_compiled)."""
    roots = program.library_roots()
    taking = {
        fid for fid in roots if takes_tensor(program.function(fid)) or keeps_torch_contract(program, fid)
    }
    taking |= forwarding_tensors(program, roots - taking)
    return taking | (returning_tensors(program, roots - taking) & roots)


def keeps_torch_contract(program: Program, fid: FunctionId) -> bool:
    """A method that a torch base class of its class defines on tensors, though its signature
    names none: any public method of a torch.Tensor subclass (its object is a tensor: pypose's
    `LieTensor.cumops(self, dim)`), the `step` of a torch.optim optimizer (it updates the
    parameters' tensors: `step(self, closure=None)`, what PyTorch's recipe compiles, not an LR
    scheduler's, and its `zero_grad`, which a compiled training step calls beside it), and the sampling and density methods of a torch.distributions Distribution
    (`sample(sample_shape=torch.Size())`, `log_prob(value)`, `entropy()`: tensors in and out by
    torch's contract) or Transform (`log_abs_det_jacobian(x, y)`)."""
    function = program.function(fid)
    if function.class_qualname is None:
        return False
    name = fid[1].rsplit(".", 1)[-1]
    bases = _external_bases(program, fid[0], function.class_qualname)
    return (
        any(base in TENSOR_BASES for base in bases)
        or (name in _OPTIMIZER_METHODS and any(_is_torch_optimizer(base) for base in bases))
        or (name in _DISTRIBUTION_METHODS and any(_is_torch_distribution(base) for base in bases))
        or (name in _TRANSFORM_METHODS | _TRANSFORM_IMPLEMENTATIONS and any(_is_torch_transform(base) for base in bases))
    )


def is_tensor_class(program: Program, module: str, class_qualname: str) -> bool:
    """A class of the tree that subclasses torch.Tensor (`class LieTensor(torch.Tensor)`): what
    constructing it returns is a tensor."""
    return any(base in TENSOR_BASES for base in _external_bases(program, module, class_qualname))


def _external_bases(program: Program, module: str, class_qualname: str) -> set[str]:
    """The bases of the class and of its in-tree bases, as the imports spell them (`torch.Tensor`)."""
    return {
        base
        for mod, cls in program.class_and_bases(module, class_qualname)
        for base in program.modules[mod].classes[cls].bases
    }


def _is_torch_distribution(base: str) -> bool:
    """`torch.distributions.Distribution`, `torch.distributions.Normal`, ...: not a transform or a
    constraint, which the same package holds."""
    parts = base.split(".")
    return (
        parts[:2] == ["torch", "distributions"]
        and len(parts) > 2
        and not {"transforms", "constraints", "constraint_registry"}.intersection(parts)
        and not _is_torch_transform(base)
        and parts[-1][:1].isupper()
    )


def _is_torch_transform(base: str) -> bool:
    parts = base.split(".")
    return parts[:2] == ["torch", "distributions"] and parts[-1].endswith("Transform")


_OPTIMIZER_METHODS = frozenset({"step", "zero_grad"})
# What torch.nn.Module defines that returns no output of the module (`self.state_dict()`,
# `self.named_children()`, `self.to(device)`): calling it is not calling a submodule.
_MODULE_API = frozenset({
    "add_module", "apply", "bfloat16", "buffers", "children", "compile", "cpu", "cuda", "double", "eval",
    "extra_repr", "float", "get_buffer", "get_extra_state", "get_parameter", "get_submodule", "half",
    "load_state_dict", "modules", "named_buffers", "named_children", "named_modules", "named_parameters",
    "parameters", "register_buffer", "register_module", "register_parameter", "requires_grad_",
    "state_dict", "to", "to_empty", "train", "type", "zero_grad",
})  # fmt: skip


def _is_torch_optimizer(base: str) -> bool:
    """`torch.optim.Optimizer`, `torch.optim.adam.Adam`, ... as the imports resolve them; not the
    schedulers and averaging helpers torch.optim's submodules also hold."""
    parts = base.split(".")
    return parts[:2] == ["torch", "optim"] and len(parts) > 2 and not _OPTIMIZER_HELPERS.intersection(parts)


def takes_tensor(function: FunctionSummary) -> bool:
    """A parameter annotated as a tensor (`x: torch.Tensor`, `mask: Optional[Tensor]`), or a
    signature that names one elsewhere: a container of tensors taken (`xs: List[Tensor]`, `*xs: Tensor`) or a
    tensor returned (`-> Tensor`, `-> tuple[Tensor, dict]`), as the maintainer annotated it
    (skrl's mixins' `act(self, inputs: dict[str, Any]) -> tuple[torch.Tensor, ...]`)."""
    return function.tensor_signature or any(function.param_seeds.get(name) for name in function.params)


def returning_tensors(program: Program, starts: Iterable[FunctionId]) -> set[FunctionId]:
    """Those of `starts`, and of the functions whose results they return, that return a tensor
    whatever their arguments: `return torch.cat(...)`, a tuple holding one, or what a function of
    the tree that does so returns (`return apply_rotary_emb(...)`). An operation on tensors, which
    a user's compiled step may call; a tokenizer, a loader or a configuration class returns none.
    The least fixpoint over the returned calls, so a cycle of calls proves nothing and the answer
    does not depend on the order the functions are met in."""
    returned: dict[FunctionId, list[FunctionId]] = {}
    found: set[FunctionId] = set()
    pending = list(starts)
    while pending:
        fid = pending.pop()
        if fid in returned:
            continue
        function = program.function(fid)
        results = [function.returns, *(function.return_elements or ())]
        if any(
            kind.always
            or any(
                _calls_submodule(program, fid, call.site) or _builds_tensor(program, fid, call.site)
                for call in kind.calls
            )
            for kind in results
        ):
            found.add(fid)
        returned[fid] = [callee for kind in results for call in kind.calls
                         for callee in program.call_targets_at(fid, call.site)]
        pending.extend(returned[fid])
    grown = True
    while grown:
        grown = False
        for fid, callees in returned.items():
            if fid not in found and any(callee in found for callee in callees):
                found.add(fid)
                grown = True
    return found


def _calls_submodule(program: Program, fid: FunctionId, site: int) -> bool:
    """Whether call site `site` of the nn.Module method `fid` calls one of its submodules
    (`self.q0(n)`, `flow(z)` for `flow in self.flows`) or the module itself (`self(*args,
    inference=True)`, pytorch_tcn's `BaseTCN.inference`): a module's output, which a method of a
    model returning it hands on (normflows' `NormalizingFlow.sample`), is a tensor."""
    function = program.function(fid)
    ref = function.calls[site].ref
    if function.class_qualname is not None and ref == "name:self":
        return program.is_module_class(fid[0], function.class_qualname)
    if function.class_qualname is None or not ref.startswith("self:"):
        return False
    name = ref[len("self:"):].removesuffix("[]")
    return (name not in _MODULE_API and program.is_module_class(fid[0], function.class_qualname)
            and program.class_method(fid[0], function.class_qualname, name) is None)


def _builds_tensor(program: Program, fid: FunctionId, site: int) -> bool:
    """Whether call site `site` of `fid` constructs a tensor subclass of the tree (`return
    LieTensor(data, ltype=SO3_type)`): its result is a tensor."""
    ref = program.function(fid).calls[site].ref
    kind, _, dotted = ref.partition(":")
    if kind not in ("name", "dotted"):
        return False
    found = program.resolve_class(fid[0], dotted)
    return found is not None and is_tensor_class(program, *found)


def library_roots(program: Program) -> set[FunctionId]:
    """The library scope's roots: the public callables that build no nn.Module (module docstring)."""
    public = program.public_callables()
    return public - _builders(program, public)


def public_callables(program: Program) -> set[FunctionId]:
    """Every public callable of the checked packages (module docstring)."""
    roots: set[FunctionId] = set()
    lone = lone_library(program)
    for module, summary in program.modules.items():
        if module in program.dependency_modules or not (
                module == lone or is_public_module(module, is_package_module(summary))):
            continue
        for name in exported_names(summary):
            found = program.resolve_name(module, name)
            if found is None or found[1] in program.dependency_modules:
                continue
            what, mod, qualname = found
            if what == "function":
                roots.add((mod, qualname))
            else:
                roots.update(_public_methods(program, mod, qualname))
    return roots


def _builders(program: Program, callables: set[FunctionId]) -> set[FunctionId]:
    """Those of `callables` that build models (`conv_bn(c)`, `Sam.from_name(name)`): they make the
    model users then compile, and run once, eagerly. A callable builds when its code, or code its
    calls reach (an nn.Module's constructor included), creates parameters: a torch.nn layer or
    `nn.Parameter`, graph-break GB0264, which breaks every compiled call. Building a module without
    parameters is not building a model: torchsde's `sdeint` wraps the user's SDE in its
    `ForwardSDE` module and runs it, all of it compiled."""
    callers: dict[FunctionId, list[FunctionId]] = {}
    seen = set(callables)
    queue = deque(callables)
    building: list[FunctionId] = []
    while queue:
        fid = queue.popleft()
        if any(draft.gb_id == PARAMETER_CREATION for draft in program.function(fid).drafts):
            building.append(fid)
            continue  # what it calls adds nothing: it builds already
        for callee in program.call_targets(fid):
            callers.setdefault(callee, []).append(fid)
            if callee not in seen:
                seen.add(callee)
                queue.append(callee)
    builds = set(building)
    while building:
        for caller in callers.get(building.pop(), ()):
            if caller not in builds:
                builds.add(caller)
                building.append(caller)
    return builds & callables


def _public_methods(program: Program, module: str, class_qualname: str) -> Iterator[FunctionId]:
    transform = any(_is_torch_transform(base) for base in _external_bases(program, module, class_qualname))
    names = {
        name
        for mod, cls in program.class_and_bases(module, class_qualname)
        for name in program.modules[mod].classes[cls].methods
        if _public(name) or name == "__call__" or (transform and name in _TRANSFORM_IMPLEMENTATIONS)
    }
    for name in sorted(names):
        method = program.class_method(module, class_qualname, name)
        if method is not None and not _is_accessor(program.function(method).decorators):
            yield method


def _is_accessor(decorators: tuple[str, ...]) -> bool:
    """A property's getter, setter or deleter: run by attribute access, not by a call."""
    return is_property(decorators) or any(d.endswith((".setter", ".deleter")) for d in decorators)


def knows_its_roots(program: Program) -> bool:
    """Whether what the tree compiles itself says where traced code starts: then `auto` keeps the
    model scope, whose roots those are. So it does for a model zoo that compiles code of its own
    (transformers' `@torch.compile` integrations: users compile its models, whose forwards are
    roots already), for a package that declares its entry points, and for a trainer that compiles
    nothing of its own and exports no nn.Module (`self.model = torch.compile(model)` compiles the
    model it is handed: the rest of the package runs eagerly). A package that exports no nn.Module and
    compiles functions of its own does not: those are its kernels (heavyball's `_compilable_*`
    through its compile helpers), while its users compile its public API (`torch.compile(opt.step)`),
    so it gets the public-api scope, its compiled functions among the roots. Nor does a package
    that exports nn.Modules and compiles only what it is handed or holds (a detector wrapper's
    `self.model = torch.compile(self.model)` beside the layers and functions it exports): that call
    names no root of its own, and its users compile its modules and functions as they would
    without it (on the wild corpus's test half, 13 missed breaks lay in such packages' public
    callables).

    The cheaper tests come first: declared entry points, then what the compiling files compile,
    then exports_modules (one public nn.Module ends it before any re-export is resolved). Declared entry points are roots in every scope: they add to the forwards and the public
    callables of `auto`'s public-api scope, and replace the library scope's guess
    (every public callable) in a package that exports no nn.Module."""
    return compiles_something(program) and (
        bool(program.extra_entry_points) or compiles_its_own_code(program) == exports_modules(program)
    )


def roots_settled_by_what_is_read(program: Program) -> bool:
    """knows_its_roots, where it can be told from the modules read so far (the engine reads the rest
    of a package's public modules only when it cannot): a declared entry point or a model zoo's
    own compile and one public nn.Module. A trainer exporting no nn.Module among them may export
    one among the modules not read yet, which would give it the public-api scope."""
    return compiles_something(program) and (
        bool(program.extra_entry_points) or (compiles_its_own_code(program) and exports_modules(program))
    )


def compiles_something(program: Program) -> bool:
    """Whether the tree compiles something itself: a `@torch.compile`, a `torch.compile(...)` or
    `.compile()` call. Compiling in the package's tests is left out (einops ships `einops/tests`,
    which compile the functions under test: what users compile too); those targets are still
    roots of every scope."""
    return any(
        summary.compile_targets or any(function.compiled for function in summary.functions.values())
        for module, summary in program.modules.items()
        if module not in program.dependency_modules and not is_test_module(module)
    )


def compiles_its_own_code(program: Program) -> bool:
    """Whether a function or method of the tree is compiled outside its tests: decorated with
    `@torch.compile`, named by a compile call, or handed to a compile helper of the tree
    (compile_helpers.py). A compile call on a parameter or an attribute (a trainer's model)
    compiles code the tree does not hold."""
    for module, summary in program.modules.items():
        if module in program.dependency_modules or is_test_module(module):
            continue
        if any(function.compiled for function in summary.functions.values()) or any(
            program._compile_target(module, target.ref, target.constructor, target.method)
            for target in summary.compile_targets
        ):
            return True
    return bool(program.helper_compiled_roots())


def exports_modules(program: Program) -> bool:
    """Whether a public class of the tree is an nn.Module whose forward Dynamo would trace. A class
    its own public module exports is looked at first: it settles a model zoo without resolving
    the re-exports of every public module."""
    if any(_module_with_forward(program, module, name) for module, name in _exported_classes(program)):
        return True
    forwards = [fid for fid in program.model_entry_points() if program.function(fid).name == "forward"]
    return bool(forwards) and any(fid in program.public_callables() for fid in forwards)


def _exported_classes(program: Program) -> Iterator[tuple[str, str]]:
    """(module, class) for each class a public module defines and exports itself."""
    lone = lone_library(program)
    for module, summary in program.modules.items():
        if module not in program.dependency_modules and (
                module == lone or is_public_module(module, is_package_module(summary))):
            yield from ((module, name) for name in exported_names(summary) if name in summary.classes)


def _module_with_forward(program: Program, module: str, class_qualname: str) -> bool:
    forward = program.class_method(module, class_qualname, "forward")
    if forward is None or not program.is_module_class(module, class_qualname):
        return False
    owner = program.function(forward).class_qualname  # where `forward` is defined: a base, maybe
    return owner is not None and program.is_module_class(forward[0], owner)
