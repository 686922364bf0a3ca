"""GM651 compiled-extension-call: its documentation, in one place with how it is detected.

analysis/installed_packages.py reads the installed package the callee's name resolves into (its
`__init__.py` and modules as text, following re-exports and star imports) down to a compiled module,
and reads that file for the marks its compiler leaves. Nothing is imported. NumPy, optree (which
Dynamo handles) and torch are never judged this way, nor bindings Dynamo was not measured on
(PyO3, pybind11), nor the package the checked module belongs to (function_calls.py: reading its
files again for every call cost 45% more CPU on transformers' models).
"""

from __future__ import annotations

import ast

from graphmend_bot.rules.advice import COMPILE_GUARD
from graphmend_bot.rules.detect import Checker, Detection
from graphmend_bot.rules.rule import Rule
from graphmend_bot.vocabulary.kind import TENSOR


def _third_party_call(rule: Rule, checker: Checker, call: ast.Call, name: str, on_instance: bool) -> None:
    built_by = name.rpartition(".")[0] if on_instance else name
    # A method of an object built by a compiled class (`w.wavefun()` on `w = pywt.Wavelet(n)`);
    # a capitalised name is taken for a class.
    if on_instance and not built_by.rpartition(".")[2][:1].isupper():
        return
    compiled = checker.compiled_module(built_by)
    if compiled is None:
        if not on_instance:
            _wrapper_call(rule, checker, call, name)
        return
    # Measured on torch 2.13: calling a Cython function or ufunc, building any compiled class, or
    # calling a method of its object is "Unsupported method call" (GB0156: `__call__`, `__new__`
    # of `type`); a C function with no Dynamo handler is a skipped builtin (GB0007).
    leaf = name.rpartition(".")[2]
    gb_id = "GB0156" if compiled.cython or on_instance or leaf[:1].isupper() else "GB0007"
    checker.report(
        rule, call, f"`{name}` is compiled code (`{compiled.module}`): Dynamo cannot trace a call into it",
        TENSOR, gb_id=gb_id,
    )


def _numba_call(rule: Rule, name: str) -> tuple[str, str]:
    """Measured on torch 2.13 (tests/test_numba_calls.py): a numba dispatcher's `__call__` is
    "Unsupported method call" (GB0156; GB6890 when an argument is a NumPy array Dynamo traces, which it
    cannot hash for the dispatch)."""
    return (
        f"`{name}()` is compiled by numba: Dynamo cannot trace a call into a numba dispatcher, so the graph "
        "ends at this call and it runs eagerly", "GB0156",
    )


def _wrapper_call(rule: Rule, checker: Checker, call: ast.Call, name: str) -> None:
    """Measured on torch 2.13 (pytorch_wavelets' `lowlevel.py:153`): `pywt.dwt_coeff_len(...)` is a
    Python wrapper whose `return` calls `Modes.from_object(mode)` of the Cython module; Dynamo
    inlines the wrapper and breaks there, reported at this call ("Unsupported method call", GB0156)."""
    inside = checker.compiled_inside(name)
    if inside is None:
        return
    inner, compiled = inside
    owner, _, leaf = inner.rpartition(".")
    method_or_class = owner.rpartition(".")[2][:1].isupper() or leaf[:1].isupper()
    inner_name = inner.removeprefix(f"{compiled.module}.")  # `Modes.from_object`
    checker.report(
        rule, call, f"`{name}` always calls compiled code (`{inner_name}` of `{compiled.module}`): "
        "Dynamo cannot trace into it", TENSOR,
        gb_id="GB0156" if compiled.cython or method_or_class else "GB0007",
    )


RULE = Rule(
    code="GM651",
    name="compiled-extension-call",
    family="not traceable",
    gb_id="GB0156",
    other_gb_ids=("GB0007",),
    summary=(
        "Flags calls from traced code to functions and classes of installed third-party packages "
        "that live in a compiled extension module (Cython or the C API: `scipy.special.gammaln`, "
        "`pywt.Wavelet`, `scipy.spatial.cKDTree`, `yaml._yaml.CParser`, ...), and methods of an "
        "object such a class built in the function, and Python functions of such packages that call "
        "compiled code on every path (`pywt.dwt_coeff_len`), found by reading the package's files, "
        "never by importing it; and calls to a function of the checked tree compiled by numba "
        "(`@numba.jit`, `@njit`, ...: a dispatcher Dynamo cannot call into, whose body it never traces "
        "and graphmend does not report, analysis/disabled_calls.py)."
        " Reported only where the package is installed (run `graphmend check` in the project's "
        "environment): the GitHub review bot, whose environment holds no project dependencies, never reports it."
    ),
    why=(
        "Dynamo traces Python bytecode; compiled code has none. Calling a Cython function or a "
        "NumPy ufunc (`scipy.special`) or building an object of a compiled class is an "
        "\"Unsupported method call\" (GB0156), and a C function Dynamo has no handler for is "
        "skipped (GB0007): the graph ends at the call, which runs eagerly. NumPy's own functions "
        "are traced through torch._numpy and are not reported."
    ),
    example="""
import yaml._yaml

parser = yaml._yaml.CParser("a: 1")
""",
    use_instead="""
# Build compiled objects and call compiled functions outside the compiled region:
ready = x * 2
""",
    fix_safety=(
        "No automatic fix: compute the value before the compiled call (in `__init__`, or in the "
        "caller) and pass it in, use a torch equivalent (`torch.special.gammaln` for "
        f"`scipy.special.gammaln`), or guard eager-only work with `{COMPILE_GUARD}`."
    ),
    detection=Detection(third_party_call=_third_party_call, compiled_function_call=_numba_call),
    advice=f"TorchDynamo cannot trace compiled code: call `{{code}}` outside the compiled region, use a torch equivalent, or guard it with `{COMPILE_GUARD}`",
)
