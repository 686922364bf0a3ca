"""CPU that parsing the files the prefilter skips, for their syntax alone, adds to a cold check
(engine.Workspace._check_unparsed, review14 #12); a warm run reads the outcome from each scan.

    PYTHONPATH=$PWD .venv/bin/python benchmarks/skipped_syntax_cost.py [TREE ...]

The default tree is the installed transformers package.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

from graphmend_bot.analysis.files import discover
from graphmend_bot.analysis.prefilter import FileScan, relevant_modules
from graphmend_bot.engine import _syntax_error, scan_file


def main() -> None:
    if len(sys.argv) > 1:
        trees = sys.argv[1:]
    else:
        import transformers

        trees = [str(Path(transformers.__file__).parent)]
    for tree in trees:
        files, _ = discover([tree], [], None)
        scans = [scan for scan in map(scan_file, files) if isinstance(scan, FileScan)]
        relevant = relevant_modules(scans, [])
        skipped = [f for f in files if f.module not in relevant]
        start = time.process_time()
        errors = [error for error in (_syntax_error(f.path) for f in skipped) if error]
        seconds = time.process_time() - start
        print(
            f"{tree}: {len(files)} files, {len(skipped)} the prefilter skips, parsed in {seconds:.2f} s CPU; "
            f"{len(errors)} syntax error(s)"
        )


if __name__ == "__main__":
    main()
