"""Proofs, read from one function's code, that a name holds a Python value and not a tensor.

Evidence of four kinds, all syntactic and cheap (no second traversal):

- `x is None` tests: in the arm where a parameter is None, nothing derived from it is a tensor,
  and a later `x is None` is decided there (Dynamo traces it as a constant): after
  `if is_tracing(x) and x is not None: return` (a compile guard decided, analysis/guards.py) the rest
  runs with `x` None, and `x is None or x.all()` never reaches `x.all()`.
- `isinstance` tests: in the arm where `isinstance(x, (int, float))` holds, or where
  `isinstance(x, torch.Tensor)` (or `torch.is_tensor(x)`) fails, `x` is not a tensor. That is a
  proof, whatever `x` was; it holds in the `if` arms and in the operands of `and`/`or` after the test.
  A module function returning such a test of its first argument (`def is_int(x): return
  isinstance(x, int)`, and `return is_int(x) and x > 0` calling it) proves the same when called.
- A None-defaulted parameter whose None is replaced by a Python value, `p = default(p, self.flag)`
  (the lucidrains helper), `p = p if p is not None else 4`, `p = 4 if p is None else p`: the
  fallback says which type the author passes there, so the parameter is a flag, not a mask.
- A None-defaulted parameter passed as is where a torch function takes a Python number
  (`torch.topk(x, k=k)`, `F.dropout(x, p)`: GM305's table): an optional number, not a tensor.
- A None-defaulted parameter of a forward whose truth the body tests bare (`if in_buffers:`, `if not
  cache`, `y if flag else z`) and never rebinds: a tensor's truth raises unless it has one element,
  so the author passes a list, a flag or None there. It is then no tensor by assumption; a caller
  that passes a tensor still makes it one (`optional_parameter_evidence`).
"""

from __future__ import annotations

import ast
from collections import Counter
from collections.abc import Callable, Iterable

from graphmend_bot.analysis.local_nodes import every_node, local_nodes
from graphmend_bot.vocabulary.kind import NOT_TENSOR, Kind
from graphmend_bot.vocabulary.scalar_parameters import SCALAR_PARAMETERS

# isinstance targets that no tensor is an instance of.
PYTHON_TYPES = frozenset({
    "int", "float", "bool", "complex", "str", "bytes", "list", "tuple", "dict", "set",
    "frozenset", "slice", "range", "numbers.Number", "numbers.Real", "numbers.Integral",
    "numbers.Complex",
})
TENSOR_TYPES = frozenset({"torch.Tensor", "Tensor", "torch.nn.Parameter", "nn.Parameter", "Parameter"})

# Helpers of the form `return val if exists(val) else d`, by the name research code gives them.
FALLBACK_HELPERS = frozenset({"default"})

Resolve = Callable[[ast.expr], "str | None"]
# What a name holds on a path where it is known to be None: empty as NOT_TENSOR is, told apart by
# identity (merges keep it only where every arm does: statement_forms.merge_into).
NONE_VALUE = Kind()


# The module's top-level functions by name (a local predicate helper's body is read).
Functions = Callable[[str], "ast.FunctionDef | ast.AsyncFunctionDef | None"]
_PREDICATE_DEPTH = 3  # helpers calling helpers (`is_positive_int` -> `is_int`)


def isinstance_arm(
    test: ast.expr, resolve: Resolve, builtin: Resolve, functions: Functions | None = None
) -> tuple[str, bool] | None:
    """(`x`, True) when `x` is not a tensor in the `if` body of `test`, (`x`, False) when it is not
    one in the `else` arm; None when the test proves neither. `builtin`: the builtin a callee is
    unless a binding hides it (FunctionState.builtin_of: a local `isinstance = ...` proves nothing).
    `functions`: the module's own, so that a predicate helper (`def is_int(x): return
    isinstance(x, int)`) called as `is_int(x)` proves it."""
    tested = _isinstance_test(test, resolve, builtin)
    if tested is not None:
        return tested[0], tested[1]
    negated = False
    while isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        negated, test = not negated, test.operand
    if functions is None or not (isinstance(test, ast.Call) and isinstance(test.func, ast.Name)
                                 and test.args and isinstance(test.args[0], ast.Name)):
        return None
    if resolve(test.func) is None and _python_predicate(test.func.id, functions, builtin, _PREDICATE_DEPTH):
        return test.args[0].id, not negated
    return None


def _python_predicate(name: str, functions: Functions, builtin: Resolve, depth: int) -> bool:
    """Whether module function `name` returns True only for a first argument that is no tensor:
    its body (a docstring aside) is `return E`, E an isinstance test of it on Python types, or an
    `and` with such an operand, or a call of another such helper on it. `builtin`: the caller's,
    whose module-level bindings are the helper's too."""
    node = functions(name)
    if node is None or depth == 0 or not node.args.args:
        return False
    body = node.body[1:] if node.body and isinstance(node.body[0], ast.Expr) else node.body
    if len(body) != 1 or not isinstance(body[0], ast.Return) or body[0].value is None:
        return False
    param = node.args.args[0].arg
    value = body[0].value
    operands = value.values if isinstance(value, ast.BoolOp) and isinstance(value.op, ast.And) else [value]
    for operand in operands:
        if not (isinstance(operand, ast.Call) and operand.args and _is_name(operand.args[0], param)):
            continue
        tested = _isinstance_test(operand, lambda node: None, builtin)
        if tested is not None and tested[1]:
            return True
        if isinstance(operand.func, ast.Name) and _python_predicate(operand.func.id, functions, builtin, depth - 1):
            return True
    return False


def tensor_arm(test: ast.expr, resolve: Resolve, builtin: Resolve) -> tuple[str, bool] | None:
    """(`x`, True) when `isinstance(x, torch.Tensor)` holds in the `if` body, (`x`, False) when it
    holds in the `else` arm: there `x` is a tensor exactly when what reached it is one."""
    tested = _isinstance_test(test, resolve, builtin)
    if tested is None or not tested[2]:
        return None
    return tested[0], not tested[1]


def _isinstance_test(test: ast.expr, resolve: Resolve, builtin: Resolve) -> tuple[str, bool, bool] | None:
    """(`x`, whether `x` is not a tensor in the body (else: in the `else` arm), whether the types
    tested are tensor types) for an `isinstance(x, ...)` test, possibly negated."""
    negated = False
    while isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        negated, test = not negated, test.operand
    if _is_tensor_test(test, resolve):  # `torch.is_tensor(x)` is `isinstance(x, torch.Tensor)`
        assert isinstance(test, ast.Call) and isinstance(test.args[0], ast.Name)
        return test.args[0].id, negated, True
    if not (
        isinstance(test, ast.Call)
        and isinstance(test.func, ast.Name)
        and test.func.id == "isinstance"  # the name first: asking for shadows walks the function
        and builtin(test.func) == "isinstance"
        and len(test.args) == 2
        and not test.keywords
        and isinstance(test.args[0], ast.Name)
    ):
        return None
    types = test.args[1].elts if isinstance(test.args[1], ast.Tuple) else [test.args[1]]
    names = [_type_name(node, resolve) for node in types]
    if all(name in PYTHON_TYPES for name in names):
        python_in_body = True
    elif all(name in TENSOR_TYPES for name in names):
        python_in_body = False
    else:
        return None
    return test.args[0].id, python_in_body != negated, not python_in_body


def _is_tensor_test(test: ast.expr, resolve: Resolve) -> bool:
    return (
        isinstance(test, ast.Call)
        and resolve(test.func) == "torch.is_tensor"
        and len(test.args) == 1
        and not test.keywords
        and isinstance(test.args[0], ast.Name)
    )


def short_circuit_python(
    operand: ast.expr, op: ast.boolop, resolve: Resolve, builtin: Resolve, functions: Functions | None = None
) -> str | None:
    """The name an operand of `and`/`or` proves not a tensor in the operands after it: those run
    only when `not torch.is_tensor(x)` or `isinstance(x, int)` held (`and`), or failed (`or`)."""
    tested = isinstance_arm(operand, resolve, builtin, functions)
    if tested is None:
        return None
    name, python_when_true = tested
    return name if python_when_true == isinstance(op, ast.And) else None


def _type_name(node: ast.expr, resolve: Resolve) -> str | None:
    if isinstance(node, ast.Name):
        resolved = resolve(node)
        return node.id if resolved in (None, node.id) else resolved
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
        dotted = f"{node.value.id}.{node.attr}"
        return resolve(node) or dotted
    return None


def python_fallback(name: str, value: ast.expr) -> ast.expr | None:
    """The value that replaces None in `name = default(name, X)` and its spelled-out forms."""
    if (
        isinstance(value, ast.Call)
        and isinstance(value.func, ast.Name)
        and value.func.id in FALLBACK_HELPERS
        and len(value.args) == 2
        and not value.keywords
        and _is_name(value.args[0], name)
    ):
        return value.args[1]
    if isinstance(value, ast.IfExp):
        tested = none_test(value.test)
        if tested is not None and tested[0] == name:
            is_none = tested[1]
            kept, fallback = (value.orelse, value.body) if is_none else (value.body, value.orelse)
            if _is_name(kept, name):
                return fallback
    return None


def none_test(test: ast.expr) -> tuple[str, bool] | None:
    """(`x`, True) for `x is None`, (`x`, False) for `x is not None`."""
    if (
        isinstance(test, ast.Compare)
        and isinstance(test.left, ast.Name)
        and len(test.ops) == 1
        and isinstance(test.ops[0], (ast.Is, ast.IsNot))
        and isinstance(test.comparators[0], ast.Constant)
        and test.comparators[0].value is None
    ):
        return test.left.id, isinstance(test.ops[0], ast.Is)
    return None


def exit_without_exception(function: ast.FunctionDef | ast.AsyncFunctionDef, test: ast.expr) -> bool | None:
    """In a method `__exit__`, whether `test` holds when it is passed no exception, the only way
    Dynamo runs it through a `with` (measured on torch 2.13: `if exc_type is not None: print(...)`
    does not break): True for `exc is None`/`not exc`, False for `exc is not None`/`exc`, None for
    any other test. The arm it never takes is dead code there."""
    params = [arg.arg for arg in function.args.args[1:4]]
    if function.name != "__exit__" or len(params) != 3:
        return None
    tested = none_test(test)
    if tested is not None:
        return tested[1] if tested[0] in params else None
    negated = isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not)
    operand = test.operand if isinstance(test, ast.UnaryOp) and negated else test
    return negated if isinstance(operand, ast.Name) and operand.id in params else None


def narrow_to_none(env: dict[str, Kind], name: str) -> None:
    """On the path where parameter `name` is None, nothing derived from it is a tensor; and `name`
    is known None (NONE_VALUE), so a later `name is None` is decided there, as Dynamo decides it."""
    for key, kind in env.items():
        env[key] = kind.without_param(name)
    env[name] = NONE_VALUE


def proves_none(test: ast.expr) -> tuple[str, bool] | None:
    """(`x`, True) when `test` holding proves `x` None, (`x`, False) when its failing does: as
    none_test, and through `not` and the operands of `and` (each holds when it holds) and `or`
    (each fails when it fails): after `if is_exporting() or x is not None: return`, `x` is None."""
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        inner = proves_none(test.operand)
        return None if inner is None else (inner[0], not inner[1])
    if isinstance(test, ast.BoolOp):
        holding = isinstance(test.op, ast.And)
        return next((p for v in test.values if (p := proves_none(v)) is not None and p[1] is holding), None)
    return none_test(test)


def decided_by_none(test: ast.expr, env: dict[str, Kind]) -> bool | None:
    """The value of `x is None` / `x is not None` (or its `not`) where `x` is known None."""
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        inner = decided_by_none(test.operand, env)
        return None if inner is None else not inner
    tested = none_test(test)
    return tested[1] if tested is not None and env.get(tested[0]) is NONE_VALUE else None


def narrow_where_none(env: dict[str, Kind], test: ast.expr, holding: bool) -> dict[str, Kind]:
    """`env` where `test` is known to hold (`holding`) or to fail: a name it proves None there is
    None (a parameter not rebound: nothing derived from it is a tensor either). A copy when it changes."""
    proven = proves_none(test)
    if proven is None or proven[1] is not holding:
        return env
    name, narrowed = proven[0], dict(env)
    if env.get(name) == Kind.of_param(name):
        narrow_to_none(narrowed, name)
    else:
        narrowed[name] = NONE_VALUE
    return narrowed


def after_operand(
    value: ast.expr, op: ast.boolop, env: dict[str, Kind], resolve: Resolve, builtin: Resolve,
    functions: Functions | None = None,
) -> tuple[dict[str, Kind], bool]:
    """The env the operands after `value` in an `and`/`or` run in (they run where it held, or
    failed), and whether `value` ends the operator already: `x is None or x.all()` where `x` is
    known None never evaluates `x.all()`."""
    is_and = isinstance(op, ast.And)
    if decided_by_none(value, env) is (not is_and):
        return env, True
    if (python_name := short_circuit_python(value, op, resolve, builtin, functions)) is not None:
        env = {**env, python_name: NOT_TENSOR}
    return narrow_where_none(env, value, is_and), False


def _is_name(node: ast.expr, name: str) -> bool:
    return isinstance(node, ast.Name) and node.id == name


def is_none_constant(node: ast.expr | None) -> bool:
    return isinstance(node, ast.Constant) and node.value is None


def optional_parameter_evidence(
    body: Iterable[ast.stmt], names: set[str], resolve: Resolve, truth: bool, truth_only: frozenset[str] = frozenset()
) -> tuple[set[str], set[str]]:
    """Of the None-defaulted parameters `names`, in one walk of `body` outside nested functions and
    classes: those passed bare where a torch function takes a Python number (`torch.topk(x, k=k)`),
    and, when `truth`, those whose truth it tests bare (an `if`, `while` or conditional expression's
    test, under `not` and `and`/`or` too; an `and`/`or` operand before the last, or `not p`, as a
    value: `past = past or [None] * n`, `s = scale or 1.0`) and never rebinds but by `p = p or d`
    (which tests `p` before rebinding it). `truth_only`: more parameters, asked only about their
    truth (annotated a tensor: passed where a torch function takes a number, they are no number)."""
    scalars: set[str] = set()
    tested: set[str] = set()
    if not truth:
        truth_only = frozenset()
    if not names and not truth_only:  # most functions: no walk at all
        return scalars, tested
    truth_names = names | truth_only
    stores: Counter[str] = Counter()
    self_rebinds: Counter[str] = Counter()
    for node in local_nodes(body):
        # the commonest first, and one set lookup for the rare ones: this walks every forward
        if type(node) is ast.Name:
            if truth and type(node.ctx) is ast.Store:
                stores[node.id] += 1
        elif type(node) is ast.Call:
            if names:
                scalars.update(_scalar_arguments(node, names, resolve))
        elif not truth or type(node) not in _TRUTH_NODES:
            continue
        elif isinstance(node, ast.BoolOp):  # the operands before the last are tested for truth
            tested.update(value.id for value in node.values[:-1] if isinstance(value, ast.Name) and value.id in truth_names)
        elif isinstance(node, ast.UnaryOp):
            if isinstance(node.op, ast.Not) and isinstance(node.operand, ast.Name) and node.operand.id in truth_names:
                tested.add(node.operand.id)
        elif isinstance(node, ast.Assign):
            if (name := _self_rebind(node)) is not None:
                self_rebinds[name] += 1
        elif isinstance(node, (ast.If, ast.While, ast.IfExp)):
            tested.update(_bare_truths(node.test) & truth_names)
    return scalars, {name for name in tested if stores[name] <= self_rebinds[name]}


_BEFORE_BARE = ("if", "elif", "while", "not", "and", "or")
_AFTER_READ = (".", "[", "(", "is ", "in ", "==", "!=", "<", ">")


def maybe_truth_tested(text: str | None, names: frozenset[str]) -> frozenset[str]:
    """Those of `names` that `text` (a function's source, None when unknown: all of them) may test
    bare: an occurrence after `if`, `not`, `and`... and not compared or read from (`if mask is not
    None`), or one before `and`/`or`. A prefilter found with `str.find`: the walk of
    optional_parameter_evidence cost 2.4% of summarising transformers' models/ run on every forward
    with an `Optional[Tensor] = None` parameter, and few test one bare (a regex cost more still)."""
    if text is None or not names:
        return names
    return frozenset(name for name in names if _bare_somewhere(text, name))


def _bare_somewhere(text: str, name: str) -> bool:
    start = text.find(name)
    while start >= 0:
        end = start + len(name)
        if (start == 0 or not _word(text[start - 1])) and (end == len(text) or not _word(text[end])):
            after = text[end:end + 6].lstrip(" \t")
            if after.startswith(("and ", "or ")):
                return True
            before = text[max(0, start - 16):start].rstrip()
            first = len(before)
            while first and before[first - 1].isalpha():
                first -= 1
            if (before[first:] in _BEFORE_BARE and not (first and _word(before[first - 1]))
                    and not after.startswith(_AFTER_READ)):
                return True
        start = text.find(name, end)
    return False


def _word(char: str) -> bool:
    return char.isalnum() or char == "_"


_TRUTH_NODES = frozenset({ast.If, ast.While, ast.IfExp, ast.BoolOp, ast.UnaryOp, ast.Assign})


def _self_rebind(node: ast.Assign) -> str | None:
    """`p` of `p = p or d` / `p = p and d`: the store follows the test of `p` it makes."""
    if len(node.targets) != 1 or not isinstance(target := node.targets[0], ast.Name):
        return None
    value = node.value
    if isinstance(value, ast.BoolOp) and isinstance(first := value.values[0], ast.Name) and first.id == target.id:
        return target.id
    return None


def _bare_truths(test: ast.expr) -> set[str]:
    """Names whose truth value `test` takes as is: `p`, `not p`, the operands of `and`/`or`."""
    if isinstance(test, ast.Name):
        return {test.id}
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        return _bare_truths(test.operand)
    if isinstance(test, ast.BoolOp):
        return set().union(*(_bare_truths(value) for value in test.values))
    return set()


def _scalar_arguments(node: ast.Call, names: set[str], resolve: Resolve) -> set[str]:
    resolved = resolve(node.func)
    if resolved is None or not resolved.startswith("torch."):
        return set()
    found: set[str] = set()
    for position, keyword in SCALAR_PARAMETERS.get(resolved[len("torch."):], ()):
        passed = [kw.value for kw in node.keywords if kw.arg == keyword]
        if position is not None and position < len(node.args) and not any(
            isinstance(arg, ast.Starred) for arg in node.args[: position + 1]
        ):
            passed.append(node.args[position])
        found.update(arg.id for arg in passed if isinstance(arg, ast.Name) and arg.id in names)
    return found


def runs_only_for_python_argument(
    function: ast.FunctionDef | ast.AsyncFunctionDef, call: ast.Call, resolve: Resolve, builtin: Resolve,
    functions: Functions | None = None,
) -> bool:
    """`call` is passed a parameter and runs only where an `isinstance` test proved that parameter a
    Python value (`isinstance(path, str) and os.path.exists(path)`, or the `if` arm of such a test):
    the function takes other types there too (a tensor), and with them Dynamo never reaches the call,
    so whether it breaks depends on what the caller passes."""
    parameters = {a.arg for a in (*function.args.posonlyargs, *function.args.args, *function.args.kwonlyargs)}
    passed = {a.id for a in call.args if isinstance(a, ast.Name)} & parameters
    if not passed:
        return False
    for node in every_node(function):
        if isinstance(node, ast.BoolOp):
            for index, value in enumerate(node.values[:-1]):
                if short_circuit_python(value, node.op, resolve, builtin, functions) in passed and _holds(node.values[index + 1:], call):
                    return True
        elif isinstance(node, ast.If) and (arm := isinstance_arm(node.test, resolve, builtin, functions)) is not None:
            name, in_body = arm
            if name in passed and _holds(node.body if in_body else node.orelse, call):
                return True
    return False


def _holds(nodes: Iterable[ast.AST], target: ast.AST) -> bool:
    return any(inner is target for node in nodes for inner in ast.walk(node))
