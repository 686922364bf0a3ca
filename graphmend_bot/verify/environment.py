"""Which environment variables code under measurement may see, and which ones count as secrets.

The measurement children run the code being verified, which in the GPU approval job is a pull
request's. They get an allow-listed environment: what an interpreter, torch and the GPU driver
need, and nothing of GitHub Actions (no `GITHUB_*`, `ACTIONS_*`, `INPUT_*`, no token).

`secret_variables` is the rule `graphmend approve measure` refuses to run under, applied to every
variable of its environment (allowed to the children or not: what the step holds, the measured
code could once reach). A variable is a secret when

- its name contains TOKEN, SECRET, KEY, PASSWORD, PASSWD, PASSPHRASE, CREDENTIAL, COOKIE or AUTH
  (not AUTHOR), in any case: `SSH_AUTH_SOCK` (an agent that signs with your keys), `XAUTHORITY`;
- or its value holds a GitHub token (`ghp_`, `gho_`, `ghu_`, `ghs_`, `ghr_`, `github_pat_`), a URL
  with a password (`postgres://user:pw@host/db` in a `DATABASE_URL`, `https://x:token@github.com`)
  or a PEM private key.

Empty values are not secrets, nor are the few public values listed in `PUBLIC_NAMES`. The rule
errs on the side of refusing: a false positive costs a renamed variable, a false negative costs
the repository. The children's environment is an allow-list (below), not this rule minus the
secrets: a name no rule foresaw (`PGSERVICEFILE`, a vendor's `*_DSN`) never reaches them.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

# Exact names a child inherits from the parent.
ALLOWED_NAMES = frozenset({
    "PATH", "HOME", "LANG", "LANGUAGE", "TZ", "TMPDIR", "TEMP", "TMP",
    "LD_LIBRARY_PATH",  # where CUDA's and ROCm's libraries are found on many machines
    "OMP_NUM_THREADS", "MKL_NUM_THREADS",  # CPU thread counts change timings, so they follow the user
    "CUDA_VISIBLE_DEVICES", "CUDA_DEVICE_ORDER", "CUDA_HOME", "CUDA_PATH",
    "NVIDIA_VISIBLE_DEVICES", "NVIDIA_DRIVER_CAPABILITIES",
    "HIP_VISIBLE_DEVICES", "ROCR_VISIBLE_DEVICES", "ROCM_PATH", "ROCM_HOME",
})
ALLOWED_PREFIXES = ("LC_",)
# Names that match SECRET_NAME but hold public data: the official Python images set GPG_KEY to the
# fingerprint of the release manager's public key.
PUBLIC_NAMES = frozenset({"GPG_KEY"})
SECRET_NAME = re.compile(r"TOKEN|SECRET|KEY|PASS(WORD|WD|PHRASE)|CREDENTIAL|COOKIE|AUTH(?!ORS?(_|$))",
                         re.IGNORECASE)
GITHUB_TOKEN_VALUE = re.compile(r"(^|[^A-Za-z0-9])(gh[pousr]_|github_pat_)")
# scheme://user:password@ (the password may be empty of '@' and '/', the user of ':' too)
URL_WITH_PASSWORD = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://[^/\s:@]*:[^/\s@]+@")
PRIVATE_KEY = re.compile(r"-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----")


def is_secret(name: str, value: str) -> bool:
    if not value.strip():
        return False
    if any(pattern.search(value) for pattern in (GITHUB_TOKEN_VALUE, URL_WITH_PASSWORD, PRIVATE_KEY)):
        return True
    return name not in PUBLIC_NAMES and SECRET_NAME.search(name) is not None


def secret_variables(environment: Mapping[str, str]) -> list[str]:
    """The names of the variables that hold (or may hold) a credential, sorted."""
    return sorted(name for name, value in environment.items() if is_secret(name, value))


def child_environment(environment: Mapping[str, str], extra: Mapping[str, str]) -> dict[str, str]:
    """The allow-listed part of `environment`, minus anything secret, plus what the caller sets."""
    allowed = {
        name: value
        for name, value in environment.items()
        if (name in ALLOWED_NAMES or name.startswith(ALLOWED_PREFIXES)) and not is_secret(name, value)
    }
    return {**allowed, **extra}
