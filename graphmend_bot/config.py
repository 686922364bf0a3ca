"""Configuration: `[tool.graphmend]` in pyproject.toml or `.graphmend.yml`, into one typed Config."""

from __future__ import annotations

import os
import tomllib
from collections.abc import Hashable
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

import yaml

from graphmend_bot.analysis.public_api import SCOPES
from graphmend_bot.analysis.python_target import parse_version
from graphmend_bot.rules import ALL_RULES_BY_CODE

CONFIG_FILES = (".graphmend.yml", ".graphmend.yaml", "pyproject.toml")
IO_STRATEGIES = ("guard", "defer")
# What --fix does with a deprecation notice in traced code (GM402/GM403 rule docs): leave it with
# advice (compiled callers need it), guard it as transformers guards its own, or defer it. A `*_once`
# notice is kept under compile whatever this says (rewrite/python_io/notice_once.py: it hides nothing).
DEPRECATION_NOTICES = ("advice", "guard", "defer")


class ConfigError(ValueError):
    """An invalid configuration, with a message that says where and what."""


@dataclass
class Config:
    select: list[str] = field(default_factory=list)
    ignore: list[str] = field(default_factory=list)
    exclude: list[str] = field(default_factory=list)
    # Extra functions to treat as compiled: "pkg.module:function" or "pkg.module:Class.method",
    # shell-style wildcards allowed.
    entry_points: list[str] = field(default_factory=list)
    # Where traced code starts (analysis/public_api.py): "model" (forwards, compiled functions,
    # entry points), "library" (and every public callable of the package), or "auto": library
    # for a package with no compiled roots of its own.
    scope: str = "auto"
    # Installed packages whose code the checked tree calls (`linear_operator`): summarised from
    # their source, never imported or reported themselves; a call into one that breaks inside is
    # reported at the call line (GM608). "auto": the installed torch libraries the tree imports
    # (analysis/auto_dependencies.py). Off by default: on the wild corpus it found one more break
    # statement for two more false positives, and a run that reads dependencies caches no whole result.
    dependencies: list[str] = field(default_factory=list)
    io_strategy: str = "guard"  # how --fix rewrites print/logging/warnings in traced code
    deprecation_notices: str = "advice"  # one of DEPRECATION_NOTICES
    verify: dict[str, Any] = field(default_factory=dict)
    # A baseline file of findings to hide (baseline.py), relative to the config file.
    baseline: str | None = None
    # The Python the project runs on ("3.11"): some breaks exist only before 3.12
    # (analysis/python_target.py). None: requires-python's lower bound, else the running Python.
    target_version: str | None = None
    # Not settings (no config key): the file this came from, for messages; and the baseline's
    # bytes when they are not the file's (a review reads the base commit's: github/review/base_baseline.py).
    source: str | None = field(default=None, metadata={"setting": False})
    baseline_bytes: bytes | None = field(default=None, metadata={"setting": False})

    @property
    def folder(self) -> str | None:
        """The folder holding the configuration file (the project root): what `exclude` patterns
        are relative to. None for settings that came from no file."""
        return os.path.dirname(os.path.abspath(self.source)) if self.source and os.path.isfile(self.source) else None


def unknown_codes(prefixes: list[str]) -> list[str]:
    """The entries that are neither a rule code nor a prefix of one (`GM1` is valid, `GM9` is not)."""
    return [prefix for prefix in prefixes if not any(code.startswith(prefix) for code in ALL_RULES_BY_CODE)]


def find_config_file(start: Path) -> Path | None:
    directory = start.resolve()
    if directory.is_file():
        directory = directory.parent
    for folder in (directory, *directory.parents):
        for name in CONFIG_FILES:
            candidate = folder / name
            if candidate.is_file() and (name != "pyproject.toml" or _has_tool_table(candidate)):
                return candidate
    return None


def _has_tool_table(pyproject: Path) -> bool:
    """Whether this pyproject.toml configures graphmend. One that cannot be read or parsed is an
    error, as in ruff: skipping it would silently drop its `[tool.graphmend]` table."""
    try:
        text = pyproject.read_text("utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise ConfigError(f"{pyproject}: cannot read: {error}") from None
    return _graphmend_table(_toml_document(text, pyproject), pyproject) is not None


def _toml_document(text: str, path: Path) -> dict[str, Any]:
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise ConfigError(f"{path}: invalid TOML: {error}") from None
    except RecursionError:  # tomllib parses nested arrays and inline tables recursively
        raise ConfigError(f"{path}: invalid TOML: nested too deeply") from None


def _graphmend_table(document: dict[str, Any], path: Path) -> Any:
    """`[tool.graphmend]` of a pyproject.toml (parse_config checks it), None when there is none.
    A `tool` that is no table (`tool = "graphmend"`) is an error like invalid TOML."""
    tool = document.get("tool", {})
    if not isinstance(tool, dict):
        raise ConfigError(f"{path}: `tool` must be a table, got {type(tool).__name__}")
    return tool.get("graphmend")


MAX_EXPANDED_NODES = 100_000  # a configuration is a few dozen values; a `verify:` table, hundreds


class _UniqueKeyLoader(yaml.SafeLoader):
    """PyYAML's safe loader, except that a key given twice in one mapping is an error.

    YAML says keys are unique, but PyYAML keeps the last silently: `select:` written twice would
    drop the first list without a word.
    """

    def compose_document(self) -> yaml.Node | None:
        """The document's node graph, refused when its aliases expand it past MAX_EXPANDED_NODES:
        ten nested aliases of ten made a `verify:` table of 10**10 values that hashing the settings
        (summary_cache) wrote out whole (review14's finding 13)."""
        node = super().compose_document()
        if node is not None:
            _expanded_nodes(node, {})
        return node

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
        seen: set[Any] = set()
        for key_node, _ in node.value:
            if key_node.tag == "tag:yaml.org,2002:merge":
                continue  # `<<: *anchor` merges another mapping, whose keys this one may override
            key = self.construct_object(key_node, deep=deep)
            if not isinstance(key, Hashable):
                break  # the base loader reports an unhashable key itself
            if key in seen:
                raise yaml.constructor.ConstructorError(
                    None, None, f"setting {key!r} is given twice", key_node.start_mark
                )
            seen.add(key)
        return super().construct_mapping(node, deep=deep)


def _expanded_nodes(node: yaml.Node, sizes: dict[int, int]) -> int:
    """How many nodes `node` stands for once every alias is copied out; `sizes` by id, -1 while counting."""
    known = sizes.get(id(node))
    if known is not None:
        if known < 0:
            raise yaml.composer.ComposerError(None, None, "an alias refers to a node that holds it", node.start_mark)
        return known
    sizes[id(node)] = -1
    if isinstance(node, yaml.SequenceNode):
        children = list(node.value)
    elif isinstance(node, yaml.MappingNode):
        children = [child for pair in node.value for child in pair]
    else:
        children = []
    total = 1 + sum(_expanded_nodes(child, sizes) for child in children)
    if total > MAX_EXPANDED_NODES:
        raise yaml.composer.ComposerError(
            None, None, f"aliases expand the configuration past {MAX_EXPANDED_NODES} values", node.start_mark)
    sizes[id(node)] = total
    return total


def load_config(path: Path | None = None, start: Path | None = None) -> Config:
    """Load `path`, or the nearest config file above `start` (default: the working directory)."""
    path = path or find_config_file(start or Path.cwd())
    if path is None:
        return Config()
    try:
        text = path.read_text("utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise ConfigError(f"{path}: cannot read: {error}") from None
    if path.suffix == ".toml":
        table = _graphmend_table(_toml_document(text, path), path)
        table = {} if table is None else table
    else:
        try:
            table = yaml.load(text, Loader=_UniqueKeyLoader) or {}
        except yaml.YAMLError as error:
            raise ConfigError(f"{path}: invalid YAML: {error}") from None
        except RecursionError:
            raise ConfigError(f"{path}: invalid YAML: nested too deeply") from None
    return parse_config(table, str(path))


def parse_config(table: Any, source: str = "<config>") -> Config:
    if not isinstance(table, dict):
        raise ConfigError(f"{source}: expected a table of settings, got {type(table).__name__}")
    known = {f.name.replace("_", "-"): f.name for f in fields(Config) if f.metadata.get("setting", True)}
    values: dict[str, Any] = {}
    spelled: dict[str, Any] = {}
    for key, value in table.items():
        name = known.get(str(key).replace("_", "-"))
        if name is None:
            raise ConfigError(f"{source}: unknown setting {key!r}; expected one of {', '.join(sorted(known))}")
        if name in values:
            # `io_strategy` and `io-strategy` are one setting: last-one-wins would hide a mistake
            raise ConfigError(f"{source}: {spelled[name]!r} and {key!r} are the same setting; keep one")
        values[name] = value
        spelled[name] = key
    for name in ("select", "ignore", "exclude", "entry_points", "dependencies"):
        value = values.get(name, [])
        if isinstance(value, str):
            value = [value]
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise ConfigError(f"{source}: {name.replace('_', '-')} must be a list of strings")
        values[name] = value
    for name in ("select", "ignore"):
        if any(not prefix.strip() for prefix in values[name]):
            # `""` is a prefix of every code: `ignore = ""` would turn every rule off, unsaid
            raise ConfigError(f"{source}: {name} names an empty code; list rule codes or prefixes (`GM1`), or leave "
                              f"{name} out")
        for prefix in unknown_codes(values[name]):
            raise ConfigError(f"{source}: {name} names {prefix!r}, which matches no rule (see `graphmend rules`)")
    for package in values["dependencies"]:
        # Top-level names only: finding `a.b` would import (run) package `a`.
        if not package.isidentifier():
            raise ConfigError(
                f"{source}: dependencies names {package!r}; expected a top-level package name (`linear_operator`), "
                f"\"auto\" (the installed torch libraries the tree imports), or [] for none (the default)"
            )
    strategy = values.get("io_strategy", "guard")
    if strategy not in IO_STRATEGIES:
        raise ConfigError(f"{source}: io-strategy must be one of {', '.join(IO_STRATEGIES)}, got {strategy!r}")
    scope = values.get("scope", "auto")
    if scope not in SCOPES:
        raise ConfigError(f"{source}: scope must be one of {', '.join(SCOPES)}, got {scope!r}")
    notices = values.get("deprecation_notices", "advice")
    if notices not in DEPRECATION_NOTICES:
        raise ConfigError(f"{source}: deprecation-notices must be one of {', '.join(DEPRECATION_NOTICES)}, "
                          f"got {notices!r}")
    if not isinstance(values.get("baseline", ""), str):
        raise ConfigError(f"{source}: baseline must be a path (a string)")
    target = values.get("target_version")
    if target is not None and not (isinstance(target, str) and parse_version(target)):
        raise ConfigError(f"{source}: target-version must be a Python 3 version from 3.7 on, such as \"3.11\" "
                          f"or \"py311\", got {target!r}")
    verify = values.get("verify", {})
    if not isinstance(verify, dict):
        raise ConfigError(f"{source}: verify must be a table")
    return Config(**values, source=source)
