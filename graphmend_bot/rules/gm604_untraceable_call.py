"""GM604 untraceable-call: its documentation, in one place with how it is detected and fixed.

The callees and the id Dynamo reports for each live in one table, `UNTRACEABLE_CALLS`
(vocabulary/known_names.py), each entry with the torch version it was measured on; and the NumPy
functions without a torch._numpy counterpart, generated from Dynamo's own map
(vocabulary/numpy_untraced.py, GB0294).
"""

from __future__ import annotations

import ast
from typing import cast

from graphmend_bot.rules.advice import COMPILE_GUARD, AdviceCase
from graphmend_bot.rules.detect import Checker, Detection
from graphmend_bot.rules.gm693_deepcopy_of_held_module import RULE as HELD_MODULE_COPY
from graphmend_bot.rules.rule import CACHED_LOADER_FIX, Rule
from graphmend_bot.vocabulary.kind import NOT_TENSOR, TENSOR, Kind
from graphmend_bot.vocabulary.known_names import (
    UNTRACEABLE_BUILTINS,
    UNTRACEABLE_CALLS,
    UNTRACEABLE_TENSOR_METHODS,
)
from graphmend_bot.vocabulary.numpy_draws import SIZE_POSITION, draws_one_number
from graphmend_bot.vocabulary.numpy_untraced import NUMPY_UNTRACED
from graphmend_bot.vocabulary.torch_aliases import UNTRACEABLE_ALIASES

GENERATOR_ARGUMENT = "GB0055"  # "Failed to convert args/kwargs to proxy"
STR_ENUM_METHOD = "GB0156"  # "Unsupported method call"


def _untraceable(rule: Rule, checker: Checker, call: ast.Call, name: str, args: list[Kind]) -> Kind:
    # `torch.random.initial_seed` is `torch.initial_seed`: Dynamo looks the function up, not the name
    skipped = UNTRACEABLE_CALLS[UNTRACEABLE_ALIASES.get(name, name)]
    if skipped.tensor_argument:
        tensors = Kind.union(args)
        if tensors.is_tensor:  # `copy.deepcopy(config)` traces; `copy.deepcopy(x)` of a tensor does not
            checker.report(rule, call, f"`{name}()` of a tensor cannot be traced", tensors, gb_id=skipped.gb_id)
        if name == "copy.deepcopy" and call.args and not isinstance(call.args[0], ast.Starred):
            # of an nn.Module held in `self` or a global (whose kind may read as a tensor's until the
            # solver says): its builder is the solver's to judge (GM693)
            checker.report_if_held_context_refused(
                HELD_MODULE_COPY, call.args[0], "`copy.deepcopy()` of an nn.Module built outside the compiled "
                "region cannot be traced: Dynamo refuses to copy its tensors")
        return tensors
    if skipped.tuple_traces and call.args and _a_tuple(checker, call.args[0]):
        return NOT_TENSOR  # `copy.copy((a, b))`: traced (measured on torch 2.13)
    checker.report(rule, call, f"`{name}()` cannot be traced", TENSOR, gb_id=skipped.gb_id)
    return NOT_TENSOR


NUMPY_UNSUPPORTED = "GB0294"  # "attempted to trace numpy function unsupported by PyTorch"
_NUMPY_MANAGERS = frozenset({"numpy.printoptions"})  # entered by `with`: GM612 reports them


def _numpy_untraced(rule: Rule, checker: Checker, call: ast.Call, name: str, args: list[Kind]) -> Kind:
    """`np.asanyarray(x)`, `np.nanmean(a)`: Dynamo has no torch._numpy function to trace it with."""
    checker.report(rule, call, f"`{name}()` has no torch._numpy counterpart Dynamo can trace", TENSOR,
                   gb_id=NUMPY_UNSUPPORTED)
    return NOT_TENSOR


def _numpy_draw(rule: Rule, checker: Checker, call: ast.Call, name: str, args: list[Kind]) -> Kind:
    """`np.random.rand()`, `np.random.uniform(0, 1)`: one number drawn as a 0-d tensor and read back
    (GB0033); with a size (`np.random.rand(3)`) the draw is an array and traces (numpy_draws.py)."""
    if draws_one_number(call, name):
        checker.report(rule, call, f"`{name}()` draws one number as a 0-d tensor that Dynamo reads back",
                       TENSOR, gb_id="GB0033")
    return NOT_TENSOR


def _a_tuple(checker: Checker, value: ast.expr) -> bool:
    """A tuple by its syntax: a display, or a call of the builtin `tuple`."""
    return isinstance(value, ast.Tuple) or (isinstance(value, ast.Call) and checker.builtin_of(value.func) == "tuple")


def _untraceable_builtin(rule: Rule, checker: Checker, call: ast.Call, name: str, args: list[Kind]) -> Kind:
    checker.report(rule, call, f"Dynamo cannot trace the builtin `{name}()`", TENSOR, gb_id="GB0059")
    return NOT_TENSOR


def _untraceable_method(
    rule: Rule, checker: Checker, call: ast.Call, method: str, receiver: Kind, args: list[Kind]
) -> Kind:
    """`x.is_signed()` and the like: the Python value they return cannot enter the graph."""
    skipped = UNTRACEABLE_TENSOR_METHODS[method]
    checker.report(rule, call, f"`.{method}()` returns a Python value Dynamo cannot trace", receiver, gb_id=skipped.gb_id)
    return NOT_TENSOR


def _generator_built_here(rule: Rule, checker: Checker, call: ast.Call, name: str) -> None:
    """Measured on torch 2.13: `torch.randn(..., generator=g)` breaks ("Missing `as_proxy()`",
    GB0055) for any torch.Generator `g`, built in the frame or passed in; `generator=None` does not.
    Reported only for a generator this function built (`g = torch.Generator(device).manual_seed(s)`,
    torchsde's `_randn`): a `generator` parameter is None on most calls."""
    value = next(keyword.value for keyword in call.keywords if keyword.arg == "generator")
    if isinstance(value, ast.Name) and checker.builder_of(value.id) == "torch.Generator":
        checker.report(
            rule, call, f"`{name}()` with a `torch.Generator` built in traced code cannot be traced",
            TENSOR, gb_id=GENERATOR_ARGUMENT,
        )


def _str_method(rule: Rule, checker: Checker, call: ast.Call, param: str) -> None:
    """`opt_str.strip()` where `opt_str` may be a member of a `(str, Enum)` class (GB0156)."""
    method = cast(ast.Attribute, call.func).attr
    checker.report_if_str_enum_member(
        rule, call, param,
        f"`.{method}()` of `{param}`, which can be a member of a `(str, Enum)` class: Dynamo cannot "
        "call `str` methods on str-Enum members (use `.value`, `==` or `in`)",
        gb_id=STR_ENUM_METHOD,
    )


RULE = Rule(
    code="GM604",
    name="untraceable-call",
    family="not traceable",
    gb_id="GB0007",
    other_gb_ids=tuple(sorted(
        {skipped.gb_id for skipped in (*UNTRACEABLE_CALLS.values(), *UNTRACEABLE_TENSOR_METHODS.values())}
        | {GENERATOR_ARGUMENT, STR_ENUM_METHOD, NUMPY_UNSUPPORTED}
    )),
    summary=(
        "Flags calls TorchDynamo skips or cannot trace in traced code: `time.time()` and other "
        "clocks, `bisect`, `pickle`, `copy.copy` (but of a tuple), some of `random`, numpy's RNG objects and file "
        "I/O (`np.random.SeedSequence`, `np.random.default_rng`, `np.load`, `np.save`), the NumPy functions "
        "torch._numpy has no counterpart for (`np.asanyarray`, `np.isin`, `np.nanmean`, `np.interp`, the "
        "distributions `np.random.beta`, `poisson`, `standard_normal`, ...; GB0294, listed from Dynamo's own map), "
        "the draws of one number torch._numpy has (`np.random.rand()`, `np.random.uniform(0, 1)`, "
        "`np.random.randint(n)`: GB0033; with a size they trace), "
        "`torch.Generator(...)` construction and its stateful methods (`manual_seed`, `seed`, "
        "`get_state`, ..., on `torch.default_generator` too), `copy.deepcopy` of a tensor, and the tensor methods "
        "`is_signed()`, `storage_offset()`, `is_pinned()`, `is_neg()`, `is_conj()`, `is_shared()` and "
        "`is_distributed()`, and `str` methods (`.strip()`, "
        "`.lower()`) called on a member of a `(str, Enum)` class that reaches a parameter; "
        "`sys._getframe` and `inspect.currentframe`/`stack`; torch functions that return a Python "
        "value Dynamo does not fold (`torch.get_num_threads()`, `torch.initial_seed()`, "
        "`torch.result_type()`, `torch.get_device()`, ...) or that it skips (`torch.set_num_threads()`, "
        "`torch.manual_seed()`, `torch.get_rng_state()`, `torch.set_rng_state()`, `torch.cuda.manual_seed_all()`, "
        "`torch.nn.utils.rnn.pack_padded_sequence()`/`pad_packed_sequence()`, `torch.jit.isinstance()`, "
        "the deprecated `torch.autograd.Variable(...)`, ...; under their other public names too, `torch.random.initial_seed()`, `torch.cuda.random.manual_seed()`: vocabulary/torch_aliases.py); the builtins `globals()`, `dir()`, "
        "`exec()`, `compile()`, `memoryview()`, `bytes()` and `bytearray()`; `types.SimpleNamespace(...)`."
    ),
    why=(
        "Dynamo cannot trace these functions: it ends the graph, calls them eagerly and starts a "
        "new graph. Most are marked as skipped (GB0007); numpy functions torch._numpy does not "
        "implement give GB0294, numpy RNG draws GB0033, `torch.Generator(...)` GB0363 (an opaque "
        "object created mid-graph), a method of one built there GB7650 (`torch.Generator(d).manual_seed(s)` "
        "breaks only there), `copy.deepcopy` of a tensor GB4198, `Tensor.is_signed()`, "
        "`storage_offset()`, `is_neg()` and the other tensor methods listed, and torch functions such as `torch.get_num_threads()` GB0208 "
        "(an op returning a Python value), a `str` method such as `.strip()` on a member of a "
        "`(str, Enum)` class GB0156 (Dynamo does not trace methods of `str` subclasses' members; "
        "`==`, `in`, `str(m)` and `m.value` trace), the builtins listed GB0059 "
        "(\"Failed to trace builtin operator\"), `types.SimpleNamespace(...)` GB0147 (\"Unsupported function call\": "
        "Dynamo has no model of its constructor; one built outside and read in traced code traces). Each finding "
        "carries the id measured for its callee on torch 2.13; `numpy.random.rand`, `randn`, `normal`, `uniform`, "
        "`randint` given a size, and `random.randint`, trace and are not reported."
    ),
    example="""
start = time.perf_counter()
y = model(x)
""",
    use_instead="""
# Time outside the compiled region, or guard it:
if not torch.compiler.is_compiling():
    start = time.perf_counter()
""",
    fix_safety=(
        CACHED_LOADER_FIX +
        "`bisect` on a sorted tensor's `.tolist()` goes with GM303's unsafe `torch.searchsorted` fix of "
        "the same expression. Otherwise no automatic fix. Move the call out of the compiled region (seed "
        "generators, load files and "
        "build lookup tables in `__init__` or before the call), replace it with a torch operation "
        "(`torch.searchsorted` for `bisect` on a sorted tensor, `torch.randint`/`torch.randn` for "
        "numpy draws), or guard eager-only work with `torch.compiler.is_compiling()`."
    ),
    fixes=("loaders.cached_constant",),
    detection=Detection(
        generator_keyword=_generator_built_here,
        calls={
            **dict.fromkeys(NUMPY_UNTRACED - UNTRACEABLE_CALLS.keys() - _NUMPY_MANAGERS, _numpy_untraced),
            **dict.fromkeys((*UNTRACEABLE_CALLS, *UNTRACEABLE_ALIASES), _untraceable),
            **dict.fromkeys(SIZE_POSITION, _numpy_draw),
        },
        builtins={
            **dict.fromkeys(UNTRACEABLE_BUILTINS, _untraceable_builtin),
        },
        tensor_methods=dict.fromkeys(UNTRACEABLE_TENSOR_METHODS, _untraceable_method),
        str_method=_str_method,
    ),
    advice_cases=(AdviceCase(lambda finding: finding.gb_id == "GB0156", (  # a str method of a str-Enum member
        "Dynamo cannot call `str` methods on a str-Enum member: call `{code}` on the member's `.value` "
        "(`getattr(opt, \"value\", opt)`), compare with `==`/`in`, or convert it before the compiled region"
    )),),
    advice=f"TorchDynamo skips `{{code}}`: call it outside the compiled region, or guard it with `{COMPILE_GUARD}`",
)
