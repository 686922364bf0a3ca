#!/usr/bin/env bash
# Install GraphMend from this action's own source into a fresh virtual environment under
# $RUNNER_TEMP and print its interpreter. Never the runner's system Python, never anything from the
# checkout: pip runs isolated (-I) from $RUNNER_TEMP, so a `pip/` or `graphmend_bot/` folder in the
# pull request cannot shadow the real ones. This does not keep the runner clean: the measured code
# runs as the runner's user, so only an ephemeral runner stops it persisting (docs/security.md).
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
"$venv/bin/python" -I -m pip install --quiet --disable-pip-version-check "$source_dir" >&2
echo "$venv/bin/python"
