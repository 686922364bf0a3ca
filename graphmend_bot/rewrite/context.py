"""One parsed file for the transformations: libcst tree, positions, parents, and edit builders.

Positions follow `Finding.location`: 1-based rows, column = character offset + 1, end exclusive.
A transformation finds its node with `node_at(finding)`, builds replacement code as text and
turns it into `Edit`s with `replace_statement`, `replace_expression` and `ensure_import`.
"""

from __future__ import annotations

import ast
import functools
from collections.abc import Collection, Iterator, Mapping, Sequence

import libcst as cst
from libcst.metadata import (
    ClassScope,
    CodeRange,
    GlobalScope,
    MetadataWrapper,
    PositionProvider,
    Scope,
    ScopeProvider,
)

from graphmend_bot.config import Config
from graphmend_bot.edits import split_lines
from graphmend_bot.findings import Edit, Finding, Location


class Rejected(Exception):
    """A transformation refuses a rewrite: it cannot show that the rewrite computes the same thing,
    or that an expression evaluates eagerly as a torch.where arm (the reason is the message)."""


class FixUnavailable(Exception):
    """Raised by an edit builder when the requested edit cannot be made cleanly (the fix is dropped)."""


class FixContext:
    """`focus_rows`: when given, only the top-level functions and classes holding one of these rows
    are parsed with libcst (with positions); the others are blanked out of `module` line for line,
    so every position stays that of `source`. libcst parsing is the fixer's main cost, and
    findings usually sit in a few classes of a long file. `top_level_functions` and
    `top_level_classes` still name every module-level function and class."""

    def __init__(
        self,
        source: str,
        config: Config | None = None,
        path: str = "<string>",
        focus_rows: Collection[int] | None = None,
    ) -> None:
        self.source = source
        self.path = path
        self.config = config or Config()
        parsed, self.top_level_functions, self.top_level_classes = _focused(source, focus_rows)
        # The module is parsed here and never mutated: skip the wrapper's defensive deep copy.
        wrapper = MetadataWrapper(cst.parse_module(parsed), unsafe_skip_copy=True)
        self.module: cst.Module = wrapper.module
        self._wrapper = wrapper
        self._positions = wrapper.resolve(PositionProvider)
        self._scopes: Mapping[cst.CSTNode, Scope | None] | None = None
        self._parents = _parents(self.module)
        self._lines = split_lines(source)
        self._by_span: dict[tuple[int, int, int, int], list[cst.CSTNode]] | None = None
        self._inside_strings: set[int] | None = None
        # What a rewrite computes once per node and reuses for every finding that asks: one guard is
        # shared by a whole run of I/O statements, and rebuilding it per finding was quadratic.
        self.memo: dict[tuple[object, ...], object] = {}
        # The findings being fixed in this file (set by build_fixes): a fix shared by several
        # statements (one guard over a run of I/O lines) may cover only lines that are findings too.
        self.findings: tuple[Finding, ...] = ()

    # -- finding nodes ---------------------------------------------------------------------------

    def position(self, node: cst.CSTNode) -> CodeRange:
        return self._positions[node]

    def span(self, node: cst.CSTNode) -> tuple[Location, Location]:
        where = self._positions[node]
        return (
            Location(where.start.line, where.start.column + 1),
            Location(where.end.line, where.end.column + 1),
        )

    def node_at(self, finding: Finding) -> cst.CSTNode | None:
        """The innermost node whose span is exactly the finding's span (None when nothing matches)."""
        if self._by_span is None:
            self._by_span = {}
            for node, where in self._positions.items():
                key = (where.start.line, where.start.column + 1, where.end.line, where.end.column + 1)
                self._by_span.setdefault(key, []).append(node)
        key = (
            finding.location.row,
            finding.location.column,
            finding.end_location.row,
            finding.end_location.column,
        )
        candidates = self._by_span.get(key, [])
        # Several nodes can share a span (Expr and its Call, a Name and its Attribute's value...):
        # the innermost one is the one the detector described; callers walk up with `parent`.
        return min(candidates, key=self._depth) if candidates else None

    def _depth(self, node: cst.CSTNode) -> int:
        return -sum(1 for _ in self.ancestors(node))

    def parent(self, node: cst.CSTNode) -> cst.CSTNode | None:
        return self._parents.get(node)

    def ancestors(self, node: cst.CSTNode) -> Iterator[cst.CSTNode]:
        current = self._parents.get(node)
        while current is not None:
            yield current
            current = self._parents.get(current)

    def resolves_to_module(self, name: cst.Name) -> bool:
        """`name` (a load) names a module-level binding: no parameter, assignment, import, loop or
        `with` target of an enclosing function, lambda or comprehension (nor of a class whose body
        holds it directly) binds it, unless the function declares it `global`. Scope analysis is
        resolved on first use (libcst's ScopeProvider; only some fixes need it)."""
        if self._scopes is None:
            self._scopes = self._wrapper.resolve(ScopeProvider)
        scope = self._scopes.get(name)
        if scope is None:
            return False
        assignments = scope[name.value]
        return bool(assignments) and all(isinstance(a.scope, GlobalScope) for a in assignments)

    def binds_locally(self, node: cst.CSTNode, name: str) -> bool:
        """A function or lambda enclosing `node` binds `name` itself (`import torch` in the body):
        there the name is a local, unbound above its binding, and the module's binding is hidden."""
        if self._scopes is None:
            self._scopes = self._wrapper.resolve(ScopeProvider)
        scope = self._scopes.get(node)
        while scope is not None and not isinstance(scope, GlobalScope):
            if not isinstance(scope, ClassScope) and name in scope.assignments:
                return True
            scope = scope.parent
        return False

    def module_bindings(self, name: str) -> int:
        """How many statements bind `name` at module level: imports, defs, classes, assignment, loop,
        `with`, `except` and `match` targets (also under module-level if/try/with), and assignments
        in functions that declare it `global`. Counted on the whole source (focus blanks nothing)."""
        return _module_bindings(self.source).count(name)

    def statement_of(self, node: cst.CSTNode) -> cst.BaseStatement | None:
        """The statement (a simple-statement line or a compound statement) holding `node`."""
        for candidate in (node, *self.ancestors(node)):
            if isinstance(candidate, cst.BaseStatement):
                return candidate
        return None

    def code_for(self, node: cst.CSTNode) -> str:
        """libcst's code for `node`: relative indentation; a statement's comment lines above it
        (leading_lines) and its trailing comment and newline are included."""
        return self.module.code_for_node(node)

    def line(self, row: int) -> str:
        return self._lines[row - 1] if 0 < row <= len(self._lines) else ""

    @property
    def indent_unit(self) -> str:
        """One level of indentation as this file writes it (four spaces, two, a tab...)."""
        return self.module.default_indent

    def _string_rows(self) -> set[int]:
        """Rows that start inside a multi-line string literal (their indentation is content)."""
        if self._inside_strings is None:
            self._inside_strings = set()
            for node, where in self._positions.items():
                if isinstance(node, cst.SimpleString | cst.FormattedString) and where.end.line > where.start.line:
                    self._inside_strings.update(range(where.start.line + 1, where.end.line + 1))
        return self._inside_strings

    def relative_code(self, node: cst.CSTNode) -> str:
        """`node`'s code with continuation lines relative to its first line, ready to re-indent.

        (libcst prints a detached node without the enclosing block's indentation.) Raises
        FixUnavailable when a continuation line starts inside a multi-line string literal, whose
        indentation is content.
        """
        code = self.code_for(node)
        rows = code.count("\n")
        if rows:
            start = self._positions[node].start.line
            if self._string_rows() & set(range(start + 1, start + rows + 1)):
                raise FixUnavailable("a multi-line string would change if re-indented")
        return code

    def relative_span_code(self, first: cst.CSTNode, last: cst.CSTNode) -> str:
        """The source from `first` to `last` (statements of one block, comments between them kept),
        with the block's indentation removed from continuation lines; ready to re-indent."""
        start, end = self._positions[first].start, self._positions[last].end
        if self._string_rows() & set(range(start.line + 1, end.line + 1)):
            raise FixUnavailable("a multi-line string would change if re-indented")
        indent = self.indentation_of(first)
        lines = [self.line(row).rstrip("\r\n") for row in range(start.line, end.line + 1)]
        lines[-1] = lines[-1][: end.column]
        lines[0] = lines[0][start.column :]
        out = [lines[0]]
        for item in lines[1:]:
            if item.strip() and not item.startswith(indent):
                raise FixUnavailable("a continuation line is indented less than its statement")
            out.append(item[len(indent) :] if item.strip() else "")
        return "\n".join(out)

    def replace_statements(self, first: cst.CSTNode, last: cst.CSTNode, new_code: str) -> Edit:
        """Replace consecutive statements `first`..`last` of one block (see `replace_statement`)."""
        start_edit = self.replace_statement(first, new_code)
        end = self.span(last)[1]
        return Edit(start_edit.content, start_edit.location, end)

    def indent_block(self, code: str, levels: int = 1) -> str:
        """Every non-empty line of `code` indented by `levels` of this file's indentation."""
        prefix = self.indent_unit * levels
        return "\n".join(prefix + item if item.strip() else "" for item in code.split("\n"))

    def indentation_of(self, node: cst.CSTNode) -> str:
        row = self._positions[node].start.line
        text = self.line(row)
        return text[: len(text) - len(text.lstrip(" \t"))]

    # -- edits -----------------------------------------------------------------------------------

    def replace_expression(self, node: cst.CSTNode, new_code: str) -> Edit:
        start, end = self.span(node)
        return Edit(new_code, start, end)

    def span_with_parentheses(self, node: cst.BaseExpression) -> tuple[Location, Location]:
        """The expression's span with its own parentheses when they sit on its one line (the span
        leaves them out): a call replacing it needs none, and keeping them would double them."""
        start, end = self.span(node)
        line = self.line(start.row)
        if node.lpar and start.row == end.row and line[start.column - 2 : start.column - 1] == "(" and (
            line[end.column - 1 : end.column] == ")"
        ):
            return Location(start.row, start.column - 1), Location(end.row, end.column + 1)
        return start, end

    def replace_parenthesised(self, node: cst.BaseExpression, call_code: str) -> Edit:
        """`node` and its one-line parentheses replaced by `call_code`, a call (which needs none)."""
        start, end = self.span_with_parentheses(node)
        return Edit(call_code, start, end)

    def add_torch_decorator(self, row: int, decorator: str) -> tuple[Edit, ...]:
        """`decorator` (a `@torch...` line) inserted above `row`, a `def` line or its first decorator,
        with `import torch` where the module lacks it."""
        indent = self.line(row)[: len(self.line(row)) - len(self.line(row).lstrip())]
        insertion = Edit(f"{indent}{decorator}\n", Location(row, 1), Location(row, 1))
        self.require_at_import("torch", row)
        import_edit = self.ensure_import("import torch")
        return (insertion,) if import_edit is None else (import_edit, insertion)

    def delete_line(self, line: cst.SimpleStatementLine) -> Edit:
        """Remove a statement line whole (the comment lines above it stay)."""
        start, end = self.span(line)
        if start.column - 1 != len(self.indentation_of(line)):
            raise FixUnavailable("the statement does not start its line")
        return Edit("", Location(start.row, 1), Location(end.row + 1, 1))

    def replace_statement(self, node: cst.CSTNode, new_code: str) -> Edit:
        """Replace a whole statement; `new_code` is written unindented and re-indented here.

        `node` may be a small statement (`print(x)`) or the line holding it. A multi-line
        replacement of a small statement that shares its line with others (`a = 1; print(x)`)
        cannot be written without restructuring the line and raises FixUnavailable.
        """
        statement: cst.CSTNode = node
        if not isinstance(node, cst.BaseStatement | cst.BaseSmallStatement):
            enclosing = next(
                (a for a in self.ancestors(node) if isinstance(a, cst.BaseStatement | cst.BaseSmallStatement)),
                None,
            )
            if enclosing is None:
                raise FixUnavailable("the node is not inside a statement")
            node = statement = enclosing
        if isinstance(node, cst.BaseSmallStatement):
            line = self.parent(node)
            if isinstance(line, cst.SimpleStatementLine) and len(line.body) == 1:
                statement = line
            elif "\n" in new_code.strip("\n"):
                raise FixUnavailable("the statement shares its line with other statements")
        indent = self.indentation_of(statement)
        lines = new_code.strip("\n").split("\n")
        text = "\n".join([lines[0], *(indent + item if item.strip() else "" for item in lines[1:])])
        start, end = self.span(statement)
        if start.column - 1 != len(indent) and "\n" in text:
            raise FixUnavailable("the statement does not start its line")
        return Edit(text, start, end)

    def top_level_imports(self) -> set[str]:
        """Normalised text of every module-level import (`import torch`, `from a import b`).

        Imports under module-level `if`/`try`/`with` count (`if is_torch_available(): import
        torch`): code that runs under torch.compile only runs where they did.
        """
        found: set[str] = set()
        for small in _module_level_smalls(self.module.body):
            if isinstance(small, cst.Import):
                for alias in small.names:
                    found.add(_import_text(self.module, alias, None))
            elif isinstance(small, cst.ImportFrom) and not isinstance(small.names, cst.ImportStar):
                origin = "." * len(small.relative) + (self.module.code_for_node(small.module) if small.module else "")
                for alias in small.names:
                    found.add(_import_text(self.module, alias, origin))
        return found

    def unconditional_import_row(self, name: str) -> int | None:
        """The last row of the first module-level statement that always runs and binds `name` by
        importing it (`import torch`, `import torch.nn`); None when nothing does, or only code
        that may not run: an `if` (`if TYPE_CHECKING:`, `if is_torch_available():`) or a `try`."""
        for statement in self.module.body:
            if isinstance(statement, cst.SimpleStatementLine) and any(
                isinstance(small, cst.Import) and any(_binds_package(self.module, alias, name) for alias in small.names)
                for small in statement.body
            ):
                return self._positions[statement].end.line
        return None

    def require_at_import(self, package: str, row: int) -> None:
        """Code inserted at module level above `row` uses `package` when the module is imported:
        raises FixUnavailable unless an import that always runs binds it above `row`, or nothing
        binds it (ensure_import then adds one with the leading imports, which run first)."""
        bound = self.unconditional_import_row(package)
        if bound is not None:
            if bound >= row:
                raise FixUnavailable(f"the inserted code runs at import, above `import {package}`")
        elif self.module_bindings(package) and not self._always_loads(package):
            raise FixUnavailable(f"`{package}` is imported only under a condition, and the inserted code runs at import")

    def _run_time_imports(self) -> Iterator[cst.ImportAlias]:
        """The aliases of module-level `import` statements that may run: under `if`/`try`/`with`
        too, but not in the body of `if TYPE_CHECKING:`."""
        for small in _module_level_smalls(self.module.body, run_time=True):
            if isinstance(small, cst.Import):
                yield from small.names

    def _always_loads(self, package: str) -> bool:
        """Some module-level import that always runs loads `package` in any form (`from torch
        import nn`, `import torch.nn as nn`): importing the module needs the package already."""
        for statement in self.module.body:
            for small in statement.body if isinstance(statement, cst.SimpleStatementLine) else ():
                if isinstance(small, cst.Import):
                    loaded = [self.module.code_for_node(alias.name) for alias in small.names]
                elif isinstance(small, cst.ImportFrom) and small.module is not None and not small.relative:
                    loaded = [self.module.code_for_node(small.module)]
                else:
                    continue
                if any(text == package or text.startswith(package + ".") for text in loaded):
                    return True
        return False

    def ensure_import(self, import_line: str) -> Edit | None:
        """An edit adding `import_line` at module level, or None when the file already has it.

        A rewrite may use only names bound where it runs. `import X` (X a top-level package) is
        there when a module-level import binds X at run time; one under `if is_torch_available():`
        or a `try` counts, as the module's own functions use X under the same condition. One only
        under `if TYPE_CHECKING:` never runs: the module keeps X lazy or optional, so unless an
        import that always runs loads the package anyway (`from torch import nn`), adding one would
        make X a new dependency of the module, and FixUnavailable is raised (the fix is dropped).
        Code that runs at import needs more: see `require_at_import`."""
        wanted = cst.parse_statement(import_line.strip() + "\n")
        if not isinstance(wanted, cst.SimpleStatementLine) or not isinstance(
            wanted.body[0], cst.Import | cst.ImportFrom
        ):
            raise ValueError(f"not an import statement: {import_line!r}")
        package = _plain_package_import(wanted.body[0])
        if package is not None:
            if any(_binds_package(self.module, alias, package) for alias in self._run_time_imports()):
                return None
            if self.module_bindings(package) and not self._always_loads(package):
                raise FixUnavailable(f"`{package}` is imported only for type checking here")
            return self._add_import(import_line)
        wanted_texts = FixContext(import_line.strip() + "\n").top_level_imports()
        have = self.top_level_imports()
        # `import torch.nn` binds `torch` as well as `import torch` does.
        have |= {text.split(".", 1)[0] for text in have if text.startswith("import ") and " as " not in text}
        if wanted_texts <= have:
            return None
        return self._add_import(import_line)

    def _add_import(self, import_line: str) -> Edit:
        """`import_line` after the module's leading imports: it always runs, before any other code."""
        anchor = self.import_anchor()
        code = import_line.strip() + "\n"
        if anchor is None:
            return self._import_before_first_statement(code)
        row = self._positions[anchor].end.line
        if row >= len(self._lines) and not self.source.endswith(("\n", "\r")):
            end = Location(row, len(self.line(row)) + 1)
            return Edit("\n" + code.rstrip("\n"), end, end)
        return Edit(code, Location(row + 1, 1), Location(row + 1, 1))

    def _import_before_first_statement(self, code: str) -> Edit:
        """A module with no import or docstring: the import goes after its header comments (a licence
        stays first), before the first statement and the comments attached to it, with PEP 8's blank
        lines before a top-level `def`/`class`."""
        if not self.module.body:
            return Edit(code, Location(1, 1), Location(1, 1))
        first = self.module.body[0]
        decorators = getattr(first, "decorators", ())
        start = self._positions[decorators[0] if decorators else first].start.line
        row = start - len(getattr(first, "leading_lines", ())) - _attached_comments(self.module.header)
        if isinstance(first, cst.FunctionDef | cst.ClassDef):
            code += "\n\n"
        elif not isinstance(first, cst.SimpleStatementLine) or not isinstance(first.body[0], cst.Import | cst.ImportFrom):
            code += "\n"
        return Edit(code, Location(row, 1), Location(row, 1))

    def import_anchor(self) -> cst.CSTNode | None:
        """The statement a new import goes after: the last leading import, else docstring/__future__."""
        anchor: cst.CSTNode | None = None
        for index, statement in enumerate(self.module.body):
            if isinstance(statement, cst.SimpleStatementLine):
                first = statement.body[0]
                if isinstance(first, cst.Import | cst.ImportFrom):
                    anchor = statement
                    continue
                is_docstring = (
                    index == 0 and isinstance(first, cst.Expr) and isinstance(first.value, cst.BaseString)
                )
                if is_docstring:
                    anchor = statement
                    continue
            break
        return anchor


def _focused(source: str, focus_rows: Collection[int] | None) -> tuple[str, frozenset[str], frozenset[str]]:
    """`source` with the top-level defs and classes that hold none of `focus_rows` replaced by
    empty lines (line ends kept, so rows and columns do not move), and the names of all
    module-level functions and classes (blanked ones included). Without `focus_rows`, or when
    `ast` cannot parse the file, the source is returned whole."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return source, frozenset(), frozenset()
    functions = frozenset(
        node.name for node in tree.body if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
    )
    classes = frozenset(node.name for node in tree.body if isinstance(node, ast.ClassDef))
    if focus_rows is None:
        return source, functions, classes
    rows = sorted(set(focus_rows))
    lines = split_lines(source)
    for node in tree.body:
        if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            continue
        first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
        last = node.end_lineno or node.lineno
        if node.col_offset != 0 or any(first <= row <= last for row in rows):
            continue
        for index in range(first - 1, last):
            line = lines[index]
            lines[index] = line[len(line.rstrip("\r\n")):]
    return "".join(lines), functions, classes


@functools.lru_cache(maxsize=16)
def _module_bindings(source: str) -> tuple[str, ...]:
    """The names bound at module level in `source`, once per binding (see `module_bindings`)."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return ()
    names: list[str] = []
    stack: list[ast.AST] = list(tree.body)
    while stack:
        node = stack.pop()
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.append(node.name)
            names.extend(name for inner in ast.walk(node) if isinstance(inner, ast.Global) for name in inner.names)
            continue
        if isinstance(node, ast.Lambda):
            continue
        names.extend(names_bound_by(node))
        stack.extend(ast.iter_child_nodes(node))
    return tuple(names)


def names_bound_by(node: ast.AST, deleted: bool = False) -> list[str]:
    """The names one node binds by itself (an assignment or loop target, an import's alias,
    `except ... as`, a match capture; a `del` target with `deleted`), not those of nodes in it."""
    if isinstance(node, ast.Name) and (isinstance(node.ctx, ast.Store) or (deleted and isinstance(node.ctx, ast.Del))):
        return [node.id]
    if isinstance(node, ast.alias):
        return [node.asname or node.name.split(".")[0]]
    if isinstance(node, ast.ExceptHandler | ast.MatchAs | ast.MatchStar) and node.name:
        return [node.name]
    if isinstance(node, ast.MatchMapping) and node.rest:
        return [node.rest]
    return []


def _parents(module: cst.Module) -> dict[cst.CSTNode, cst.CSTNode]:
    """Each node's parent (what libcst's ParentNodeProvider gives, at a third of its cost)."""
    parents: dict[cst.CSTNode, cst.CSTNode] = {}
    stack: list[cst.CSTNode] = [module]
    while stack:
        node = stack.pop()
        for child in node.children:
            parents[child] = node
            stack.append(child)
    return parents


def _module_level_smalls(body: Sequence[cst.CSTNode], run_time: bool = False) -> Iterator[cst.BaseSmallStatement]:
    """Small statements at module level, looking into if/try/with blocks but not defs or classes;
    with `run_time`, not into the body of `if TYPE_CHECKING:` (its `else` runs)."""
    for statement in body:
        if isinstance(statement, cst.SimpleStatementLine):
            yield from statement.body
        elif isinstance(statement, cst.If | cst.Try | cst.TryStar | cst.With | cst.Else | cst.ExceptHandler
                        | cst.ExceptStarHandler | cst.Finally):
            inner = statement.body
            if not (run_time and isinstance(statement, cst.If) and _type_checking(statement.test)):
                yield from _module_level_smalls(inner.body if isinstance(inner, cst.BaseSuite) else [], run_time)
                if isinstance(inner, cst.SimpleStatementSuite):
                    yield from inner.body
            for attribute in ("orelse", "handlers", "finalbody"):
                extra = getattr(statement, attribute, None)
                if isinstance(extra, Sequence):
                    yield from _module_level_smalls(extra, run_time)
                elif extra is not None:
                    yield from _module_level_smalls([extra], run_time)


def _type_checking(test: cst.BaseExpression) -> bool:
    """`TYPE_CHECKING` or `typing.TYPE_CHECKING`: False at run time."""
    return (isinstance(test, cst.Name) and test.value == "TYPE_CHECKING") or (
        isinstance(test, cst.Attribute) and test.attr.value == "TYPE_CHECKING"
    )


def _plain_package_import(statement: cst.BaseSmallStatement) -> str | None:
    """`torch` for `import torch`: one top-level package, no alias; None for any other import."""
    if isinstance(statement, cst.Import) and len(statement.names) == 1:
        alias = statement.names[0]
        if alias.asname is None and isinstance(alias.name, cst.Name):
            return alias.name.value
    return None


def _binds_package(module: cst.Module, alias: cst.ImportAlias, package: str) -> bool:
    """`import torch`, `import torch.nn` or `import torch as torch` binds the name `torch`."""
    text = module.code_for_node(alias.name)
    if alias.asname is not None:
        return isinstance(alias.asname.name, cst.Name) and alias.asname.name.value == package == text
    return text.split(".", 1)[0] == package


def _import_text(module: cst.Module, alias: cst.ImportAlias, origin: str | None) -> str:
    name = module.code_for_node(alias.name)
    asname = ""
    if alias.asname is not None and isinstance(alias.asname.name, cst.Name):
        asname = f" as {alias.asname.name.value}"
    return f"from {origin} import {name}{asname}" if origin is not None else f"import {name}{asname}"


def _attached_comments(header: Sequence[cst.EmptyLine]) -> int:
    """How many comment lines end the module header with no blank line before the first statement:
    they describe that statement (`# the helper` above `def helper`) unless they are the whole header
    (a licence with no blank line after it stays first)."""
    attached = 0
    for line in reversed(header):
        if line.comment is None:
            break
        attached += 1
    return attached if attached < len(header) else 0
