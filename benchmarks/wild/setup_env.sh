#!/bin/sh
# Creates .venv-wild for the wild benchmark (benchmarks/wild/run.py): torch 2.13.0 (the CPU build;
# an unpinned torch pulls a multi-GB CUDA build) first, then the pinned libraries under a constraints
# file that pins torch so no library can replace it, then this package in editable mode; and
# .venv-wild-hf, transformers 5.x for the transformers families (hf_corpus.py), the same way.
# Usage, from the repository root:  sh benchmarks/wild/setup_env.sh
set -eu
PYTHON="${PYTHON:-python3}"
VENV="${VENV:-.venv-wild}"
HERE="$(dirname "$0")"
if [ ! -x "$VENV/bin/python" ]; then
    "$PYTHON" -m venv "$VENV"
fi
PIP="$VENV/bin/python -m pip"
$PIP install --quiet --upgrade pip
$PIP install --quiet "torch==2.13.0"
$PIP install --quiet -c "$HERE/constraints.txt" -r "$HERE/requirements.txt"
# openai-whisper requires triton (a CUDA compiler, only used by its GPU timing kernels): install it
# without dependencies, then its real pure-Python dependencies from requirements.txt above.
$PIP install --quiet -c "$HERE/constraints.txt" --no-deps "openai-whisper==20250625"
# blitz-bayesian-pytorch and bayesian-torch declare torchvision (unusable here, see requirements.txt),
# which only their tests and ImageNet-size models import: install them without dependencies (their
# real ones, torch and numpy, are in the set).
$PIP install --quiet -c "$HERE/constraints.txt" --no-deps "blitz-bayesian-pytorch==0.2.8"
$PIP install --quiet -c "$HERE/constraints.txt" --no-deps "bayesian-torch==0.5.0"
# brevitas pins setuptools<81 (which would replace the set's setuptools) but never imports
# pkg_resources: install it without dependencies (its others are in requirements.txt).
$PIP install --quiet -c "$HERE/constraints.txt" --no-deps "brevitas==0.13.4"
# pythae declares the `dataclasses` backport (a Python 3.6 shim); its real dependencies are in the set.
$PIP install --quiet -c "$HERE/constraints.txt" --no-deps "pythae==0.1.2"
# dynamic-network-architectures declares timm (which needs torchvision) for its ViT backbones only;
# mirtorch pins torchkbnufft<1.5.2 (the set has 1.5.2, which its operators run with): install both
# without dependencies (their others are in the set or in requirements.txt).
$PIP install --quiet -c "$HERE/constraints.txt" --no-deps "dynamic-network-architectures==0.4.4"
$PIP install --quiet -c "$HERE/constraints.txt" --no-deps "mirtorch==0.4.0"
# torchdyn declares torchvision, ipykernel, ipywidgets and poethepoet, which it never imports; its
# real dependencies (torchcde, torchsde, scipy, ...) are in the set.
$PIP install --quiet -c "$HERE/constraints.txt" --no-deps "torchdyn==1.0.6"
# norse and spikingjelly declare torchvision (and spikingjelly torchaudio), which only their task,
# dataset and example modules import.
$PIP install --quiet -c "$HERE/constraints.txt" --no-deps "norse==1.1.0" "spikingjelly==2.0.0"
# torchattacks pins requests~=2.25.1 (the set has 2.34.2) and declares torchvision, which only its
# bundled robustbench package imports; laplace-torch, backpack-for-pytorch and curvlinops-for-pytorch
# declare torchvision, which only backpack.utils.examples imports; torchcfm declares torchvision,
# ipykernel, ipywidgets and poethepoet (through torchdyn's), none of which it imports; torchphysics
# declares numpy<2 and jupyter but runs on the set's numpy 2 and never imports jupyter.
$PIP install --quiet -c "$HERE/constraints.txt" --no-deps "torchattacks==3.5.1"
$PIP install --quiet -c "$HERE/constraints.txt" --no-deps "laplace-torch==0.3" "backpack-for-pytorch==1.7.1" "curvlinops-for-pytorch==3.0.1"
$PIP install --quiet -c "$HERE/constraints.txt" --no-deps "torchcfm==1.0.7" "torchphysics==1.1.2"
$PIP install --quiet -c "$HERE/constraints.txt" -e .
"$VENV/bin/python" -c "import torch; assert torch.__version__.startswith('2.13.0'), torch.__version__; print('torch', torch.__version__)"

HF_VENV="${HF_VENV:-.venv-wild-hf}"
if [ ! -x "$HF_VENV/bin/python" ]; then
    "$PYTHON" -m venv "$HF_VENV"
fi
HF_PIP="$HF_VENV/bin/python -m pip"
TORCH_PIN="$(mktemp)"
echo "torch==2.13.0" > "$TORCH_PIN"
$HF_PIP install --quiet --upgrade pip
$HF_PIP install --quiet "torch==2.13.0"
$HF_PIP install --quiet -c "$TORCH_PIN" -r "$HERE/requirements-hf.txt"
$HF_PIP install --quiet -c "$TORCH_PIN" --no-deps -e .
rm -f "$TORCH_PIN"
"$HF_VENV/bin/python" -c "import torch, transformers; assert torch.__version__.startswith('2.13.0'); print('transformers', transformers.__version__)"
