"""Sharding a whole-repository check across a GitHub Actions matrix, and merging the shards.

Shard i of N reports the files at positions i-1, i-1+N, ... of the sorted file list (every shard
still reads the whole tree as context, so scope across modules is the same as in one run). Each
shard writes its CheckResult losslessly as JSON (finding records, as the JSON report and the review
bundle write them); the merge step reads them all back into one
CheckResult, from which one report and one SARIF file are rendered.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from graphmend_bot.analysis.files import discover
from graphmend_bot.config import Config
from graphmend_bot.finding_records import RecordError, error_record, finding_record, read_error, read_finding
from graphmend_bot.findings import CheckResult, FileError

FORMAT = "graphmend-shard"
VERSION = 2  # 2: findings are finding_records.py records (with their evidence)


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


def dump_result(result: CheckResult, shard: str, files: Sequence[str]) -> dict[str, Any]:
    return {"format": FORMAT, "version": VERSION, "shard": shard, "files": list(files),
            "files_checked": len(files),
            "findings": [finding_record(f, filename=f.path, lossless=True) for f in result.findings],
            "errors": [error_record(e) for e in result.errors]}


def load_shard(path: Path) -> tuple[str, CheckResult]:
    try:
        data = json.loads(path.read_text("utf-8"))
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            raise ShardError(f"{path}: not a GraphMend shard result (written by `graphmend check --shard`)")
        if data.get("version") != VERSION:
            raise ShardError(f"{path}: shard format version {data.get('version')!r}, this graphmend reads {VERSION}")
        findings, errors = data.get("findings"), data.get("errors")
        if not isinstance(findings, list) or not isinstance(errors, list):
            raise RecordError("findings and errors must be lists")
        result = CheckResult([read_finding(f, f"findings[{i}]") for i, f in enumerate(findings)],
                             [read_error(e, f"errors[{i}]") for i, e in enumerate(errors)], int(data["files_checked"]))
        return str(data["shard"]), result
    except (OSError, UnicodeDecodeError) as error:
        raise ShardError(f"cannot read the shard result {path}: {error}") from None
    except (json.JSONDecodeError, KeyError, TypeError, ValueError) as error:
        if isinstance(error, ShardError):
            raise
        if isinstance(error, RecordError):
            raise ShardError(f"{path}: damaged shard result ({error})") from None
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
