#!/bin/sh
# Creates .venv-bench for the benchmarks: torch 2.13.0 (CPU build, pinned: an unpinned torch pulls a
# multi-GB CUDA build), transformers 4.52.4 (the version DESIGN.md section 4 was measured on) and
# this package in editable mode. Usage, from the repository root on a fresh clone:
#   sh benchmarks/setup_env.sh && .venv-bench/bin/python benchmarks/hf_models.py
set -eu
PYTHON="${PYTHON:-python3}"
VENV="${VENV:-.venv-bench}"
if [ ! -x "$VENV/bin/python" ]; then
    "$PYTHON" -m venv "$VENV"
fi
"$VENV/bin/python" -m pip install --quiet --upgrade pip
"$VENV/bin/python" -m pip install --quiet "torch==2.13.0"
"$VENV/bin/python" -m pip install --quiet "transformers==4.52.4" -e .
"$VENV/bin/python" -c "import torch, transformers; print('torch', torch.__version__, 'transformers', transformers.__version__)"
