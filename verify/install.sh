#!/usr/bin/env bash
# Install GraphMend from this action's own source into a fresh virtual environment under
# $RUNNER_TEMP and print its interpreter. Never the runner's system Python, never anything from the
# checkout: pip runs isolated (-I) from $RUNNER_TEMP, so a `pip/` or `graphmend_bot/` folder in the
# pull request cannot shadow the real ones. This does not keep the runner clean: the sandboxed code
# can still write where any user may (/tmp), so only an ephemeral runner stops it persisting
# (docs/security.md).
# What pip downloads is verify/requirements.lock, hash-checked (--require-hashes); GraphMend itself is
# then built from this source with the lock's setuptools and setuptools-scm, fetching nothing
# (--no-index --no-build-isolation). torch is not installed here: the measure step uses the runner's.
#   install.sh PYTHON [--system-site-packages]
# --system-site-packages only where torch must come from the runner (the measure step).
set -euo pipefail
python="$1"
shift
source_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
venv="$RUNNER_TEMP/graphmend-venv"
cd "$RUNNER_TEMP" || exit 2
rm -rf "$venv"
"$python" -I -m venv "$@" "$venv" >&2
pip=("$venv/bin/python" -I -m pip install --quiet --disable-pip-version-check --no-deps)
"${pip[@]}" --require-hashes -r "$source_dir/verify/requirements.lock" >&2
"${pip[@]}" --no-index --no-build-isolation "$source_dir" >&2
echo "$venv/bin/python"
