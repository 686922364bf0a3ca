"""Write graphmend_bot/vocabulary/torch_aliases.py: the public spellings of the torch functions the
skipped-call tables list under another name, found by object identity in the installed torch.

    python benchmarks/torch_aliases.py           # (re)write the table (seconds)
    python benchmarks/torch_aliases.py --check   # exit 1 when the table is out of date

Dynamo decides what to skip by the function object (`trace_rules.lookup`), not by the name the code
wrote, so every name bound to a listed function breaks as the listed one does: the private
`torch.utils.data._utils.collate.default_collate` is measured in vocabulary/skipped_torch_callees.py
(GM640), and libraries call it as `torch.utils.data.default_collate`; GM604 lists `torch.initial_seed`
and `torch.cuda.manual_seed`, which libraries also write `torch.random.initial_seed` and
`torch.cuda.random.manual_seed`. Aliases: each public attribute of a public torch module (no
`_part` after `torch`) that a fresh `import torch, torch._dynamo` loads, whose value is the very
function (a Python or C function: classes and bound methods have other spellings' own rules) a
table entry resolves to, and that no table lists itself. No measurement is needed beyond the entry's
own: the object is the same; tests/test_torch_aliases.py runs samples through Dynamo anyway.
"""

from __future__ import annotations

import json
import subprocess
import sys
import types
import warnings
from collections.abc import Iterable
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "benchmarks"))
sys.path.insert(0, str(REPO))

from generated_table import write_or_check  # noqa: E402

TABLE = REPO / "graphmend_bot" / "vocabulary" / "torch_aliases.py"
LOADED = "import json, sys, torch, torch._dynamo; print(json.dumps(sorted(sys.modules)))"
FUNCTIONS = (types.FunctionType, types.BuiltinFunctionType)


def _resolve(dotted: str) -> object | None:
    """The object `dotted` names, from the longest module prefix already imported."""
    parts = dotted.split(".")
    for split in range(len(parts) - 1, 0, -1):
        module = sys.modules.get(".".join(parts[:split]))
        if module is None:
            continue
        value: object = module
        for part in parts[split:]:
            value = getattr(value, part, None)
            if value is None:
                return None
        return value
    return None


def public_modules() -> list[str]:
    """torch and its public modules that a fresh `import torch, torch._dynamo` loads."""
    loaded = json.loads(
        subprocess.run([sys.executable, "-c", LOADED], capture_output=True, text=True, check=True).stdout
    )
    return [
        name for name in loaded
        if (name == "torch" or name.startswith("torch.")) and not any(part.startswith("_") for part in name.split(".")[1:])
    ]


def aliases(names: Iterable[str], listed: set[str], modules: list[str]) -> dict[str, str]:
    """Each public spelling of a function among `names` that `listed` does not hold, with the name."""
    by_object: dict[int, str] = {}
    for name in sorted(names):
        value = _resolve(name)
        if isinstance(value, FUNCTIONS):
            by_object.setdefault(id(value), name)
    found: dict[str, str] = {}
    with warnings.catch_warnings():  # a deprecated alias warns when read
        warnings.simplefilter("ignore")
        for module_name in modules:
            module = sys.modules.get(module_name)
            for attribute in sorted(vars(module)) if module is not None else ():
                value = getattr(module, attribute, None)
                spelling = f"{module_name}.{attribute}"
                if (not attribute.startswith("_") and isinstance(value, FUNCTIONS) and id(value) in by_object
                        and spelling not in listed):
                    found[spelling] = by_object[id(value)]
    return found


def build() -> tuple[str, dict[str, str], dict[str, str]]:
    import torch
    import torch._dynamo  # the modules a fresh import loads

    from graphmend_bot.vocabulary.known_names import UNTRACEABLE_CALLS
    from graphmend_bot.vocabulary.skipped_torch_callees import SKIPPED_TORCH_CALLEES

    modules = public_modules()
    for name in modules:  # the same modules whatever this process imported before
        if name not in sys.modules:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                __import__(name)
    listed = set(SKIPPED_TORCH_CALLEES) | set(UNTRACEABLE_CALLS)
    untraceable = aliases((name for name in UNTRACEABLE_CALLS if name.startswith("torch.")), listed, modules)
    skipped = aliases(SKIPPED_TORCH_CALLEES, listed | set(untraceable), modules)
    return torch.__version__.split("+")[0], untraceable, skipped


def _entries(table: dict[str, str]) -> str:
    return "\n".join(f'    "{alias}": "{name}",' for alias, name in sorted(table.items()))


def render(version: str, untraceable: dict[str, str], skipped: dict[str, str]) -> str:
    return f'''"""Generated by benchmarks/torch_aliases.py from torch {version}; do not edit.

The public spellings of the functions the skipped-call tables list under another name: the same
function object, so Dynamo (which looks the object up) skips them as it skips the listed name.
`UNTRACEABLE_ALIASES`: of GM604's torch entries (vocabulary/known_names.py UNTRACEABLE_CALLS);
`SKIPPED_TORCH_ALIASES`: of GM640's private torch functions (vocabulary/skipped_torch_callees.py).
"""

TORCH_VERSION = "{version}"

UNTRACEABLE_ALIASES: dict[str, str] = {{
{_entries(untraceable)}
}}

SKIPPED_TORCH_ALIASES: dict[str, str] = {{
{_entries(skipped)}
}}
'''


def main() -> int:
    return write_or_check(__doc__.splitlines()[0], TABLE, lambda: render(*build()))


if __name__ == "__main__":
    sys.exit(main())
