"""Decide, from text alone, which files the detector needs to parse.

Scope only ever reaches code through imports: an entry point (a `def forward`, a torch.compile
call, a configured entry point, a public module in the library scope: engine._settle_scope) can call into the modules its file imports, and so on. A file
outside that import closure can hold no traced code, so parsing it would be wasted time; on
transformers' models/ tree this skips about 40% of the source. The scan over-approximates
(imports in strings or dead code count too), so it never drops a file the scope solver could
reach.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from graphmend_bot.analysis.entry_text import defines_forward, has_entry_text

# `[ \t]*+` is possessive: what follows starts with a letter, so giving back blanks never
# helps a match, and not trying to halves the time of these scans.
# Each starts at a line: with a "\n" where `^` (re.M) would be, searched in "\n" + source. A
# pattern led by a literal lets `re` skip ahead to each newline instead of trying `^` at every
# character: a fourth of the time, the same matches (no match ends just after a newline that
# starts a line another could match at).
_FROM_IMPORT = re.compile(
    r"\n[ \t]*+from[ \t]+(\.*[\w.]*)[ \t]+import[ \t]*(\([^)]*\)|[^\n#;\\]*(?:\\\n[^\n#;\\]*)*)"
)
_DEFINITION = re.compile(r"\n[ \t]*+(?:async[ \t]+)?(?:def|class)[ \t]+(\w+)")
# A class statement's bases, up to the closing parenthesis (keywords such as `metaclass=` too).
_CLASS_BASES = re.compile(r"\n[ \t]*+class[ \t]+\w+[ \t]*\(([^)]*)\)")
_PLAIN_IMPORT = re.compile(r"\n[ \t]*+import[ \t]+([^\n#;\\]*(?:\\\n[^\n#;\\]*)*)")


EVERYTHING = "*"

Import = tuple[str, frozenset[str]]  # (module, names used from it); EVERYTHING for a whole module


@dataclass(frozen=True)
class FileScan:
    module: str
    imports: tuple[Import, ...]
    defines: frozenset[str]  # names of classes and functions defined anywhere in the file
    has_entry_text: bool
    # (line, codes) of `# graphmend: ignore[...]` comments naming codes no rule has (engine.scan_file)
    unknown_suppressions: tuple[tuple[int, tuple[str, ...]], ...] = ()
    # the last names of the bases of the classes defined in the file (`nn.Module` -> "Module")
    class_bases: frozenset[str] = frozenset()
    defines_forward: bool = False  # `def forward` somewhere in the file
    # A file no summary parses is parsed for its syntax alone (engine.Workspace._check_unparsed):
    # None until then, "" when it parses, else the error. Kept with the scan, so once per text.
    syntax_error: str | None = None


def scan_source(source: str, module: str, is_package: bool) -> FileScan:
    package = module if is_package else module.rpartition(".")[0]
    imports: list[Import] = []
    everything = frozenset({EVERYTHING})
    lines = "\n" + source  # every line, the first too, after a newline (see _FROM_IMPORT)
    for base, clause in _FROM_IMPORT.findall(lines):
        base = _absolute(base, package)
        names = frozenset(_names(clause))
        if names:  # the scope solver resolves no name through `from x import *`; neither do we
            imports.append((base, names))
    for clause in _PLAIN_IMPORT.findall(lines):
        for name in _names(clause):
            # `import a.b.c` needs a.b.c whole, and of `a` and `a.b` only the way down.
            parts = name.split(".")
            imports.append((name, everything))
            imports.extend((".".join(parts[:i]), frozenset({parts[i]})) for i in range(1, len(parts)))
    defines = frozenset(_DEFINITION.findall(lines))
    bases = frozenset(
        base.split("=")[-1].split("[")[0].strip().rpartition(".")[2]
        for clause in _CLASS_BASES.findall(lines)
        for base in clause.split(",")
        if base.strip()
    )
    return FileScan(
        module, tuple(imports), defines, has_entry_text(source), class_bases=bases, defines_forward=defines_forward(source)
    )


def _absolute(base: str, package: str) -> str:
    level = len(base) - len(base.lstrip("."))
    if not level:
        return base
    parts = package.split(".") if package else []
    if level > 1:
        parts = parts[: len(parts) - (level - 1)]
    rest = base[level:]
    return ".".join([*parts, rest] if rest else parts)


def _names(clause: str) -> Iterable[str]:
    for item in clause.replace("\\\n", " ").strip("() \t\n").split(","):
        name = item.split(" as ")[0].strip(" \t\n()")
        if name and name != EVERYTHING:
            yield name


def relevant_modules(scans: Iterable[FileScan], extra_roots: Iterable[str] = ()) -> set[str]:
    """Modules with entry-point text, configured entry modules, and what they import.

    A module that defines a name someone uses is needed whole: that function may call anything
    the module imports. A module that only passes names on (a package `__init__` re-exporting
    its submodules) is needed just for the imports that provide those names; following all of
    them would pull in every tokenizer and conversion script a package re-exports.
    """
    by_module = {scan.module: scan for scan in scans}
    everything = frozenset({EVERYTHING})
    roots = [scan.module for scan in by_module.values() if scan.has_entry_text]
    roots += [root for root in extra_roots if root in by_module]
    roots += _subclass_modules(by_module, [root for root in roots if by_module[root].defines_forward])
    demanded: dict[str, frozenset[str]] = {}
    submodules_asked: set[str] = set()
    stack: list[Import] = [(root, everything) for root in roots]
    while stack:
        module, names = stack.pop()
        scan = by_module.get(module)
        if scan is None:
            continue
        # `from pkg import sub` imports the submodule pkg.sub whatever else pkg is needed for: asked
        # here, before the skip below, the result does not depend on the order of the walk.
        for name in sorted(names - everything):
            submodule = f"{module}.{name}"
            if submodule not in submodules_asked:
                submodules_asked.add(submodule)
                stack.append((submodule, everything))
        if names & scan.defines:
            names = everything
        before = demanded.get(module, frozenset())
        if EVERYTHING in before or names <= before:
            continue
        demanded[module] = before | names
        if EVERYTHING in names:
            stack.extend(scan.imports)
            continue
        new = names - before
        stack.extend(
            (imported, provided & new)
            for imported, provided in scan.imports
            if EVERYTHING not in provided and provided & new
        )
    return set(demanded)


def _subclass_modules(by_module: dict[str, FileScan], bases: list[str]) -> list[str]:
    """Modules defining a subclass of a class a module of `bases` defines (and so on down): a
    `forward` calling `self.hook()` runs the subclass's override, though the subclass's file may
    have no entry text and no root import it (pytorch-metric-learning's miners override `mine`,
    which `BaseMiner.forward` calls). A subclass is a class with a base of that name whose file
    imports the base's module or that name. Only files with a `def forward` are bases: a mention
    of torch.compile in a comment makes a root, and its classes' subclasses (transformers' image
    processors, tokenizers) would be parsed for nothing."""
    subclassing: dict[str, list[FileScan]] = {}
    for each in by_module.values():
        for base in each.class_bases:
            subclassing.setdefault(base, []).append(each)
    found = set(bases)
    added: list[str] = []
    stack = list(bases)
    while stack:
        scan = by_module[stack.pop()]  # bases and subclasses are scanned modules
        for name in scan.defines & subclassing.keys():
            for sub in subclassing[name]:
                if sub.module not in found and any(
                    imported == scan.module or name in provided or _names_module(imported, provided, scan.module)
                    for imported, provided in sub.imports
                ):
                    found.add(sub.module)
                    added.append(sub.module)
                    stack.append(sub.module)
    return added


def _names_module(imported: str, provided: frozenset[str], module: str) -> bool:
    """`from pkg import mod` imports the module `pkg.mod`."""
    package, _, name = module.rpartition(".")
    return imported == package and name in provided
