"""The PyGithub edge: a client that retries what is worth retrying, and plain-English errors.

Retries: 5xx with exponential backoff; primary rate limits (403/429 with x-ratelimit-remaining 0)
wait until x-ratelimit-reset; secondary rate limits wait for retry-after. Everything else fails
fast and is described by `describe()` so the user never sees a traceback.
"""

from __future__ import annotations

import logging
import os
import sys
import time
from collections.abc import Collection
from typing import Any

import requests
from github import Auth, Github, GithubException, UnknownObjectException
from github.GithubRetry import GithubRetry
from github.GitTreeElement import GitTreeElement
from github.Repository import Repository
from urllib3 import Retry
from urllib3.exceptions import MaxRetryError

TIMEOUT_S = 30
EXECUTABLE = "100755"  # git's mode of an executable file
MAX_RATE_LIMIT_WAIT_S = 600.0


class RateLimitWaitTooLong(GithubException):
    """The primary rate limit resets later than the bot is willing to wait."""


class ApiRetry(GithubRetry):
    """GithubRetry plus 429, primary rate limits read from the headers, and a log line per retry."""

    def __init__(self, **kwargs: Any) -> None:
        kwargs.setdefault("status_forcelist", [429, *range(500, 600)])
        kwargs.setdefault("total", 6)
        kwargs.setdefault("backoff_factor", 1.0)
        kwargs.setdefault("backoff_max", 30.0)
        kwargs.setdefault("secondary_rate_wait", 60.0)
        kwargs.setdefault("max_rate_limit_wait", MAX_RATE_LIMIT_WAIT_S)
        super().__init__(**kwargs)

    def increment(  # type: ignore[override]
        self,
        method: str | None = None,
        url: str | None = None,
        response: Any = None,
        error: Exception | None = None,
        _pool: Any = None,
        _stacktrace: Any = None,
    ) -> Retry:
        headers = response.headers if response is not None else {}
        status = response.status if response is not None else None
        if status in (403, 429) and "Retry-After" not in headers and headers.get("X-RateLimit-Remaining") == "0":
            reset = headers.get("X-RateLimit-Reset", "")
            wait = max(0.0, int(reset) - time.time() + 1) if reset.isdigit() else 60.0
            if self.max_rate_limit_wait is not None and wait > self.max_rate_limit_wait:
                raise RateLimitWaitTooLong(status, {"message": f"API rate limit exhausted; it resets in {wait:.0f}s"},
                                           dict(headers))
            limited = Retry.increment(self, method, url, response, error, _pool, _stacktrace)
            _log(f"GitHub API rate limit reached ({method} {_path(url)}); waiting {wait:.0f}s for the reset")
            limited.get_backoff_time = lambda: wait  # type: ignore[method-assign]
            return limited
        retry: Retry = super().increment(method, url, response, error, _pool, _stacktrace)
        if status is not None:
            after = headers.get("Retry-After")
            when = f"after {after}s" if after else f"in {retry.get_backoff_time():.0f}s"
            _log(f"GitHub API answered {status} to {method} {_path(url)}; retrying {when}")
        elif error is not None:
            _log(f"GitHub API request {method} {_path(url)} failed ({type(error).__name__}); retrying")
        return retry


def _path(url: str | None) -> str:
    return (url or "").split("?", 1)[0]


def _log(message: str) -> None:
    print(message, file=sys.stdout, flush=True)


def write_interval() -> float:
    """Seconds between writes: 1 (GitHub's advice), or GRAPHMEND_WRITE_INTERVAL_S (0 to 10) for a
    server without secondary rate limits, such as the tests' local fake."""
    raw = os.environ.get("GRAPHMEND_WRITE_INTERVAL_S", "")
    try:
        value = float(raw)
    except ValueError:
        return 1.0
    return value if 0 <= value <= 10 else 1.0


def quiet_pygithub() -> None:
    """PyGithub logs each failed request at INFO to stderr ("Request POST ... failed with 403"), beside
    the bot's own line from `describe()`. Keep its warnings; the bot says what a failure means."""
    logging.getLogger("github").setLevel(logging.WARNING)


def connect(api_url: str, token: str) -> Github:
    """A client for `GITHUB_API_URL` (GitHub Enterprise included).

    Requests are made one at a time; writes stay a second apart (GitHub's advice against secondary
    rate limits). Reads need no extra spacing when serial, so PyGithub's 0.25 s pause is off.
    """
    quiet_pygithub()
    return Github(
        base_url=api_url.rstrip("/"),
        auth=Auth.Token(token),
        retry=ApiRetry(),
        timeout=TIMEOUT_S,
        user_agent="graphmend-bot",
        seconds_between_requests=None,
        seconds_between_writes=write_interval(),
    )


# What a failure means, for the errors the API is expected to give.
_MEANING = {
    401: "the token was rejected (bad or expired credentials); check the `github-token` input",
    403: "the token may not do this; the workflow needs `permissions: pull-requests: write` "
         "(a pull request from a fork only ever gets a read-only token)",
    404: "not found; check that the repository and pull request exist and that the token can see them",
    422: "GitHub rejected the request as invalid",
}

API_ERRORS = (GithubException, requests.RequestException, MaxRetryError)


def status_of(error: BaseException) -> int | None:
    return error.status if isinstance(error, GithubException) else None


def describe(error: BaseException, doing: str, needs: str = "") -> str:
    """One line for the log: what the bot was doing, what GitHub said, what it means. `needs`, the
    permissions `doing` takes, is named only when GitHub refused them (a 403 that is no rate limit):
    any other failure (a 422 for a body too long, a 5xx) is not about permissions."""
    if isinstance(error, GithubException):
        data = error.data if isinstance(error.data, dict) else {}
        said = str(data.get("message") or error.message or "").strip()
        details = [str(e.get("message") or e.get("code") or e) if isinstance(e, dict) else str(e)
                   for e in data.get("errors") or []]
        if details:
            said += f" ({'; '.join(details)})"
        meaning = _MEANING.get(error.status, "")
        if (error.status == 403 and "rate limit" in said.lower()) or isinstance(error, RateLimitWaitTooLong):
            meaning = "the API rate limit is exhausted"
        elif needs and error.status == 403:
            doing = f"{doing} (it needs {needs})"
        text = f"{doing} failed: GitHub answered {error.status}"
        text += f" {said!r}" if said else ""
        return f"{text}: {meaning}" if meaning else text
    if isinstance(error, requests.exceptions.RetryError | MaxRetryError):
        return f"{doing} failed: GitHub kept answering with errors after several retries"
    if isinstance(error, requests.RequestException):
        return f"{doing} failed: cannot reach the GitHub API ({type(error).__name__})"
    return f"{doing} failed: {type(error).__name__}: {error}"


def fetch_file(repo: Repository, path: str, ref: str) -> bytes | None:
    """A regular file's bytes at `ref` through the contents API; None when there is no such file."""
    try:
        content = repo.get_contents(path, ref=ref)
    except UnknownObjectException:
        return None
    except GithubException as error:
        if error.status == 404:
            return None
        raise
    if isinstance(content, list) or content.type != "file":
        return None
    try:
        return content.decoded_content
    except (AssertionError, ValueError):  # larger than the contents API serves, or not base64
        return None


def file_modes(repo: Repository, commit_sha: str, paths: Collection[str]) -> dict[str, str]:
    """{path: git mode ("100644", "100755", "120000" ...)} of those `paths` that exist at `commit_sha`."""
    return {path: entry.mode for path, entry in tree_entries(repo, commit_sha, paths).items()}


def tree_entries(repo: Repository, commit_sha: str, paths: Collection[str]) -> dict[str, GitTreeElement]:
    """{path: its tree entry (mode, type, blob SHA)} of those `paths` that exist at `commit_sha`.

    Read one folder at a time (only the folders on the way to `paths`), because GitHub truncates a
    recursive listing of a large repository."""
    listings: dict[str, dict[str, GitTreeElement]] = {}

    def listing(folder: str) -> dict[str, GitTreeElement]:
        if folder not in listings:
            sha: str | None = repo.get_git_commit(commit_sha).tree.sha
            if folder:
                parent, _, name = folder.rpartition("/")
                entry = listing(parent).get(name)
                sha = entry.sha if entry is not None and entry.type == "tree" else None
            listings[folder] = {e.path: e for e in repo.get_git_tree(sha).tree} if sha else {}
        return listings[folder]

    entries = {}
    for path in paths:
        folder, _, name = path.rpartition("/")
        entry = listing(folder).get(name)
        if entry is not None:
            entries[path] = entry
    return entries
