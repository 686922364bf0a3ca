"""Coverage of the rewrite: which rewritten lines did the entry points execute?

A rewrite is proven only where an entry point ran it. The rewritten lines are the lines of the
rewritten arm's files that differ from the original arm's (difflib, per file), kept only where
Python can execute them (a line that owns bytecode: changed comments and blank lines need no
proof). A deleted line has no rewritten line, so the nearest executable line before the gap
stands for it. The rewritten arm's child records which of these lines run (line_recorder.LineRecorder)
while importing the entry point's modules and during the eager calls; compiled calls do not count,
since Dynamo does not run the frames it traced. So a line in the body of an
`if torch.compiler.is_compiling():` block, which only compiled code takes, is proven by its `if`
line: when an eager call runs that line, a compiled call of the same entry point traces the body,
and the compiled arms judge what it did (breaks and outputs).
"""

from __future__ import annotations

import ast
import difflib
import os
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import CodeType

from graphmend_bot.source_lines import physical_lines

# Never walked: not source of the arm (virtual environments, caches, VCS data).
SKIPPED_DIRECTORIES = frozenset(
    {".git", ".venv", "venv", "__pycache__", ".mypy_cache", ".pytest_cache", ".ruff_cache", "node_modules"}
)


@dataclass(frozen=True)
class RewrittenLine:
    path: str  # relative to the rewritten arm's root, with forward slashes
    line: int
    text: str


@dataclass(frozen=True)
class Coverage:
    """The rewritten lines and, for each, the entry points that executed it."""

    lines: tuple[RewrittenLine, ...]
    covered_by: Mapping[tuple[str, int], tuple[str, ...]] = field(default_factory=dict)

    @property
    def covered(self) -> list[RewrittenLine]:
        return [line for line in self.lines if self.covered_by.get((line.path, line.line))]

    @property
    def uncovered(self) -> list[RewrittenLine]:
        return [line for line in self.lines if not self.covered_by.get((line.path, line.line))]

    def uncovered_by(self, entry: str) -> list[RewrittenLine]:
        return [line for line in self.lines if entry not in self.covered_by.get((line.path, line.line), ())]


def lines_by_file(lines: Iterable[RewrittenLine]) -> dict[str, list[int]]:
    """What the rewritten arm's child is asked to record: {path: [line, ...]}."""
    wanted: dict[str, list[int]] = {}
    for line in lines:
        wanted.setdefault(line.path, []).append(line.line)
    return wanted


def measure_coverage(
    lines: Sequence[RewrittenLine], covered_per_entry: Mapping[str, Mapping[str, Sequence[int]]]
) -> Coverage:
    """Combine what each entry point's child recorded ({entry name: {path: [line, ...]}})."""
    covered_by: dict[tuple[str, int], list[str]] = {}
    for entry, covered in covered_per_entry.items():
        for path, numbers in covered.items():
            for number in numbers:
                covered_by.setdefault((path, number), []).append(entry)
    wanted = {(line.path, line.line) for line in lines}
    return Coverage(tuple(lines), {key: tuple(names) for key, names in covered_by.items() if key in wanted})


def tree_changes(original_root: Path, rewritten_root: Path, prefix: str = "") -> list[RewrittenLine]:
    """The rewritten lines of every .py file under rewritten_root (a file absent from the original
    is rewritten throughout). `prefix` is put before each path, for a tree that sits below the
    arm's root (e.g. a fixed copy of a package: tree_changes(installed, copy, "transformers/"))."""
    lines: list[RewrittenLine] = []
    for relative in sorted(_python_files(rewritten_root)):
        after = _read(rewritten_root / relative)
        if after is None:
            continue
        before_path = original_root / relative
        before = _read(before_path) if before_path.is_file() else ""
        if before is None or before == after:
            continue
        lines += changed_lines(before, after, prefix + relative)
    return lines


@dataclass(frozen=True)
class Hunk:
    """One change of a rewritten file: base lines [base_start, base_end) (0-based, as difflib) became
    rewritten lines [head_start, head_end); `proof_lines` are the 1-based rewritten lines that must
    run for it to be proven (its executable lines, or the line that stands for a deletion)."""

    base_start: int
    base_end: int
    head_start: int
    head_end: int
    proof_lines: frozenset[int]


def changed_hunks(before: str, after: str, path: str) -> list[Hunk]:
    """The changes from `before` to `after`, each with the lines coverage asks to run."""
    new = physical_lines(after)
    executable = executable_lines(after, path)
    stand_in = stand_in_lines(after)
    hunks: list[Hunk] = []
    matcher = difflib.SequenceMatcher(None, physical_lines(before), new, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            continue
        if tag == "delete":
            anchor = _nearest_executable(j1, executable, len(new))
            lines = frozenset({anchor} if anchor is not None else ())
        else:
            lines = frozenset(stand_in.get(n, n) for n in range(j1 + 1, j2 + 1) if n in executable)
        hunks.append(Hunk(i1, i2, j1, j2, lines))
    return hunks


def changed_lines(before: str, after: str, path: str) -> list[RewrittenLine]:
    """The executable lines of `after` that the rewrite wrote or that stand for a deletion."""
    new = physical_lines(after)
    numbers = {n for hunk in changed_hunks(before, after, path) for n in hunk.proof_lines}
    return [RewrittenLine(path, n, new[n - 1].strip()) for n in sorted(numbers)]


def stand_in_lines(source: str) -> dict[int, int]:
    """{line: the line whose execution proves it}, for lines the eager arm's coverage cannot see run:
    - each line of an `if <...>.is_compiling():` body stands on its `if` line: eager calls never run
      the body, and the compiled call of the same entry point traces it;
    - each decorator line stands on the first statement of its function's body (after a
      docstring): a decorator runs when the module is imported, so its own line proves nothing
      (run_eagerly's `@torch.compiler.disable` on a helper no entry point calls looked covered)."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return {}
    stand_in: dict[int, int] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and _is_compiling_call(node.test) and node.body:
            last = node.body[-1].end_lineno or node.body[-1].lineno
            for number in range(node.body[0].lineno, last + 1):
                stand_in.setdefault(number, node.lineno)
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.decorator_list:
            body = node.body[1:] if _is_docstring(node.body[0]) and len(node.body) > 1 else node.body
            for decorator in node.decorator_list:
                for number in range(decorator.lineno, (decorator.end_lineno or decorator.lineno) + 1):
                    stand_in.setdefault(number, body[0].lineno)
    return stand_in


def _is_docstring(statement: ast.stmt) -> bool:
    return isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Constant) and isinstance(
        statement.value.value, str)


def _is_compiling_call(test: ast.expr) -> bool:
    if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And):
        return _is_compiling_call(test.values[0])  # `is_compiling() and torch.is_tensor(...)`
    if not (isinstance(test, ast.Call) and not test.args and not test.keywords):
        return False
    function = test.func
    name = function.attr if isinstance(function, ast.Attribute) else getattr(function, "id", "")
    return name in ("is_compiling", "is_dynamo_compiling", "is_torchdynamo_compiling")


def executable_lines(source: str, path: str) -> set[int]:
    """Lines that own bytecode; every non-blank, non-comment line if the file does not compile."""
    try:
        code = compile(source, path, "exec", dont_inherit=True)
    except (SyntaxError, ValueError):
        return {
            number
            for number, text in enumerate(physical_lines(source), start=1)
            if text.strip() and not text.strip().startswith("#")
        }
    return {line for code_object in _code_objects(code) for _, _, line in code_object.co_lines() if line}


def _code_objects(code: CodeType) -> Iterator[CodeType]:
    yield code
    for constant in code.co_consts:
        if isinstance(constant, CodeType):
            yield from _code_objects(constant)


def _nearest_executable(gap: int, executable: set[int], count: int) -> int | None:
    """The executable line before a deletion at 0-based position `gap`, else the one after."""
    for number in range(gap, 0, -1):
        if number in executable:
            return number
    return next((n for n in range(gap + 1, count + 1) if n in executable), None)


def _python_files(root: Path) -> Iterator[str]:
    for directory, subdirectories, files in os.walk(root):
        subdirectories[:] = [
            name
            for name in subdirectories
            if name not in SKIPPED_DIRECTORIES
            and not name.startswith(".")
            and not (Path(directory) / name / "pyvenv.cfg").exists()
        ]
        for name in files:
            if name.endswith(".py") and not (Path(directory) / name).is_symlink():
                yield (Path(directory) / name).relative_to(root).as_posix()


def _read(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None
