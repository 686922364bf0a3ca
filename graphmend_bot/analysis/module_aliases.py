"""Module-level aliases of imported names: `_gb = torch._dynamo.graph_break`, `Tensor = torch.Tensor`.

Such a name holds the very object the import names, so a call through it is the call it aliases:
Dynamo breaks on `_gb()` exactly as on `torch._dynamo.graph_break()` (GB0025, measured on torch 2.13
in benchmarks/spellings/pm_graph_break_alias.py and tests/coverage_probes/gb0025_graph_break_alias.py).
Only a name bound once in the whole module, by a top-level assignment of a dotted name whose head
is imported, and never declared `global` in a function, is taken: any other binding (a second
assignment, a loop target, a `def`, an assignment under `if`/`try`) may leave it holding
something else when traced code calls it.
"""

from __future__ import annotations

import ast
import bisect
from collections import Counter
from collections.abc import Callable, Iterable

from graphmend_bot.vocabulary.dotted_names import dotted_name


def module_aliases(
    tree: ast.Module, resolve: Callable[[ast.expr], str | None], imported: set[str], lines: list[str]
) -> dict[str, str]:
    """name -> the qualified name it aliases, for each top-level `NAME = dotted.name` that is the
    name's only binding in the module (`imported`: names the imports bind, never taken; `lines`:
    the module's physical lines)."""
    candidates: dict[str, str] = {}
    for statement in tree.body:
        if (
            isinstance(statement, ast.Assign)
            and len(statement.targets) == 1
            and isinstance(target := statement.targets[0], ast.Name)
            and target.id not in imported
            and dotted_name(statement.value) is not None
            and (qualified := resolve(statement.value)) is not None
        ):
            candidates[target.id] = qualified
    if not candidates:
        return {}
    bindings = _bindings(tree, candidates.keys(), lines)
    return {name: qualified for name, qualified in candidates.items() if bindings[name] == 1}


def _bindings(tree: ast.Module, names: Iterable[str], lines: list[str]) -> Counter[str]:
    """How many times each of `names` is bound anywhere in the module; a `global` declaration
    counts twice (a function may rebind it).

    A statement none of whose lines holds one of the names as text binds none of them, and is not
    entered: a whole-module `ast.walk` here was 3% of a summary's instructions on transformers'
    models/, for names most modules write on a few lines only."""
    counts: Counter[str] = Counter()
    wanted = set(names)
    mentioned = [number for number, line in enumerate(lines, 1) if any(name in line for name in wanted)]
    pending: list[ast.AST] = list(tree.body)
    while pending:
        node = pending.pop()
        if isinstance(node, ast.stmt) and not _spans_a_line_of(node, mentioned):
            continue
        pending.extend(ast.iter_child_nodes(node))
        if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)) and node.id in wanted:
            counts[node.id] += 1
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node.name in wanted:
            counts[node.name] += 1
        elif isinstance(node, ast.Global):
            counts.update(2 * [name for name in node.names if name in wanted])
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            counts.update(
                bound
                for alias in node.names
                if (bound := alias.asname or alias.name.partition(".")[0]) in wanted
            )
    return counts


def _spans_a_line_of(statement: ast.stmt, numbers: list[int]) -> bool:
    """Whether one of the sorted line `numbers` lies in `statement`, its decorators included."""
    first = min([statement.lineno, *(d.lineno for d in getattr(statement, "decorator_list", ()))])
    at = bisect.bisect_left(numbers, first)
    return at < len(numbers) and numbers[at] <= (statement.end_lineno or statement.lineno)
