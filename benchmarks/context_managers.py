"""Write graphmend_bot/vocabulary/context_managers.py: the standard-library and torch context
managers a traced frame cannot enter, derived from the installed torch and measured.

    python benchmarks/context_managers.py           # (re)write the table (about a minute)
    python benchmarks/context_managers.py --check   # exit 1 when the table is out of date

Candidates: every public class with `__enter__` and `__exit__`, and every `@contextmanager`
function, that a public standard-library module or a public torch module (those `import torch`
loads) defines. Dynamo enters only its own ContextWrappingVariables (grad modes, autocast, the
`supported_ctx_manager_classes` of variables/torch.py, `warnings.catch_warnings()`,
`contextlib.nullcontext`, ...) and user classes and generators it can inline; so each candidate is
measured as `with module.name():` between two tensor operations, compiled with `fullgraph=True`.
It enters the table when Dynamo refuses it with an id that does not depend on the arguments
given: the construction runs code its trace rules skip (GB0007, GB0008: a torch or `threading`
function, whatever the arguments), it is a `contextlib` class Dynamo rejects by class (GB0262), or
the object built cannot be entered (GB0142). At the `with` line itself Dynamo then reports GB0142,
the id the findings carry (a real `with`, arguments given, per family in the tests). A candidate
that requires no argument was measured as code can write it, so any other graph break counts too
(`with tempfile.TemporaryDirectory():` GB0156, `with torch.random.fork_rng():` GB0208), except an
exception the call itself raised (GB0088: an abstract or other-platform class). A candidate
that traces, or fails in a way its arguments decide (an argument-binding failure, an op returning
a Python value, an exception of the call itself), stays out, in `NOT_REFUSED` with what was measured.
tests/test_context_managers.py keeps the table in step with the pinned torch.
"""

from __future__ import annotations

import contextlib
import importlib
import inspect
import sys
import types
import warnings
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "benchmarks"))

from generated_table import write_or_check  # noqa: E402
from skipped_callees import candidate_modules, gb_ids_by_type, refusal, render_entries  # noqa: E402

TABLE = REPO / "graphmend_bot" / "vocabulary" / "context_managers.py"
REFUSED_FOR_ANY_ARGUMENTS = frozenset({"GB0007", "GB0008", "GB0142", "GB0262"})
RAISED_BY_THE_CALL = "GB0088"  # "Observed exception": the construction raised, whatever Dynamo does
_CONTEXTMANAGER_CODE = contextlib.contextmanager(lambda: iter(())).__code__


def torch_modules() -> list[str]:
    """The public torch modules `import torch` loads (no `_private` part, no test helpers)."""
    import torch  # noqa: F401

    return sorted(
        name for name in list(sys.modules)
        if (name == "torch" or name.startswith("torch.")) and not any(part.startswith("_") for part in name.split("."))
        and not name.startswith("torch.testing")
    )


def is_context_manager(value: object) -> bool:
    if isinstance(value, type):
        return hasattr(value, "__enter__") and hasattr(value, "__exit__")
    return isinstance(value, types.FunctionType) and value.__code__ is _CONTEXTMANAGER_CODE


def _defined_in(value: object, module_name: str) -> bool:
    """Defined by the module's own library (torch for torch, the standard library for it), not a
    name one of them imported from elsewhere (`torch.fx.interpreter.tqdm`)."""
    wrapped = inspect.unwrap(value) if isinstance(value, types.FunctionType) else value  # type: ignore[arg-type]
    defined_in = (getattr(wrapped, "__module__", None) or "builtins").partition(".")[0]
    if module_name.partition(".")[0] == "torch":
        return defined_in == "torch"
    return defined_in in sys.stdlib_module_names


def requires_no_argument(dotted: str) -> bool:
    module_name, _, attribute = dotted.rpartition(".")
    try:
        parameters = inspect.signature(getattr(importlib.import_module(module_name), attribute)).parameters.values()
    except (TypeError, ValueError):  # no signature to read: take it as needing arguments
        return False
    return all(p.default is not p.empty or p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD) for p in parameters)


def refused(dotted: str, gb_id: str) -> bool:
    if gb_id in REFUSED_FOR_ANY_ARGUMENTS:
        return True
    return gb_id.startswith("GB") and gb_id != RAISED_BY_THE_CALL and requires_no_argument(dotted)


def candidates() -> list[str]:
    found: dict[int, str] = {}
    for module_name in [*candidate_modules(), *torch_modules()]:
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                module = importlib.import_module(module_name)
        except Exception:  # a module this platform lacks has nothing to enter
            continue
        for attribute in sorted(public_names(module)):
            value = getattr(module, attribute, None)
            if attribute.startswith("_") or value is None:
                continue
            with contextlib.suppress(Exception):  # an object that fails to say what it is is not one
                if is_context_manager(value) and _defined_in(value, module_name):
                    kept = found.get(id(value), "").rpartition(".")[0]
                    if not kept or (_stdlib_home(value) == module_name != kept):
                        found[id(value)] = f"{module_name}.{attribute}"
    return sorted(found.values())


def public_names(module: types.ModuleType) -> set[str]:
    """The module's names, and those of the module it wraps: `torch.backends` and its `mkldnn`,
    `opt_einsum`, ... are wrapper modules whose `dir()` lists none of their functions (`flags`,
    `verbose`); the module in their `m` holds them."""
    wrapped = getattr(module, "m", None)
    return set(dir(module)) | (set(dir(wrapped)) if isinstance(wrapped, types.ModuleType) else set())


def _stdlib_home(value: object) -> str | None:
    """The standard-library module a class is defined for (`io` for `_io.BytesIO`): its name in the
    table, as code spells it, rather than the first module that re-exports it (`cgi.BytesIO`).
    None for torch's, whose defining modules (`torch.autograd.grad_mode`) are not how code spells
    them (`torch.no_grad`)."""
    home = (getattr(value, "__module__", None) or "").lstrip("_")
    return None if home.partition(".")[0] == "torch" else home


def measure(dotted: str, by_type: dict[str, str]) -> str:
    """The graph-break id Dynamo refuses `with dotted():` with; `traced`, or `error` for an
    exception that is not a graph break."""
    return refusal(dotted, "with module.{attribute}():\n    y = y + 1", by_type)


def build() -> tuple[str, dict[str, str], dict[str, str]]:
    import torch

    by_type = gb_ids_by_type()
    measured = {dotted: measure(dotted, by_type) for dotted in candidates()}
    entered = {dotted: gb for dotted, gb in measured.items() if refused(dotted, gb)}
    others = {dotted: gb for dotted, gb in measured.items() if dotted not in entered}
    return torch.__version__.split("+")[0], entered, others


def render(version: str, refused: dict[str, str], others: dict[str, str]) -> str:
    return f'''"""Generated by benchmarks/context_managers.py from torch {version}; do not edit.

Context managers a traced frame cannot enter: each measured as `with module.name():` in a frame
compiled with `fullgraph=True` and refused with the id given (why it was refused; at the `with`
line Dynamo reports GB0142, or that id when the construction itself breaks).
`NOT_REFUSED` holds the other candidates with what the measurement gave (traced, or a failure
the arguments decide).
"""

TORCH_VERSION = "{version}"

UNENTERABLE_CONTEXT_MANAGERS: dict[str, str] = {{
{render_entries(refused)}
}}

NOT_REFUSED: dict[str, str] = {{
{render_entries(others)}
}}
'''


def main() -> int:
    return write_or_check(__doc__.splitlines()[0], TABLE, lambda: render(*build()))


if __name__ == "__main__":
    sys.exit(main())
