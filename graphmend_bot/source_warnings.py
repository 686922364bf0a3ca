"""Compile warnings about checked source never reach stderr.

Parsing a pull request's file (`ast.parse`, `compile`) warns about that file: an invalid escape
(`"\\d"`: a SyntaxWarning from Python 3.12, a DeprecationWarning before), `is` with a literal. The
warning line starts with the file's name and quotes its source line, both the pull request's, on
stderr, which the Actions runner reads: a file named `::set-output name=x::y.py` issued a workflow
command. The findings are GraphMend's to report, so these warnings are dropped. The actions also
run Python with `-W ignore` (and the image with PYTHONWARNINGS=ignore), for warnings raised before
this runs.
"""

from __future__ import annotations

import warnings


def ignore_source_warnings() -> None:
    warnings.filterwarnings("ignore", category=SyntaxWarning)
    warnings.filterwarnings("ignore", message="invalid escape sequence", category=DeprecationWarning)
