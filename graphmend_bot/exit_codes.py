"""Exit statuses: one convention for every command (check, review, bot, verify, approve).

Each command names the statuses by what they mean to it; the numbers are the same everywhere, so a
workflow can read any step's status the same way.
"""

from __future__ import annotations

# 0: the command did its job and the answer is yes (no findings, outputs equal, approved, allowed).
EXIT_CLEAN = EXIT_PASSED = EXIT_APPROVED = EXIT_ALLOWED = EXIT_MEASURED = 0
# 1: it did its job and the answer is no (findings, verification failed, not approved).
EXIT_FINDINGS = EXIT_FAILED = EXIT_NOT_APPROVED = 1
# 2: it could not: a usage error, unreadable input, an API failure, a refusal.
EXIT_ERROR = EXIT_REFUSED = 2
# 130: stopped by Ctrl-C (128 + SIGINT, as a shell reports it), with "Interrupted." on stderr.
EXIT_INTERRUPTED = 130
