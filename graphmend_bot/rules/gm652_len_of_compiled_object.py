"""GM652 len-of-compiled-object: its documentation, in one place with how it is detected.

`len(v)` where `v` may be an object of a class compiled in an installed third-party package
(analysis/installed_packages.py) on every path: built by the call itself, bound to a local by a
top-level statement that builds one, or returned by a top-level function of the module every `return`
of which builds one (Checker.built_outside). A helper that builds one only on some paths and
returns its argument unchanged on the others counts when that argument is the one the build is given
(the coercion `if isinstance(w, str): return pywt.Wavelet(w)` / `return w`, ptwt's `_as_wavelet`) and
the caller passes a string or its own parameter (analysis/returned_builds.py; measured on torch 2.13,
tests/test_len_of_coerced_object.py: `len()` breaks for a name and for a Wavelet passed through, a
tuple passed from a local or an attribute traces). A caller's parameter given a tuple would trace:
the idiom is taken for the type. Otherwise such a helper is left alone unless it is annotated
`-> Wavelet`, and so is a parameter
`w: Wavelet` (Checker.annotated_class): measured on torch 2.13 (tests/coverage_probes/
gb6012_len_of_annotated_compiled_object.py), `len()` of a Wavelet passed into the compiled region
breaks the same, while reading its attributes (`w.dec_len`) traces. A union annotation
(`Union[Wavelet, str]`) is not judged.
"""

from __future__ import annotations

import ast

from graphmend_bot.rules.advice import COMPILE_GUARD
from graphmend_bot.rules.detect import Checker, Detection
from graphmend_bot.rules.rule import Rule
from graphmend_bot.vocabulary.kind import TENSOR, Kind


def _len(rule: Rule, checker: Checker, call: ast.Call, name: str, args: list[Kind]) -> Kind | None:
    if len(call.args) != 1 or call.keywords or isinstance(call.args[0], ast.Starred):
        return None
    builders = checker.built_outside(call.args[0])
    # A capitalised name is taken for a class (an object built by a compiled function may be a list
    # or a tuple, whose len Dynamo traces); every path must give such an object.
    compiled = [checker.compiled_module(b) if b.rpartition(".")[2][:1].isupper() else None for b in builders]
    if builders and compiled[0] is not None and all(compiled):
        checker.report(
            rule, call, f"`len()` of a `{builders[0]}`, a class compiled in `{compiled[0].module}`: "
            "Dynamo cannot trace its `__len__`", TENSOR,
        )
    elif (
        not builders
        and (annotated := checker.annotated_class(call.args[0])) is not None
        and (module := checker.compiled_module(annotated)) is not None
    ):  # `w: Wavelet`, or a helper annotated `-> Wavelet` that passes a caller's object through
        checker.report(
            rule, call, f"`len()` of a `{annotated}` (so annotated), a class compiled in `{module.module}`: "
            "Dynamo cannot trace its `__len__`", TENSOR,
        )
    return None


RULE = Rule(
    code="GM652",
    name="len-of-compiled-object",
    family="not traceable",
    gb_id="GB6012",
    summary=(
        "Flags `len()` in traced code of an object of a class compiled in an installed third-party "
        "package (Cython or the C API: `len(pywt.Wavelet(name))`), built in place, bound to a local "
        "built by one, or returned by a helper of the same module that builds one on every path; or an "
        "object annotated as one (`w: Wavelet`, a helper annotated `-> Wavelet`)."
        " Reported only where the package is installed (run `graphmend check` in the project's "
        "environment): the GitHub review bot, whose environment holds no project dependencies, never reports it."
    ),
    why=(
        "Dynamo answers `len()` of a user-defined object by tracing its `__len__`; a compiled "
        "class's `__len__` is C code, so it breaks (GB6012 \"Cannot trace user-defined __len__\"), "
        "also when the object was built outside the compiled region and passed in."
    ),
    example="""
import pywt

size = len(pywt.Wavelet("db2"))
""",
    use_instead="""
# Read what you need from the compiled object before the compiled region and pass the number in:
size = x.shape[0]
""",
    fix_safety=(
        "No automatic fix: read the length outside the compiled region (where the object is built) "
        f"and pass it in, or guard eager-only work with `{COMPILE_GUARD}`."
    ),
    detection=Detection(builtins={"len": _len}),
    advice="TorchDynamo cannot trace a compiled class's `__len__`: read `{code}` outside the compiled region and pass it in",
)
