"""Which fixes a change to the rewrites stopped offering on the wild set, and why (issue 24).

Takes two folders of `graphmend check --show-fixes --unsafe-fixes --output-format json --config
configs/<lib>.yml PACKAGE` outputs, one file per library (`<lib>.json`), made with the code before
and after the change. Prints, per library, the findings that had a fix before and have none after
(refused), those that have one only after (new) and those whose fix changed title, and for each
refused finding the reason every strategy of its rule gives now: the message of the last
`Rejected` it raised (the code of the current checkout, run in this process).

    PYTHONPATH=$PWD .venv-wild/bin/python benchmarks/wild/refused_fixes.py BEFORE_DIR AFTER_DIR
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from pathlib import Path
from typing import Any

from graphmend_bot.config import Config
from graphmend_bot.findings import Finding, Location
from graphmend_bot.rewrite.context import FixContext, Rejected
from graphmend_bot.rewrite.strategies import strategies_for

Key = tuple[str, int, int, str]


def _fixes(path: Path) -> dict[Key, dict[str, Any]]:
    findings = json.loads(path.read_text(encoding="utf-8") or "[]") if path.exists() else []
    return {(f["filename"], f["location"]["row"], f["location"]["column"], f["code"]): f
            for f in findings if f.get("fix")}


def _finding(record: dict[str, Any]) -> Finding:
    start, end = record["location"], record["end_location"]
    return Finding(record["code"], record["message"], record["filename"], Location(start["row"], start["column"]),
                   Location(end["row"], end["column"]), record.get("graph_break_id") or "")


def refusal_reasons(record: dict[str, Any]) -> list[str]:
    """`strategy: reason` for each strategy of the finding's rule that refuses it now."""
    finding = _finding(record)
    source = Path(finding.path).read_text(encoding="utf-8")
    ctx = FixContext(source, Config(), finding.path)
    reasons: list[str] = []
    original_init = Rejected.__init__
    raised: list[str] = []

    def recording_init(self: Rejected, *args: object) -> None:
        raised.append(str(args[0]) if args else "")
        original_init(self, *args)

    Rejected.__init__ = recording_init  # type: ignore[method-assign]  # instrumentation for this report only
    try:
        for name, build_fix in strategies_for(finding.code):
            raised.clear()
            fix = build_fix(ctx, finding)
            if fix is not None:
                reasons.append(f"{name}: offers a fix ({fix.title})")
            elif raised:
                reasons.append(f"{name}: {raised[-1]}")
    finally:
        Rejected.__init__ = original_init  # type: ignore[method-assign]
    return reasons


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("before", type=Path)
    parser.add_argument("after", type=Path)
    args = parser.parse_args()
    totals: Counter[str] = Counter()
    for before_file in sorted(args.before.glob("*.json")):
        before, after = _fixes(before_file), _fixes(args.after / before_file.name)
        refused = sorted(set(before) - set(after))
        new = sorted(set(after) - set(before))
        changed = sorted(k for k in set(before) & set(after)
                         if before[k]["fix"]["message"].split(" (")[0] != after[k]["fix"]["message"].split(" (")[0])
        totals.update(before=len(before), after=len(after), refused=len(refused), new=len(new), changed=len(changed))
        print(f"{before_file.stem}: fixes {len(before)} -> {len(after)}; refused {len(refused)}, new {len(new)}, "
              f"changed {len(changed)}")
        for key in refused:
            where = f"{key[0].split('site-packages/')[-1]}:{key[1]} {key[3]}"
            print(f"  refused {where}: was {before[key]['fix']['message'].split(' (')[0]}")
            for reason in refusal_reasons(before[key]):
                print(f"    {reason}")
        for key in new:
            print(f"  new {key[0].split('site-packages/')[-1]}:{key[1]} {key[3]}: {after[key]['fix']['message'][:120]}")
        for key in changed:
            print(f"  changed {key[0].split('site-packages/')[-1]}:{key[1]} {key[3]}: "
                  f"{after[key]['fix']['message'][:120]}")
    print("total: " + ", ".join(f"{name} {count}" for name, count in totals.items()))


if __name__ == "__main__":
    main()
