"""What a compile guard is worth under `torch.compile`: torch's own predicates by their exact
name, a project's helper by its body.

Measured on torch 2.13.0 (tests/test_compile_guards.py): `torch.compiler.is_compiling()` is True
while TorchDynamo traces for `torch.compile`; `torch.compiler.is_exporting()` is False there (it is
True only under `torch.export`), so code in the `else` of an export guard is traced. On torch 2.11
and earlier `is_exporting()` was True inside `torch.compile` too: there the `else` was eager-only.
The analysis targets torch 2.13.

Libraries wrap these predicates in helpers of their own (`is_torchdynamo_compiling`, kornia's
`is_exporting`), so a helper is judged by what it returns: `return torch.compiler.is_compiling()`
makes a compile guard, `return torch.onnx.is_in_onnx_export()` or `torch.jit.is_scripting()` does
not. The body is found in the same module, or in the module of the checked package it is imported
from (one file read and parsed once per process, only for calls with a guard's name). A body
whose returns disagree or cannot be judged falls back to the name: the `is_compiling` family is
taken as a compile guard (the convention transformers and others follow), `is_exporting` as an
ordinary condition whose both arms are analysed.
"""

from __future__ import annotations

import ast
import functools
import os
from collections.abc import Callable

from graphmend_bot.analysis.files import read_source, text_digest
from graphmend_bot.vocabulary.dotted_names import dotted_name

# Exact torch predicates and their value while TorchDynamo traces for torch.compile (torch 2.13).
TORCH_PREDICATES: dict[str, bool] = {
    "torch.compiler.is_compiling": True,
    "torch.compiler.is_dynamo_compiling": True,
    "torch._dynamo.is_compiling": True,
    "torch._dynamo.external_utils.is_compiling": True,
    "torch._utils.is_compiling": True,
    "torch.compiler.is_exporting": False,  # True under torch.compile on torch <= 2.11
    "torch.onnx.is_in_onnx_export": False,
    "torch.jit.is_tracing": False,
    "torch.jit.is_scripting": False,
    "torch._C._get_tracing_state": False,
}
# Names helpers give compile guards: True by convention when the body cannot be judged.
COMPILING_NAMES = frozenset({"is_compiling", "is_torchdynamo_compiling", "is_dynamo_compiling"})
EXPORTING_NAMES = frozenset({"is_exporting"})
# transformers' `is_tracing(tensor=None)` ORs `is_torchdynamo_compiling()` with jit/fx/fake-tensor
# checks: True under torch.compile. By this name only as a plain function (`is_tracing(x)`), which
# may take arguments; `tracer.is_tracing()` of some object is not about compiling.
TRACING_NAMES = frozenset({"is_tracing"})
GUARD_NAMES = COMPILING_NAMES | EXPORTING_NAMES

Resolve = Callable[[ast.expr], "str | None"]
FunctionNode = ast.FunctionDef | ast.AsyncFunctionDef
_MAX_DEPTH = 3  # helpers calling helpers: enough for real wrappers, bounded for cycles


class GuardHelpers:
    """Values of guard-named helpers of one module, judged by their bodies (cached)."""

    def __init__(self, path: str, module: str, is_package: bool, functions: dict[str, FunctionNode], resolve: Resolve,
                 classes: frozenset[str] = frozenset()) -> None:
        self._functions = functions  # the module's top-level functions by name
        self._classes = classes  # the module's top-level class names
        self._resolve = resolve
        self.package = module.partition(".")[0]  # the top-level package the module belongs to
        self._root = package_root(path, module, is_package)
        self._values: dict[str, bool | None] = {}
        # The files of other modules looked for or read to judge helpers: the summary depends on
        # their text too, so a cached summary is checked against them (`read_files`).
        self.read: set[str] = set()

    def owns(self, package: str) -> bool:
        """Whether the module belongs to `package`. A module-function hook (detect.py) stands for a
        library helper whose body is not checked (transformers' `torch_compilable_check` called from
        user code); inside that library the body is analysed like any callee, and Dynamo reports the
        break there, at the helper's line, not at the call."""
        return self.package == package

    def tree_class(self, qualified: str) -> bool:
        """Whether a class name, as an annotation resolves it, is the tree's: a class of this module
        (a bare name no import binds) or one imported from the module's own package."""
        return qualified in self._classes or ("." in qualified and qualified.partition(".")[0] == self.package)

    def function(self, name: str) -> FunctionNode | None:
        """The module's top-level function `name` (narrowing.py reads predicate helpers' bodies)."""
        return self._functions.get(name)

    def value(self, call: ast.Call, depth: int = 0) -> bool | None:
        """The value under torch.compile of a call with no arguments, or None when not decided."""
        func = call.func
        resolved = self._resolve(func)
        # A helper of this module is judged by its body whatever its name (`def _compiling(): return
        # torch.compiler.is_compiling()`, measured: tests/test_compile_guards.py); only the guard
        # names fall back to the convention when the body decides nothing.
        local = func.id if resolved is None and isinstance(func, ast.Name) and func.id in self._functions else None
        # Other names only when the body is nothing but its decision: Dynamo inlines a helper with a side
        # effect (`print`) or a decorator (`@torch.compiler.disable`) otherwise, and breaks in it; the call
        # then runs eagerly, where it is False (measured: tests/test_guard_helper_names.py).
        if local is not None and (local in GUARD_NAMES or local in TRACING_NAMES or _only_decides(self._functions[local])):
            return self._local(local, depth)
        name = resolved or dotted_name(func)
        if name is None:
            return None
        if name in TORCH_PREDICATES:
            return TORCH_PREDICATES[name]
        # The name it is defined with, and the one it is called by (`import x as is_compiling`).
        leaves = {name.rsplit(".", 1)[-1], (dotted_name(func) or "").rsplit(".", 1)[-1]}
        if isinstance(func, ast.Name) and func.id in TRACING_NAMES:
            leaves.add(func.id)
        else:
            leaves -= TRACING_NAMES
        if not leaves & (GUARD_NAMES | TRACING_NAMES) or name.startswith("torch."):
            return None
        judged = self._imported(name, depth) if resolved is not None else None
        return judged if judged is not None else _by_name(*leaves)

    def _local(self, name: str, depth: int) -> bool | None:
        if name not in self._values:
            self._values[name] = None  # a recursive helper decides nothing
            judged = _judge(self._functions[name], self, depth + 1)
            self._values[name] = judged if judged is not None else _by_name(name)
        return self._values[name]

    def _imported(self, qualified: str, depth: int) -> bool | None:
        if self._root is None or depth >= _MAX_DEPTH:
            return None
        value, read = _judge_imported(self._root, qualified, depth)
        self.read.update(read)
        return value

    def has_module(self, module: str) -> bool | None:
        """Whether the checked package holds `module` as a file (None for a loose script); the
        places looked at join `read`, so a file created there later invalidates the summary."""
        return None if self._root is None else module_file(self._root, module, self.read) is not None

    def read_files(self) -> tuple[tuple[str, str], ...]:
        """(path relative to the package root, sha256 of its text or "" when absent) of each file
        of `read`, as ModuleSummary.read_files keeps them."""
        if self._root is None:
            return ()
        return tuple(sorted((os.path.relpath(path, self._root).replace(os.sep, "/"), file_digest(path))
                            for path in self.read))

    @classmethod
    def detached(cls, resolve: Resolve) -> GuardHelpers:
        """Torch's predicates and the name convention only: no module bodies to follow."""
        return cls("", "", False, {}, resolve)


@functools.lru_cache(maxsize=256)
def _judge_imported(root: str, qualified: str, depth: int) -> tuple[bool | None, frozenset[str]]:
    """A helper of another module of the tree, judged once per process; and the files looked for."""
    read: set[str] = set()
    found = _find_function(root, qualified, read)
    if found is None:
        return None, frozenset(read)
    node, module_path, module = found
    helpers = GuardHelpers(
        module_path, module, module_path.endswith("__init__.py"), _top_level(module_path),
        _imports_of(module_path, module),
    )
    value = _judge(node, helpers, depth + 1)
    return value, frozenset(read | helpers.read)


def forget_files() -> None:
    """Drop what was read and judged in other files: each run reads them afresh (a process that
    checks twice, as tests and the fixer do, must see the files as they are now)."""
    _judge_imported.cache_clear()
    _parsed.cache_clear()
    file_digest.cache_clear()


@functools.lru_cache(maxsize=256)
def file_digest(path: str) -> str:
    """The sha256 of a file's text as the summary cache hashes it; "" when it cannot be read.
    Once per run (forget_files): hundreds of modules judge the same helpers' files."""
    try:
        return text_digest(read_source(path))
    except ValueError:
        return ""


def is_tracing_call(call: ast.Call) -> bool:
    """`is_tracing(x)`: a guard that takes the tensor it asks about (TRACING_NAMES)."""
    return isinstance(call.func, ast.Name) and call.func.id in TRACING_NAMES


def _by_name(*names: str) -> bool | None:
    return True if COMPILING_NAMES.intersection(names) or TRACING_NAMES.intersection(names) else None


# Decorators Dynamo traces through to the body (measured: `functools.lru_cache` inlines `__wrapped__`).
_TRANSPARENT_DECORATORS = frozenset({"functools.lru_cache", "functools.cache", "lru_cache", "cache"})


def _only_decides(node: FunctionNode) -> bool:
    """A helper whose body is only `if`s, `return`s and stores without calls (a docstring, `global`),
    under no decorator but a cache."""
    return all(dotted_name(d.func if isinstance(d, ast.Call) else d) in _TRANSPARENT_DECORATORS
               for d in node.decorator_list) and _decides(node.body)


def _decides(body: list[ast.stmt]) -> bool:
    return all(
        isinstance(s, (ast.Return, ast.Pass, ast.Global, ast.Nonlocal))
        or (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant))
        or (isinstance(s, (ast.Assign, ast.AugAssign, ast.AnnAssign))
            and not any(isinstance(n, ast.Call) for n in ast.walk(s)))
        or (isinstance(s, ast.If) and _decides(s.body) and _decides(s.orelse))
        for s in body
    )


def _judge(node: FunctionNode, helpers: GuardHelpers, depth: int) -> bool | None:
    """The one value every reachable `return` of a helper gives under compile, else None."""
    values: list[bool | None] = []
    _returns(node.body, helpers, depth, values)
    return values[0] if values and all(v is values[0] for v in values) and values[0] is not None else None


def _returns(body: list[ast.stmt], helpers: GuardHelpers, depth: int, values: list[bool | None]) -> bool:
    """Collect the values of the `return`s reachable under compile; True when `body` always returns."""
    for statement in body:
        if isinstance(statement, ast.Return):
            values.append(_expression(statement.value, helpers, depth))
            return True
        if isinstance(statement, ast.If):
            decided = _expression(statement.test, helpers, depth)
            if decided is True and _returns(statement.body, helpers, depth, values):
                return True
            if decided is False and _returns(statement.orelse, helpers, depth, values):
                return True
            if decided is None:
                body_returns = _returns(statement.body, helpers, depth, values)
                if _returns(statement.orelse, helpers, depth, values) and body_returns:
                    return True
        elif isinstance(statement, ast.Try):
            for part in (statement.body, *(h.body for h in statement.handlers), statement.orelse):
                _returns(part, helpers, depth, values)
        elif isinstance(statement, (ast.With, ast.For, ast.While)):
            _returns(statement.body, helpers, depth, values)
    return False


def _expression(node: ast.expr | None, helpers: GuardHelpers, depth: int) -> bool | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, bool):
        return node.value
    if isinstance(node, ast.Call) and not node.args and not node.keywords:
        return helpers.value(node, depth)
    if isinstance(node, ast.Call) and dotted_name(node.func) == "bool" and len(node.args) == 1:
        return _expression(node.args[0], helpers, depth)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        inner = _expression(node.operand, helpers, depth)
        return None if inner is None else not inner
    return None


def package_root(path: str, module: str, is_package: bool) -> str | None:
    """The folder the module's dotted name is relative to; None for a loose script."""
    if "@" in module or not module or not path:
        return None
    levels = module.count(".") + (1 if is_package else 0)
    root = os.path.dirname(os.path.abspath(path))
    for _ in range(levels):
        root = os.path.dirname(root)
    return root


def module_file(root: str, module: str, read: set[str]) -> str | None:
    """The file of `module`; each place looked at joins `read` (a file created there later matters)."""
    base = os.path.join(root, *module.split("."))
    for candidate in (base + ".py", os.path.join(base, "__init__.py")):
        read.add(candidate)
        if os.path.isfile(candidate):
            return candidate
    return None


def _find_function(root: str, qualified: str, read: set[str], hops: int = 3) -> tuple[FunctionNode, str, str] | None:
    """The top-level def `qualified` names in the tree, following `from .x import name` re-exports."""
    module, _, name = qualified.rpartition(".")
    path = module_file(root, module, read) if module else None
    if path is None:
        return None
    node = _top_level(path).get(name)
    if node is not None:
        return node, path, module
    reexport = _imports_of(path, module)(ast.Name(id=name))
    if hops and reexport is not None and reexport != qualified:
        return _find_function(root, reexport, read, hops - 1)
    return None


@functools.lru_cache(maxsize=64)
def _parsed(path: str) -> ast.Module | None:
    try:
        return ast.parse(read_source(path), filename=path)
    except (ValueError, SyntaxError, RecursionError):
        return None


def _top_level(path: str) -> dict[str, FunctionNode]:
    tree = _parsed(path)
    if tree is None:
        return {}
    return {s.name: s for s in tree.body if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef))}


def _imports_of(path: str, module: str) -> Resolve:
    """A resolver for the names a module imports (the same rules as the summary's Imports)."""
    from graphmend_bot.analysis.summary import Imports  # summary imports this module

    imports = Imports(module, path.endswith("__init__.py"))
    tree = _parsed(path)
    for statement in tree.body if tree is not None else []:
        if isinstance(statement, (ast.Import, ast.ImportFrom)):
            imports.add(statement)
    return imports.resolve


def compile_guard_value(
    test: ast.expr, resolve: Resolve, known: dict[str, bool] | None = None,
    helpers: GuardHelpers | None = None,
) -> bool | None:
    """The value of `test` while TorchDynamo traces, when a compile guard decides it.

    `known` maps local names assigned from such a test (`is_tracing = ... or is_compiling()`);
    `helpers` judges the module's guard-named helpers by their bodies (analysis/guards.py).
    """
    if isinstance(test, ast.Name):
        return known.get(test.id) if known else None
    if isinstance(test, ast.Call) and (not test.args or is_tracing_call(test)):
        return (helpers or GuardHelpers.detached(resolve)).value(test)
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        value = compile_guard_value(test.operand, resolve, known, helpers)
        return None if value is None else not value
    if isinstance(test, ast.BoolOp):
        values = [compile_guard_value(v, resolve, known, helpers) for v in test.values]
        decisive = isinstance(test.op, ast.Or)  # True decides `or`, False decides `and`
        if decisive in values:
            return decisive
        if all(v is (not decisive) for v in values):
            return not decisive
    return None


def evaluated_before_guard(
    test: ast.expr, resolve: Resolve, known: dict[str, bool] | None = None,
    helpers: GuardHelpers | None = None,
) -> list[ast.expr]:
    """The operands of `test` that run under compile although a compile guard decides it: `and`
    and `or` evaluate left to right, so `x.min() < 0 and not is_compiling()` still converts
    `x.min() < 0` to a bool, where `not is_compiling() and x.min() < 0` stops at the guard."""
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        return evaluated_before_guard(test.operand, resolve, known, helpers)
    if not isinstance(test, ast.BoolOp):
        return []
    decisive = isinstance(test.op, ast.Or)  # True ends `or`, False ends `and`
    evaluated: list[ast.expr] = []
    for value in test.values:
        guard = compile_guard_value(value, resolve, known, helpers)
        if guard is None:
            evaluated.append(value)
            continue
        evaluated.extend(evaluated_before_guard(value, resolve, known, helpers))
        if guard is decisive:
            break
    return evaluated


def without_guards(
    test: ast.expr, resolve: Resolve, known: dict[str, bool] | None = None,
    helpers: GuardHelpers | None = None,
) -> ast.expr:
    """`test` as Dynamo evaluates it, when compile guards inside it do not decide it whole: an
    operand a guard makes neutral is dropped (True in `and`, False in `or`), and operands after
    a decisive one never run. `padding_mask is not None and is_tracing(padding_mask)` is
    `padding_mask is not None` under compile, so after `if ...: return` the rest of the function
    runs with `padding_mask` None (narrowing.py). The same node when nothing is dropped."""
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        inner = without_guards(test.operand, resolve, known, helpers)
        return test if inner is test.operand else ast.copy_location(ast.UnaryOp(op=ast.Not(), operand=inner), test)
    if not isinstance(test, ast.BoolOp):
        return test
    neutral = isinstance(test.op, ast.And)
    kept: list[ast.expr] = []
    for value in test.values:
        guard = compile_guard_value(value, resolve, known, helpers)
        if guard is neutral:
            continue
        kept.append(value if guard is not None else without_guards(value, resolve, known, helpers))
        if guard is not None:
            break  # decisive: what follows never runs
    if len(kept) == len(test.values) and all(k is v for k, v in zip(kept, test.values)):
        return test
    if len(kept) == 1:
        return kept[0]
    return ast.copy_location(ast.BoolOp(op=test.op, values=kept), test) if kept else test
