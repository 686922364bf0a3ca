"""Sharding a whole-repository check across a GitHub Actions matrix, and merging the shards.

Shard i of N reports the files at positions i-1, i-1+N, ... of the sorted file list (every shard
still reads the whole tree as context, so scope across modules is the same as in one run). Each
shard writes its CheckResult losslessly as JSON; the merge step reads them all back into one
CheckResult, from which one report and one SARIF file are rendered.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from graphmend_bot.analysis.files import discover
from graphmend_bot.config import Config
from graphmend_bot.findings import CheckResult, Edit, FileError, Finding, Fix, Location

FORMAT = "graphmend-shard"
VERSION = 1


class ShardError(ValueError):
    """A bad `--shard` value or an unreadable shard file: the message says which."""


def parse_shard(text: str) -> tuple[int, int]:
    """`"i/N"` (1-based) -> (i, N)."""
    index, _, count = text.strip().partition("/")
    if not (index.isdigit() and count.isdigit()) or not 1 <= int(index) <= int(count) <= 256:
        raise ShardError(f"a shard is written i/N with 1 <= i <= N <= 256, got {text!r}")
    return int(index), int(count)


def shard_files(paths: Iterable[str], config: Config, index: int, count: int) -> list[str]:
    """The files shard `index` of `count` reports."""
    files, _ = discover(paths, config.exclude)
    ordered = sorted(f.path for f in files)
    return ordered[index - 1::count]


def _location(loc: Location) -> list[int]:
    return [loc.row, loc.column]


def _finding(finding: Finding) -> dict[str, Any]:
    fix = None
    if finding.fix is not None:
        fix = {"applicability": finding.fix.applicability, "message": finding.fix.message,
               "edits": [{"content": e.content, "location": _location(e.location),
                          "end_location": _location(e.end_location)} for e in finding.fix.edits]}
    return {"code": finding.code, "message": finding.message, "path": finding.path,
            "location": _location(finding.location), "end_location": _location(finding.end_location),
            "gb_id": finding.gb_id, "symbol": finding.symbol, "source_line": finding.source_line,
            "occurrence": finding.occurrence, "frequency": finding.frequency, "fix": fix}


def dump_result(result: CheckResult, shard: str, files: Sequence[str]) -> dict[str, Any]:
    return {"format": FORMAT, "version": VERSION, "shard": shard, "files": list(files),
            "files_checked": len(files), "findings": [_finding(f) for f in result.findings],
            "errors": [{"path": e.path, "message": e.message} for e in result.errors]}


def _load_finding(data: dict[str, Any]) -> Finding:
    raw_fix = data.get("fix")
    fix = None
    if raw_fix is not None:
        fix = Fix(raw_fix["applicability"], raw_fix["message"], tuple(
            Edit(e["content"], Location(*e["location"]), Location(*e["end_location"])) for e in raw_fix["edits"]))
    return Finding(code=data["code"], message=data["message"], path=data["path"],
                   location=Location(*data["location"]), end_location=Location(*data["end_location"]),
                   gb_id=data["gb_id"], symbol=data["symbol"], source_line=data["source_line"],
                   occurrence=data["occurrence"], fix=fix,
                   frequency="rare-branch" if data.get("frequency") == "rare-branch" else "every-call")


def load_shard(path: Path) -> tuple[str, CheckResult]:
    try:
        data = json.loads(path.read_text("utf-8"))
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            raise ShardError(f"{path}: not a GraphMend shard result (written by `graphmend check --shard`)")
        if data.get("version") != VERSION:
            raise ShardError(f"{path}: shard format version {data.get('version')!r}, this graphmend reads {VERSION}")
        result = CheckResult([_load_finding(f) for f in data["findings"]],
                             [FileError(e["path"], e["message"]) for e in data["errors"]], int(data["files_checked"]))
        return str(data["shard"]), result
    except (OSError, UnicodeDecodeError) as error:
        raise ShardError(f"cannot read the shard result {path}: {error}") from None
    except (json.JSONDecodeError, KeyError, TypeError, ValueError) as error:
        if isinstance(error, ShardError):
            raise
        raise ShardError(f"{path}: damaged shard result ({type(error).__name__}: {error})") from None


def shard_paths(where: Iterable[str]) -> list[Path]:
    """Shard files named directly or found (recursively, *.json) in the folders given."""
    found: list[Path] = []
    for raw in where:
        path = Path(raw)
        if path.is_dir():
            found += sorted(path.rglob("*.json"))
        elif path.is_file():
            found.append(path)
        else:
            raise ShardError(f"no shard results at {raw}")
    if not found:
        raise ShardError(f"no shard result files in {' '.join(where)}")
    return found


def merge_shards(paths: Sequence[Path]) -> CheckResult:
    """One CheckResult from all shards; each shard exactly once, all N of them."""
    shards: dict[str, CheckResult] = {}
    for path in paths:
        name, result = load_shard(path)
        if name in shards:
            raise ShardError(f"shard {name} appears twice ({path})")
        shards[name] = result
    counts = {parse_shard(name)[1] for name in shards}
    if len(counts) != 1:
        raise ShardError(f"the shards come from different splits: {', '.join(sorted(shards))}")
    total = counts.pop()
    missing = sorted(set(range(1, total + 1)) - {parse_shard(name)[0] for name in shards})
    if missing:
        raise ShardError(f"missing shard(s) {', '.join(f'{i}/{total}' for i in missing)}: a matrix job failed")
    merged = CheckResult()
    errors: dict[tuple[str, str], FileError] = {}
    for result in shards.values():
        merged.findings += result.findings
        merged.files_checked += result.files_checked
        for error in result.errors:
            errors.setdefault((error.path, error.message), error)
    merged.findings.sort(key=lambda f: f.sort_key)
    merged.errors = sorted(errors.values(), key=lambda e: e.path)
    return merged
