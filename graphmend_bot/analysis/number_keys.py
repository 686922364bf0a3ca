"""String keys a module's dicts hold Python numbers under, whatever else the dict holds.

A helper returning `{"positive": (x > 0).sum(), "size": x.shape[0]}` makes its caller's dict a
tensor-holding value, but `int(c["size"])` reads the Python int: Dynamo traces it (measured on
torch 2.13, benchmarks/spellings/dd_helper_containers.py). A key counts when every dict display
(`{...}`, nested ones too) and every store `NAME["key"] = v` of the module that names it gives it a
number written out or a size (`tensor_rank.python_number`); one other value anywhere drops it.
The displays read are a statement's value, the displays listed in it (`self.specs = [{"j": 1,
"w": w}, ...]`) and those passed to a call (`specs.append({...})`, `d.update({...})`): a list of
filter specs indexed `spec["j"]` in traced code reads the int (measured on torch 2.13,
tests/test_kind_precision.py), and a tensor given the key in any of them drops it.
"""

from __future__ import annotations

import ast

from graphmend_bot.analysis.local_nodes import every_node
from graphmend_bot.analysis.tensor_rank import python_number


class NumberKeys:
    """Collects, statement by statement, the keys given numbers and those given anything else."""

    def __init__(self) -> None:
        self._numbers: set[str] = set()
        self._others: set[str] = set()

    def read(self, stmt: ast.stmt) -> None:
        if isinstance(stmt, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
            targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
            for target in targets:
                if isinstance(target, ast.Subscript) and (stored := _string(target.slice)) is not None:
                    self._given(stored, stmt.value)
        value = getattr(stmt, "value", None)
        if isinstance(value, ast.Dict):  # `return {...}`, `c = {...}`: displays nested in it too
            self._display(value)
        elif isinstance(value, (ast.List, ast.Tuple, ast.Set)):  # `[{...}, {...}]`
            for element in value.elts:
                if isinstance(element, ast.Dict):
                    self._display(element)
        elif isinstance(value, ast.Call):  # `specs.append({...})`, `d.update({...})`
            for argument in value.args:
                if isinstance(argument, ast.Dict):
                    self._display(argument)

    def _display(self, value: ast.Dict) -> None:
        for display in every_node(value):  # ast.walk's nodes less contexts and operators, faster
            if isinstance(display, ast.Dict):
                for key, item in zip(display.keys, display.values, strict=True):
                    if key is not None and (written := _string(key)) is not None:
                        self._given(written, item)

    def _given(self, key: str, value: ast.expr | None) -> None:
        (self._numbers if value is not None and python_number(value) else self._others).add(key)

    def keys(self) -> frozenset[str]:
        return frozenset(self._numbers - self._others)


def _string(node: ast.expr) -> str | None:
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None
