"""Why each graph-break id of torch's registry that no rule reports has none: data for
benchmarks/coverage_table.py, which writes docs/coverage.md.

An id lands in exactly one place, in this order:
1. a rule claims it (Rule.gb_ids in graphmend_bot/rules/): the table names the rule and its probe;
2. LEFT: its trigger is a construct in user source that no rule reports yet (the roadmap);
3. REASONS: why it cannot be seen in source, per id;
4. the keyword rules of `category_by_keywords`, over the entry's Gb_type, Explanation and Hints
   (Dynamo's own hint texts say which entries are its bugs and which raise in eager too).
An id none of them places fails the generator: every id of a new torch is read and placed by hand.
"""

from __future__ import annotations

import re
from typing import Any

# What each reason category means; the table prints it once, with its ids.
CATEGORIES: dict[str, str] = {
    "internal": "an internal Dynamo error or invariant: its hints call it a Dynamo bug, or it is "
                "bookkeeping of Dynamo's own (reconstruction, bytecode analysis, sources)",
    "eager-error": "the code raises in eager too (Dynamo's hint: \"Your code may result in an error when "
                   "running in eager\"): a bug Python reports, not a graph break to rewrite",
    "hop": "uses of torch's higher-order operators (torch.cond, while_loop, scan, map, associative_scan, "
           "invoke_subgraph, wrappers) that Dynamo rejects: wrong arguments, or bodies that alias, mutate "
           "or call modules. That code is written for torch.compile and Dynamo's message names the fix; "
           "graphmend leaves it out of scope",
    "object-model": "a Python protocol (a C slot: `len`, `iter`, `next`, `in`, `+`, `int()`, `str`, "
                    "`repr`, subscripts) that Dynamo's model of the value's run-time type does not "
                    "implement; which type reaches it is a run-time fact",
    "config": "breaks only with a non-default setting or environment: a torch._dynamo.config flag "
              "turned on or off, export, strict mode, compiled autograd, a torch built without a "
              "component, Python < 3.11",
    "runtime": "depends on a value or type the source does not show: an input's layout or subclass, "
               "the type of an object from outside the compiled region, a custom operator, a C "
               "extension type, an exception raised at run time, how often a frame recompiles",
    "follow-on": "the consequence of another break (inside a loop, a `with` block, an inlined call): "
                 "that break's own id and rule report it",
    "debug": "Dynamo's own debugging and testing hooks",
    "unraised": "listed in the registry, but no code of the pinned torch raises it (its Gb_type is a "
                "string literal in none of torch's Python sources: tests/test_coverage_reasons.py checks): nothing in "
                "source can make Dynamo report it; where the construct it names was measured, the reason "
                "says what Dynamo did instead",
}

_BUG = "This is likely to be a Dynamo bug"
_USER_ERROR = "Your code may result in an error when running in eager"
_HOP = re.compile(r"torch\.cond|while_loop|torch\.scan|associative_scan|torch\.map|HOP|[Hh]igher[ -]order|"
                  r"hints_wrapper|out_dtype|strict_mode|wrap_with_|invoke_subgraph|executorch|FlexAttention|"
                  r"WrapHigherOrder")
_SLOT = re.compile(r"_impl not implemented|VariableTracker subclass|Missing tp_|missing_mp|missing sq_|"
                   r"missing tp_|Missing len_impl|tp_as_number|C slot")
# A non-default setting: "with config.trace_numpy=False", export, strict mode, compiled autograd.
_CONFIG = re.compile(r"torch\._dynamo\.config|config\.\w+|[Cc]ompiled autograd|compiled_autograd|"
                     r"strict mode|with export|USE_DISTRIBUTED")


def category_by_keywords(entries: list[dict[str, Any]]) -> str | None:
    """The category Dynamo's own words give an entry, or None. The first entry's Gb_type decides a
    higher-order operator; any entry's hints decide a bug or an eager error."""
    hints = " ".join(hint for entry in entries for hint in entry["Hints"])
    text = " ".join(f"{e['Gb_type']} {e['Explanation']} {' '.join(e['Hints'])}" for e in entries)
    if _BUG in hints:
        return "internal"
    if _SLOT.search(text):
        return "object-model"
    if _HOP.search(entries[0]["Gb_type"]):
        return "hop"
    if _USER_ERROR in hints:
        return "eager-error"
    if _CONFIG.search(text):
        return "config"
    return None


# Constructs in user source with no rule yet, by construct (issue 27's list first). Each id's entry
# was read; an id a rule later claims is shown under its rule, whatever this says.
LEFT: dict[str, tuple[str, ...]] = {
    "context managers Dynamo cannot enter": (
        # GB2533: the compiled frame returning the object a @contextmanager function built (measured:
        # `return z, plain()` from forward; alive across a break it traces). No rule: which frame
        # is the compiled one is not known here.
        "GB0142", "GB2533",
    ),
    "Python machinery Dynamo cannot trace": (
        "GB9316", "GB4501",  # comparing ids/hashes Dynamo made up
        "GB0289",  # methods of typing constructs
    ),
    "exceptions built or changed in traced code": ("GB0273", "GB9625"),
    "generators, closures and classes that outlive the traced frame": (
        "GB1584",),  # repr() of a nested function whose closure Dynamo cannot rebuild
    # GB0101: a hook's handle stored in a global by a function inlined from another module than the
    # compiled frame's; GM675 reports the store with GB0100, the compiled frame's module being unknown there.
    "tensor hooks registered in traced code": ("GB0101",),
    # a P2POp built outside the compiled region and changed in it (measured: `self.op.tensor = y` on
    # one built in `__init__`; built inside, GB1750 comes first): no rule, the attribute's builder
    # is not followed for attribute writes
    "distributed calls in traced code": ("GB9860",),
}

_RUNTIME = "runtime"
_SPARSE_IN_GRAPH = ("needs a sparse tensor in the graph, which 2.13 never has: measured, `s.sparse_resize_(...)` on "
                    "a sparse input breaks with GB0015 (wrapping it) first, and building one with "
                    "torch.sparse_coo_tensor breaks with GB0007")
_SPECIALIZED_MODULE = ("reached only for a module Dynamo specializes (NNModuleVariable), which 2.13 does not do for "
                       "user modules (inline_inbuilt_nn_modules is always on); measured: a ModuleList and a user "
                       "`__getitem__` indexed by a tensor break with GB0124 (GM302)")
_TRACE_AUTOGRAD_OPS = ("config", "only with torch._dynamo.config.trace_autograd_ops=True (off by default on "
                       "2.13, where the call breaks first with GB9186/GB0123, which GM701 reports)")

# Per id: (category, one line). Keyword-assigned ids are here only where the keywords are wrong.
REASONS: dict[str, tuple[str, str]] = {
    # config / follow-on / debug / internal, by hand
    "GB0039": (_RUNTIME, "the number of recompilations of a frame"),
    "GB0083": (_RUNTIME, "backward hooks registered on a module, usually outside the compiled region"),
    "GB0269": ("debug", "torch._dynamo.config.debug_force_graph_break_on_leaf_return"),
    "GB0275": ("debug", "torch._dynamo.step_unsupported() used for debugging"),
    "GB0284": ("debug", "torch._dynamo.step_unsupported() under fullgraph"),
    "GB0030": ("debug", "a ComptimeContext graph break, Dynamo's debugging API"),
    "GB0200": ("debug", "a missing BUILD_SET handler, for Dynamo's tests"),
    "GB0295": ("config", "only on Python < 3.11, which graphmend does not support"),
    "GB0053": ("config", "FSDP with use_orig_params=False"),
    "GB0106": ("config", "numpy not installed"),
    "GB0166": ("config", "queue_callback() without compiled autograd and fullgraph"),
    "GB0296": ("config", "only for a function listed in torch._dynamo.config.reorderable_logging_functions"),
    "GB0353": ("config", "export's rewrite_signature"),
    "GB0088": (_RUNTIME, "an exception raised at run time and not caught inside the traced frame"),
    "GB0371": _TRACE_AUTOGRAD_OPS, "GB0372": _TRACE_AUTOGRAD_OPS, "GB4927": _TRACE_AUTOGRAD_OPS,
    "GB6663": _TRACE_AUTOGRAD_OPS, "GB1381": _TRACE_AUTOGRAD_OPS, "GB1724": _TRACE_AUTOGRAD_OPS,
    "GB1140": _TRACE_AUTOGRAD_OPS, "GB5748": _TRACE_AUTOGRAD_OPS, "GB7054": _TRACE_AUTOGRAD_OPS,
    "GB1042": _TRACE_AUTOGRAD_OPS, "GB0442": _TRACE_AUTOGRAD_OPS,
    "GB0113": ("eager-error", "an attribute reached through super() that the parent class lacks"),
    "GB0073": ("hop", "calling an nn.Module inside a higher-order operator's body"),
    "GB1177": ("hop", "changing an nn.Module's parameters inside a higher-order operator's body"),
    "GB5173": ("eager-error", "tensors on different devices, which raises in eager too"),
    "GB0174": ("eager-error", "cast() with other than two arguments raises in eager too"),
    "GB8887": ("eager-error", "namedtuple __setattr__ with bad arguments raises in eager too"),
    "GB0355": ("eager-error", "a torch.func transform over a function returning other than one tensor"),
    "GB0240": ("eager-error", "an out= tensor of the wrong shape"),
    "GB0247": ("eager-error", "an out= tensor of the wrong shape"),
    "GB7000": ("follow-on", "a break inside a loop makes Dynamo skip the frame"),
    "GB0065": ("follow-on", "a break inside an inlined call"),
    "GB0066": ("follow-on", "a break inside a `with` block whose context manager cannot cross it"),
    "GB0096": ("follow-on", "an attribute store Dynamo cannot resume after"),
    "GB0209": ("follow-on", "a break inside `torch.autograd._unsafe_preserve_version_counter`"),
    "GB0212": ("follow-on", "a break inside a torch.profiler context"),
    "GB0279": ("follow-on", "a break inside torch.fx.traceback.annotate"),
    "GB0370": ("follow-on", "a break inside record_function"),
    "GB0019": ("follow-on", "an autograd.Function context alive across a break"),
    "GB3326": ("follow-on", "a break between `.data_ptr()` and create_tma_descriptor"),
    "GB3343": ("follow-on", "a P2POp alive across a break"),
    "GB0013": ("follow-on", "a hook handle created in another frame, alive across a break"),
    "GB5696": ("internal", "Dynamo's comprehension optimisation: stack values"),
    "GB6276": ("internal", "Dynamo's comprehension optimisation: bytecode analysis"),
    "GB9898": ("internal", "Dynamo's comprehension optimisation: bytecode analysis"),
    "GB2669": ("internal", "Dynamo's comprehension optimisation in a resume function"),
    "GB7425": ("internal", "Dynamo's comprehension optimisation: local slots"),
    "GB0079": ("internal", "a CALL_INTRINSIC_1 operand Dynamo has no handler for (which source makes it depends on the Python version)"),
    "GB6604": ("internal", "a CALL_INTRINSIC_2 operand Dynamo has no handler for (which source makes it depends on the Python version)"),
    "GB0082": ("internal", "a bytecode instruction Dynamo has no handler for (which source makes it depends on the Python version)"),
    "GB0120": ("internal", "unreachable generator code"),
    "GB0071": ("internal", "inlining a bound method Dynamo should have decomposed"),
    "GB0048": ("internal", "Dynamo's real-value lookup"),
    "GB0049": ("internal", "resolving an op packet"),
    "GB0141": ("internal", "call_id() of a sourceless tensor"),
    "GB0176": ("internal", "call_id() without a real value"),
    "GB0193": ("internal", "Dynamo's builtin-op handler raised TypeError"),
    "GB0228": ("internal", "Dynamo's traceable-parameter conversion switched off"),
    "GB0229": ("internal", "parameter construction from an unexpected graph node"),
    "GB0349": ("internal", "check_meta_consistency on an unexpected variable"),
    "GB0360": ("internal", "guard_scalar on an unexpected expression"),
    "GB2977": ("internal", "a JIT function without _torchdynamo_inline"),
    "GB0346": ("internal", "autograd.Function forward traced to a non-function"),
    "GB0138": ("internal", "save_for_backward on a context Dynamo did not build: every context it builds has its "
                           "saved-tensor box (measured: `ctx.save_for_backward(x, None)` and of an int trace)"),
    "GB0139": ("internal", "a context method Dynamo dispatches by name other than its four: the other methods of "
                           "FunctionCtx are Python functions it inlines (measured: `ctx.save_for_forward(x)` and "
                           "`ctx.set_materialize_grads(False)` trace)"),
    "GB0348": ("internal", "autograd.Function backward traced to a non-function"),
    "GB0352": ("internal", "autograd.Function backward traced to a non-function"),
    # runtime: the value's type, layout or origin decides
    "GB0026": (_RUNTIME, "a tensor subclass's constructor"),
    "GB0103": (_RUNTIME, "a tensor subclass's overridden method"),
    "GB0163": (_RUNTIME, "a tensor subclass's attribute"),
    "GB0164": (_RUNTIME, "a tensor subclass's overridden attribute"),
    "GB0227": (_RUNTIME, "nn.Parameter of a tensor subclass"),
    "GB0015": (_RUNTIME, "a sparse tensor input"),
    "GB0016": (_RUNTIME, "a strided NestedTensor input"),
    "GB0044": (_RUNTIME, "a strided NestedTensor input"),
    "GB0018": (_RUNTIME, "an unbacked SymInt input"),
    "GB2861": (_RUNTIME, "a type whose __hash__ is written in C"),
    "GB1220": (_RUNTIME, "a type whose comparisons are written in C"),
    "GB0005": (_RUNTIME, "a type whose __str__ is written in C"),
    "GB9198": (_RUNTIME, "a type whose __repr__ is written in C"),
    "GB0808": (_RUNTIME, "a special method written in C on a user type"),
    "GB0177": (_RUNTIME, "the callee is written in C"),
    "GB0194": (_RUNTIME, "an isinstance check on an object of a C extension type"),
    "GB3241": (_RUNTIME, "a C-level descriptor of the object's type (delete)"),
    "GB3697": (_RUNTIME, "a C-level descriptor of the object's type (set)"),
    "GB2852": (_RUNTIME, "a user __repr__ Dynamo cannot trace, reached through a value's type"),
    "GB0009": (_RUNTIME, "a callee Dynamo decided earlier to skip"),
    "GB0022": (_RUNTIME, "an import that returns no module"),
    "GB0023": (_RUNTIME, "a comparison whose other operand is no constant"),
    "GB0037": (_RUNTIME, "an operator without a dynamic-shape meta kernel, raised only under the non-default "
                         "`capture_dynamic_output_shape_ops=True`; measured with it on, `nonzero`, `unique` (with `dim` "
                         "too), `unique_consecutive`, `bincount`, `masked_select` and `repeat_interleave` trace"),
    "GB0043": (_RUNTIME, "a custom operator that is not PT2-compliant"),
    "GB0087": (_RUNTIME, "an operator that fails on fake tensors"),
    "GB0064": (_RUNTIME, "an exception while propagating fake tensors"),
    "GB0219": (_RUNTIME, "the backend compiler raised"),
    "GB0052": (_RUNTIME, "a frame Dynamo restarted 100 times"),
    "GB0078": (_RUNTIME, "a nonstrict_trace function defined inside the compiled region"),
    "GB0236": (_RUNTIME, "the input types of a nonstrict_trace function"),
    "GB0238": (_RUNTIME, "a pytree constant built inside the compiled region, passed to nonstrict_trace"),
    "GB0239": (_RUNTIME, "a pytree_flatten registration"),
    "GB0251": (_RUNTIME, "the output types of a nonstrict_trace function"),
    "GB6210": (_RUNTIME, "an nn.Module argument of a leaf_function without a source"),
    "GB2520": (_RUNTIME, "an argument of an assume_constant_result function that is no constant"),
    "GB0086": (_RUNTIME, "a value Dynamo needed as a Python constant"),
    "GB0292": (_RUNTIME, "the return value of a constant-like method"),
    "GB0299": (_RUNTIME, "the arguments of a constant-like method"),
    "GB5195": (_RUNTIME, "elementwise_dtypes on an unsupported argument"),
    "GB0224": (_RUNTIME, "a torch function called on SymInts only"),
    "GB0241": (_RUNTIME, "a non-contiguous out= list"),
    "GB0242": (_RUNTIME, "a non-contiguous out= tensor"),
    "GB0243": (_RUNTIME, "the argument of nn.modules.utils._ntuple"),
    "GB6270": (_RUNTIME, "a tensor method of the tensor's run-time class"),
    "GB7489": (_RUNTIME, "an argument of a type Dynamo cannot proxy"),
    "GB0149": (_RUNTIME, "a functorch transform Dynamo does not support"),
    "GB9741": (_RUNTIME, "compiling inside a functorch transform"),
    "GB7299": (_RUNTIME, "a closure returned by a torch.func transform"),
    "GB6297": (_RUNTIME, "the same tensor passed twice to autograd.Function.apply"),
    "GB0358": (_RUNTIME, "a pending mutation on an optimizer's parameter"),
    "GB0181": (_RUNTIME, "a gradient of another dtype than its tensor (FSDP)"),
    "GB0161": (_RUNTIME, "the type of an nn.Module attribute"),
    "GB0121": (_RUNTIME, "a method of an unspecialized nn.Module"),
    "GB0357": (_RUNTIME, "a ScriptModule as an unspecialized module"),
    "GB4695": (_RUNTIME, "a torch.jit.script or freeze module"),
    "GB0189": (_RUNTIME, "a mutation pending on the module"),
    "GB0211": (_RUNTIME, "an nn.Module whose __getattr__ is not a Python function"),
    "GB0256": (_RUNTIME, "an object whose __getattr__ is not a Python function"),
    "GB0261": (_RUNTIME, "a method whose __func__ is not a Python function"),
    "GB0255": (_RUNTIME, "calling a sourceless object as a method"),
    "GB0131": (_RUNTIME, "__setitem__/__setattr__ of an object that is not user-defined"),
    "GB0271": (_RUNTIME, "a class whose __dict__ Dynamo already materialized"),
    "GB0272": (_RUNTIME, "an object that allows no weakref"),
    "GB0276": (_RUNTIME, "an object that allows no weakref"),
    "GB0283": (_RUNTIME, "an object that allows no weakref"),
    "GB7502": (_RUNTIME, "a class whose __new__ Dynamo cannot replay"),
    "GB2404": (_RUNTIME, "a class object.__new__ cannot build"),
    "GB0369": (_RUNTIME, "a frozen dataclass field Dynamo did not track"),
    "GB0180": (_RUNTIME, "dataclass fields() of an object that is not user-defined"),
    "GB0201": (_RUNTIME, "the argument types of a namedtuple"),
    "GB0197": (_RUNTIME, "a list that contains itself"),
    "GB1297": (_RUNTIME, "a self-referential value alive across a break"),
    "GB0143": (_RUNTIME, "a value Dynamo cannot turn into a list for slice assignment"),
    "GB0203": (_RUNTIME, "dict_keys whose keys are not constants"),
    "GB0204": (_RUNTIME, "a mappingproxy whose keys are not constants"),
    "GB0198": (_RUNTIME, "a mappingproxy whose dict changed"),
    "GB0199": (_RUNTIME, "a mappingproxy from outside the compiled region"),
    "GB5849": (_RUNTIME, "__dict__ replaced with non-constant keys"),
    "GB0183": (_RUNTIME, "dict.fromkeys on arguments Dynamo cannot list"),
    "GB0278": (_RUNTIME, "fromkeys on a class that is no dict"),
    "GB0365": (_RUNTIME, "an object Dynamo cannot tell hashable"),
    "GB0366": (_RUNTIME, "an object whose hash Dynamo cannot know"),
    "GB0367": (_RUNTIME, "an object whose equality Dynamo cannot know"),
    "GB0682": (_RUNTIME, "hashing a getattr() result of unknown type"),
    "GB6215": (_RUNTIME, "comparing a getattr() result Dynamo cannot resolve"),
    "GB4608": (_RUNTIME, "a comparison falling back to identity on unknown objects"),
    "GB6622": (_RUNTIME, "comparing lists whose elements compare to non-constants"),
    "GB5565": (_RUNTIME, "ordering lists whose elements compare symbolically"),
    "GB0213": (_RUNTIME, "a builtin operator on tensor arguments Dynamo does not implement"),
    "GB0214": (_RUNTIME, "a comparison operator on SymNodes"),
    "GB0215": (_RUNTIME, "a comparison operator on tensors"),
    "GB6025": (_RUNTIME, "list() of argument types Dynamo cannot list"),
    "GB6012": (_RUNTIME, "a __len__ written in C or returning a non-constant"),
    "GB4240": (_RUNTIME, "__getitem__ of a type Dynamo does not model"),
    "GB5904": (_RUNTIME, "sq_item of a type Dynamo does not model"),
    "GB0781": (_RUNTIME, "sq_ass_item of a type Dynamo does not model"),
    "GB9277": (_RUNTIME, "function.__get__ on a function that is not user-defined"),
    "GB9672": (_RUNTIME, "type.__dict__[...].__get__ on a non-constant"),
    "GB0287": (_RUNTIME, "type.__dict__['__annotations__'].__get__ on a non-constant"),
    "GB9137": (_RUNTIME, "a typing construct subscripted with a non-constant"),
    "GB0290": (_RUNTIME, "a numpy function stored and called as a method"),
    "GB0185": (_RUNTIME, "a numpy array that cannot become a tensor"),
    "GB0114": (_RUNTIME, "the function given to itertools.accumulate raised"),
    "GB0115": (_RUNTIME, "the key function given to itertools.groupby raised"),
    "GB0133": (_RUNTIME, "the arguments of itertools.accumulate"),
    "GB0134": (_RUNTIME, "the arguments of itertools.groupby"),
    "GB0152": (_RUNTIME, "non-constant itertools.groupby keys"),
    "GB0192": (_RUNTIME, "itertools.cycle over more items than Dynamo's limit"),
    "GB0094": (_RUNTIME, "SEND (await, yield from) to an unsupported object"),
    "GB0169": (_RUNTIME, "writing to a cell Dynamo holds no source for"),
    "GB0165": (_RUNTIME, "a method of the autograd engine object"),
    "GB8656": (_RUNTIME, "an opaque object type with __getattr__"),
    "GB1739": (_RUNTIME, "a member type of a registered opaque object"),
    "GB7685": (_RUNTIME, "an attribute missing on a registered opaque class"),
    "GB9567": (_RUNTIME, "a descriptor on a registered opaque class"),
    "GB2078": (_RUNTIME, "an unregistered member of an opaque object"),
    "GB0362": (_RUNTIME, "attributes of an opaque object"),
    "GB8843": (_RUNTIME, "a reference-type opaque object returned by a member"),
    "GB0282": (_RUNTIME, "a Placement type with __getattr__"),
    "GB0361": (_RUNTIME, "a feature of a triton kernel"),
    "GB0467": (_RUNTIME, "setattr() on an object of a type Dynamo does not model"),
    "GB0266": (_RUNTIME, "a method of a TorchScript object"),
    "GB0267": (_RUNTIME, "a non-callable attribute of a TorchScript object"),
    "GB0216": (_RUNTIME, "the grid type given to a triton kernel"),
    # Python machinery, measured on torch 2.13 (probes run through torch._dynamo.explain)
    **dict.fromkeys(("GB0151", "GB0191", "GB0270", "GB0368", "GB0032", "GB0364", "GB0095", "GB9528",
                     "GB0075", "GB7968", "GB5380", "GB8315", "GB1275", "GB0459"),
                    ("unraised", "no code of torch 2.13's Dynamo raises it")),
    "GB0190": (_RUNTIME, "a name Dynamo does not know while tracing: every str it sees is a constant (measured: "
                         "`getattr(self, n)` over a list attribute of names, and of an f-string of a str "
                         "parameter, trace)"),
    "GB0254": (_RUNTIME, "a name Dynamo does not know while tracing (measured: `setattr(obj, n, t)` over a "
                         "module-level list of names, and with `name + \"_x\"` of a str parameter, trace)"),
    "GB9522": ("object-model", "hasattr() on a value whose Dynamo model answers nothing (see GB0150)"),
    "GB0217": ("object-model", "hasattr() on a dict-like of a class Dynamo models as a dict (measured: on an "
                               "instance of a local `class Cfg(dict)` it traces)"),
    "GB0280": ("eager-error", "an attribute read through one-argument `super(Cls)`, which raises AttributeError in "
                              "eager too (measured)"),
    "GB0222": (_RUNTIME, "a set holding tensors that reaches traced code from outside (measured: iterating "
                         "`self.seen = {t}` breaks; a set of tensors built in traced code traces)"),
    "GB0097": (_RUNTIME, "replaying appends to a bounded deque that exists before the call (measured: "
                         "`self.hist.append(t)` on `deque(maxlen=3)` held in an attribute traces)"),
    "GB0253": (_RUNTIME, "a method (`send`, `throw`, `close`) of a generator object made outside the compiled "
                         "region (measured: `self.gen.send(2)` on a generator built in `__init__` breaks; one "
                         "made and stepped in traced code traces)"),
    "GB0262": (_RUNTIME, "GM612 reports these `with contextlib.closing(...)`/`redirect_stdout(...)` lines with "
                         "GB0142; Dynamo names them GB0262 only when the `with` comes before any tensor "
                         "operation of the frame (measured both ways), which depends on what ran before"),
    # measured on torch 2.13: tensors, autograd, checks
    "GB0129": (_RUNTIME, _SPARSE_IN_GRAPH), "GB0130": (_RUNTIME, _SPARSE_IN_GRAPH),
    "GB0153": (_RUNTIME, _SPECIALIZED_MODULE), "GB0281": (_RUNTIME, _SPECIALIZED_MODULE),
    "GB0202": (_RUNTIME, _SPECIALIZED_MODULE),
    "GB0171": ("eager-error", "an AssertionError with a non-string message is built in traced code only where the "
                              "assert or raise fails (passing asserts with tuple or exception messages trace, measured)"),
    "GB0034": ("eager-error", "an assert whose test Dynamo proves False (it fails in eager too) where no partial graph "
                              "can be compiled (inside a `with` block, fullgraph)"),
    "GB0035": (_RUNTIME, "a user class's `__bool__` returning a tensor-derived value: measured, Dynamo breaks inside "
                         "`__bool__` (GB0124 on `bool(t)`, GM302) and the `if obj:` line follows; a `__bool__` "
                         "returning the tensor itself raises TypeError in eager too (measured)"),
    "GB4372": ("eager-error", "`Fn.apply(x, scale=s)` to a forward with keyword-only parameters: apply passes no "
                              "keywords, so eager raises TypeError too (measured)"),
    "GB7324": ("config", "only with fullgraph=True (output_graph.py raises it under one_graph); without it "
                         "`t.requires_grad_()` on an intermediate is GB8985, which GM701 reports"),
    "GB0038": ("unraised", "`l[:t]`, a list sliced with a tensor bound, breaks with GB0124 (Tensor.item())"),
    "GB0218": ("unraised", "`l[t]`, `(1, 2)[t]`, `operator.index(t)` break with GB0124 (Tensor.item())"),
    "GB0288": ("unraised", "torch._check messages break with GB9840/GB9158, which GM631 reports"),
    "GB0230": ("unraised", "`torch.use_deterministic_algorithms(True, warn_only=True)` traces"),
    "GB0029": ("unraised", "`y.register_hook(fn)` on an intermediate traces (a global handle: GB0100)"),
    "GB3840": ("unraised", "leaf_function without fake_fn"),
    "GB4026": ("unraised", "triton.set_allocator in traced code"),
    "GB0179": ("internal", "the copy.deepcopy handler of Dynamo's builtin-function model, which 2.13 never reaches: "
                           "copy.deepcopy is a Python function it inlines (measured: of a dict or a user object it "
                           "traces; of a tensor, or an nn.Module holding parameters, it breaks with GB4198, which "
                           "GM604 reports for a tensor argument and GM693 for a held module)"),
    "GB0187": ("unraised", "`@functools.wraps(fn)` on a module-level function, inside forward, traces (measured): "
                           "2.13 inlines functools.wraps"),
    "GB0031": (_RUNTIME, "reached only for a module Dynamo specializes (NNModuleVariable), which 2.13 does not do "
                         "for user modules (measured: a submodule whose class defines `__getattribute__` traces)"),
    "GB0220": (_RUNTIME, "`t.data = v` where v's dtype differs from t's: the dtypes are run-time facts "
                         "(`p.data = p.data.float()` is a no-op on a float32 parameter); GM630 reports GB0056"),
    "GB6735": ("eager-error", "`torch.library.wrap_triton` takes one positional-only argument, so every call that "
                              "reaches this break (more or fewer positional arguments) raises TypeError in eager too "
                              "(measured: `wrap_triton(kernel, 1)` breaks with GB6735 and raises; triton is not "
                              "needed for either, and is not installed with the CPU build)"),
    "GB0060": ("config", "only with torch._dynamo.config.enable_trace_unittest=True (off by default; torch's own "
                         "test_case turns it on): by default `with case.assertWarns(...)` breaks with GB0142 (measured)"),
    "GB4197": ("internal", "never raised on 2.13: `t.share_memory_()` breaks with GB0117 \"Unhandled args for "
                           "method\" first (its handler does not take Dynamo's call), which GM621 reports"),
    "GB0003": ("internal", "never reached on 2.13 with Python 3.11 (measured): `torch.compile` of a generator "
                           "function, a `forward` that yields, a generator inlined from traced code and one a "
                           "skipped call (`heapq.nlargest(1, gen(x))`) runs after a break all trace or break with "
                           "GB0059/GB8335 first; Dynamo never converts a generator's own frame"),
    "GB0024": ("config", "the CLEANUP_THROW opcode exists only on Python >= 3.12 (`dis.opmap` of 3.11 lacks it); "
                         "measured on 3.11: `g.throw(...)` / `g.close()` on a `yield from` generator traces"),
    "GB4778": ("config", "only with torch._dynamo.config.log_graph_in_out_metadata under export's functional "
                         "tracer (output_graph.py); measured: returning a nested function that closes over a "
                         "tensor traces in torch.compile"),
    "GB1319": ("follow-on", "needs a class built in traced code, and each way to build one breaks first "
                            "(measured): a `class` statement with GB8977 (GM616), `type(name, bases, ns)` with "
                            "GB0147, `types.new_class` with GB0156; a namedtuple's instance returned traces"),
    "GB0084": (_RUNTIME, "needs an attribute name Dynamo does not hold as a constant; measured on 2.13, every "
                         "`str` reaching `super().__delattr__(name)` is one (a literal, a `forward` input, a "
                         "loop over `vars(obj)`), and a name chosen by a tensor breaks first with GB0170 (GM101)"),
}


def placements() -> dict[str, str]:
    """id -> the LEFT construct naming it; fails on an id named twice."""
    placed: dict[str, str] = {}
    for construct, group in LEFT.items():
        for gb_id in group:
            if gb_id in placed:
                raise ValueError(f"{gb_id} is listed under two constructs")
            placed[gb_id] = construct
    return placed
