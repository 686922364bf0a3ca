"""A fake GitHub REST API over real HTTP, for PyGithub to reach through `base_url`.

Stateful: repositories, pull requests (seeded from real webhook payloads), their files and patches
(computed from a real git repository by `gitrepo.pull_files`), commits, reviews, review comments,
issue comments and reactions. It answers like GitHub does where the bot depends on it: line
comments only on lines in the diff (422 otherwise), 401 for a wrong token, 403 for writes with a
read-only token, Link-header pagination, and injectable faults (5xx, rate limits).

With a git remote attached (`attach_remote`), the repository's branches and objects live in a real
bare git repository: the git data API (blobs, trees, commits, refs; fast-forward checks on ref
updates), pull requests created, listed, edited and closed through the API (their files computed
by git), the tarball link and its codeload download, issues, workflow dispatches, and reviews
that approve or request changes (never on one's own pull request). Several tokens may act as
different users (`users`). Workflow runs and their artifacts (`add_workflow_run`) are listed and
downloaded as GitHub serves them: the zip link redirects to storage that needs no token.

To extend it, add a handler with `@route`: handlers get a Request and return `(status, body)` or
`(status, body, headers)`.
"""

from __future__ import annotations

import base64
import itertools
import json
import re
import subprocess
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

PUBLIC_API = "https://api.github.com"
BOT_USER = {"login": "github-actions[bot]", "id": 41898282, "node_id": "MDM6Qm90NDE4OTgyODI=", "type": "Bot",
            "site_admin": False}
READ_ONLY_MESSAGE = "Resource not accessible by integration"

Response = tuple[int, Any] | tuple[int, Any, dict[str, str]]
REVIEW_STATES = {"COMMENT": "COMMENTED", "APPROVE": "APPROVED", "REQUEST_CHANGES": "CHANGES_REQUESTED"}
CODELOAD = "/_codeload/"
MAX_PULL_FILES = 3000  # "list pull request files" answers at most this many, as GitHub does
ARTIFACT_STORAGE = "/_artifacts/"


@dataclass
class Request:
    method: str
    path: str  # without the /api/v3 prefix and the query
    query: dict[str, list[str]]
    body: Any
    match: re.Match[str]
    headers: dict[str, str]
    user: dict[str, Any] = field(default_factory=dict)  # who the token belongs to


@dataclass
class Fault:
    """Answer the next `times` matching requests with this response instead of handling them."""

    method: str
    pattern: str
    status: int
    body: Any
    headers: dict[str, str] = field(default_factory=dict)
    times: int = 1


Handler = Callable[["FakeGitHub", Request], Response]
ROUTES: list[tuple[str, re.Pattern[str], Handler]] = []


def route(method: str, pattern: str) -> Callable[[Handler], Handler]:
    def register(handler: Handler) -> Handler:
        ROUTES.append((method, re.compile(f"^{pattern}$"), handler))
        return handler

    return register


def _now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def right_side_lines(patch: str | None) -> dict[int, int]:
    """RIGHT-side line -> hunk index, for the lines GitHub lets a review comment point at."""
    lines: dict[int, int] = {}
    if not patch:
        return lines
    hunk, row = -1, 0
    for text in patch.split("\n"):
        header = re.match(r"@@ -\S+ \+(\d+)", text)
        if header:
            hunk, row = hunk + 1, int(header.group(1))
        elif hunk >= 0 and text[:1] in (" ", "+"):
            lines[row] = hunk
            row += 1
    return lines


class FakeGitHub:
    def __init__(self, token: str = "ghs_fake_token") -> None:
        self.token = token
        self.users: dict[str, dict[str, Any]] = {token: BOT_USER}  # token -> the user it acts as
        self.read_only = False
        self.repos: dict[str, dict[str, Any]] = {}
        self.pulls: dict[tuple[str, int], dict[str, Any]] = {}
        self.files: dict[tuple[str, int], list[dict[str, Any]]] = {}
        self.commits: dict[tuple[str, str], dict[str, Any]] = {}
        self.reviews: list[dict[str, Any]] = []
        self.review_comments: list[dict[str, Any]] = []
        self.issue_comments: list[dict[str, Any]] = []
        self.reactions: list[dict[str, Any]] = []
        self.contents: dict[tuple[str, str, str], bytes] = {}  # (repo, commit sha, path) -> file bytes
        self.faults: list[Fault] = []
        # (method, path pattern, action): run once, right after the first matching request is answered,
        # to stage a race (a push landing between two requests of one job)
        self.after_request: list[tuple[str, str, Callable[[], None]]] = []
        self.remote: BareRemote | None = None  # the repository's git objects and branches
        self.issues: dict[tuple[str, int], dict[str, Any]] = {}
        self.dispatches: list[dict[str, Any]] = []  # workflow_dispatch events the API was asked for
        # workflow file -> the inputs its workflow_dispatch trigger declares (None: no such trigger).
        # Unset, every workflow exists and takes any input; set, others are 404 as on GitHub.
        self.workflows: dict[str, set[str] | None] | None = None
        # login -> repository role (read, triage, write, maintain, admin); anyone else is no collaborator
        self.collaborators: dict[str, str] = {}
        self.blob_reads: list[str] = []  # blob SHAs read through GET /git/blobs/{sha}
        self.truncate_trees = False  # recursive tree listings come back truncated (a very large tree)
        self.archives: dict[str, bytes] = {}  # commit sha -> the tarball served instead of `git archive`
        self.log: list[tuple[str, str, int]] = []  # (method, path, status) of every request
        self.workflow_runs: list[dict[str, Any]] = []  # GET /actions/runs, newest first
        self.artifacts: dict[int, dict[str, Any]] = {}  # artifact id -> record (with `_zip`: its bytes)
        self._ids = itertools.count(1000)
        self._lock = threading.Lock()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler_class())
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    # -- lifecycle --------------------------------------------------------------------------
    @property
    def base_url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}/api/v3"

    def start(self) -> FakeGitHub:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()

    # -- state ------------------------------------------------------------------------------
    def next_id(self) -> int:
        return next(self._ids)

    def localize(self, value: Any) -> Any:
        """Serve URLs pointing at this server, as GitHub Enterprise serves its own."""
        if isinstance(value, str):
            return value.replace(PUBLIC_API, self.base_url)
        if isinstance(value, list):
            return [self.localize(v) for v in value]
        if isinstance(value, dict):
            return {k: self.localize(v) for k, v in value.items()}
        return value

    def add_repository(self, repository: dict[str, Any]) -> None:
        self.repos[repository["full_name"]] = self.localize(repository)

    def add_pull_request(self, repo: str, pull: dict[str, Any], files: list[dict[str, Any]]) -> None:
        pull = self.localize(pull)
        self.pulls[(repo, pull["number"])] = pull
        self.set_files(repo, pull["number"], files)
        for sha in (pull["head"]["sha"], pull["base"]["sha"]):
            self.commits[(repo, sha)] = {"sha": sha, "url": f"{self.base_url}/repos/{repo}/commits/{sha}",
                                         "commit": {"message": ""}, "files": []}

    def set_files(self, repo: str, number: int, files: list[dict[str, Any]]) -> None:
        self.files[(repo, number)] = files

    def push(self, repo: str, number: int, head_sha: str, files: list[dict[str, Any]]) -> None:
        """A new commit on the PR's head branch: new head sha, new files and patches."""
        pull = self.pulls[(repo, number)]
        pull["head"]["sha"] = head_sha
        self.set_files(repo, number, files)
        self.commits[(repo, head_sha)] = {"sha": head_sha, "url": f"{self.base_url}/repos/{repo}/commits/{head_sha}",
                                          "commit": {"message": ""}, "files": []}

    def commit_shas(self) -> frozenset[str]:
        """Every commit the fake knows (pull requests' heads and bases, pushes, the remote's
        branches): the SHAs the bot may name in what it posts."""
        shas = {sha for _, sha in self.commits} | {p[side]["sha"] for p in self.pulls.values() for side in ("head", "base")}
        if self.remote is not None:
            shas |= set(self.remote.git("rev-list", "--all").split())
        return frozenset(shas)

    def fail(self, method: str, pattern: str, status: int, body: Any = None,
             headers: dict[str, str] | None = None, times: int = 1) -> None:
        self.faults.append(Fault(method, pattern, status, body or {"message": "fault"}, headers or {}, times))

    def comments_on(self, repo: str, number: int) -> list[dict[str, Any]]:
        return [c for c in self.review_comments if c["_repo"] == repo and c["_pull"] == number]

    def issue_comments_on(self, repo: str, number: int) -> list[dict[str, Any]]:
        return [c for c in self.issue_comments if c["_repo"] == repo and c["_pull"] == number]

    def reviews_on(self, repo: str, number: int) -> list[dict[str, Any]]:
        return [r for r in self.reviews if r["_repo"] == repo and r["_pull"] == number]

    def writes(self) -> list[tuple[str, str, int]]:
        return [entry for entry in self.log if entry[0] not in ("GET", "QUERY")]

    # -- HTTP -------------------------------------------------------------------------------
    def _handler_class(self) -> type[BaseHTTPRequestHandler]:
        fake = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:
                pass

            def _dispatch(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length) if length else b""
                status, body, headers = fake.handle(self.command, self.path, raw, dict(self.headers))
                raw_bytes = isinstance(body, bytes)
                data = body if isinstance(body, bytes) else b"" if body is None else json.dumps(body).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/gzip" if raw_bytes else "application/json; charset=utf-8")
                self.send_header("Content-Length", str(len(data)))
                for name, value in headers.items():
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(data)

            do_GET = do_POST = do_PATCH = do_PUT = do_DELETE = _dispatch

        return Handler

    def handle(self, method: str, raw_path: str, raw_body: bytes,
               headers: dict[str, str]) -> tuple[int, Any, dict[str, str]]:
        parts = urlsplit(raw_path)
        path = parts.path.removeprefix("/api/v3")
        with self._lock:
            status, body, extra = self._handle(method, path, parse_qs(parts.query), raw_body, headers)
            self.log.append((_logged_method(method, path, raw_body), path, status))
            for staged in [a for a in self.after_request if a[0] == method and re.fullmatch(a[1], path)][:1]:
                self.after_request.remove(staged)
                body = json.loads(json.dumps(body))  # the answer as it was sent, before the action changes state
                staged[2]()
        extra.setdefault("X-RateLimit-Limit", "5000")
        extra.setdefault("X-RateLimit-Remaining", "4999")
        extra.setdefault("X-RateLimit-Reset", "4102444800")
        return status, body, extra

    def _handle(self, method: str, path: str, query: dict[str, list[str]], raw_body: bytes,
                headers: dict[str, str]) -> tuple[int, Any, dict[str, str]]:
        for fault in self.faults:
            if fault.times > 0 and fault.method == method and re.fullmatch(fault.pattern, path):
                fault.times -= 1
                return fault.status, fault.body, dict(fault.headers)
        if path.startswith(CODELOAD):  # archive downloads carry their token in the URL, like codeload
            return _codeload(self, path, query)
        if path.startswith(ARTIFACT_STORAGE):  # so do artifact downloads (a signed storage URL)
            return _artifact_storage(self, path, query)
        auth = {k.lower(): v for k, v in headers.items()}.get("authorization", "")
        scheme, _, token = auth.partition(" ")
        user = self.users.get(token) if scheme in ("token", "Bearer") else None
        if user is None:
            return 401, {"message": "Bad credentials", "documentation_url": "https://docs.github.com/rest"}, {}
        if self.read_only and method != "GET" and path != GRAPHQL:
            return 403, {"message": READ_ONLY_MESSAGE,
                         "documentation_url": "https://docs.github.com/rest/pulls/reviews"}, {}
        try:
            body = json.loads(raw_body) if raw_body else None
        except json.JSONDecodeError:
            return 400, {"message": "Problems parsing JSON"}, {}
        for verb, pattern, handler in ROUTES:
            match = pattern.match(path)
            if verb == method and match:
                answer = handler(self, Request(method, path, query, body, match, headers, user))
                status, payload = answer[0], answer[1]
                extra = dict(answer[2]) if len(answer) == 3 else {}  # type: ignore[misc]
                return status, payload, extra
        return 404, {"message": "Not Found", "documentation_url": "https://docs.github.com/rest"}, {}

    def paginate(self, request: Request, items: list[Any]) -> Response:
        per_page = int(request.query.get("per_page", ["30"])[0])
        page = int(request.query.get("page", ["1"])[0])
        chunk = items[(page - 1) * per_page: page * per_page]
        headers = {}
        last = max(1, -(-len(items) // per_page))
        if page < last:
            url = f"{self.base_url}{request.path}?per_page={per_page}"
            headers["Link"] = f'<{url}&page={page + 1}>; rel="next", <{url}&page={last}>; rel="last"'
        return 200, [public(item) for item in chunk], headers


def _logged_method(method: str, path: str, raw_body: bytes) -> str:
    """GraphQL queries travel as POST but read: logged as QUERY so that `writes()` leaves them out."""
    if method != "POST" or path != GRAPHQL:
        return method
    try:
        query = json.loads(raw_body).get("query", "")
    except (json.JSONDecodeError, AttributeError):
        return method
    return "QUERY" if isinstance(query, str) and query.lstrip().startswith("query") else method


def public(item: dict[str, Any]) -> dict[str, Any]:
    """What the API shows of a stored object: without the fake's own bookkeeping keys."""
    return {k: v for k, v in item.items() if not k.startswith("_")}


def _unprocessable(message: str) -> Response:
    return 422, {"message": "Unprocessable Entity", "errors": [message],
                 "documentation_url": "https://docs.github.com/rest/pulls/reviews#create-a-review-for-a-pull-request"}


MAX_BODY = 65_536  # GitHub refuses a longer pull request or issue description


def body_too_long(resource: str) -> dict[str, Any]:
    """What GitHub answers (422) to a pull request or issue description over MAX_BODY characters."""
    return {"message": "Validation Failed", "errors": [
        {"resource": resource, "code": "custom", "field": "body",
         "message": f"body is too long (maximum is {MAX_BODY} characters)"}],
        "documentation_url": "https://docs.github.com/rest"}


def _body_too_long(resource: str, fields: dict[str, Any]) -> Response | None:
    return (422, body_too_long(resource)) if len(fields.get("body") or "") > MAX_BODY else None


OWNER_REPO = r"/repos/(?P<owner>[^/]+)/(?P<repo>[^/]+)"
GRAPHQL = "/api/graphql"  # where PyGithub sends GraphQL for a base URL ending in /api/v3


def _repo(request: Request) -> str:
    return f"{request.match['owner']}/{request.match['repo']}"


@route("GET", OWNER_REPO)
def get_repository(fake: FakeGitHub, request: Request) -> Response:
    repo = fake.repos.get(_repo(request))
    return (200, repo) if repo else (404, {"message": "Not Found"})


@route("GET", OWNER_REPO + r"/pulls/(?P<number>\d+)")
def get_pull(fake: FakeGitHub, request: Request) -> Response:
    pull = fake.pulls.get((_repo(request), int(request.match["number"])))
    return (200, pull) if pull else (404, {"message": "Not Found"})


@route("GET", OWNER_REPO + r"/pulls/(?P<number>\d+)/files")
def list_pull_files(fake: FakeGitHub, request: Request) -> Response:
    key = (_repo(request), int(request.match["number"]))
    if key not in fake.pulls:
        return 404, {"message": "Not Found"}
    computed = pull_files_from_remote(fake, *key)
    files = computed if computed is not None else fake.files[key]
    return fake.paginate(request, files[:MAX_PULL_FILES])


@route("GET", OWNER_REPO + r"/compare/(?P<base>[^./]+)\.\.\.(?P<head>[^/]+)")
def compare_commits(fake: FakeGitHub, request: Request) -> Response:
    """Three-dot comparison of two commits of the remote, as GitHub answers it (first 300 files)."""
    remote = _remote(fake)
    base, head = remote.resolve(request.match["base"]), remote.resolve(request.match["head"])
    if base is None or head is None:
        return 404, {"message": "Not Found", "documentation_url": "https://docs.github.com/rest/commits/commits"}
    files = remote.pull_files(base, head)
    return 200, {"url": f"{fake.base_url}/{request.path.lstrip('/')}", "status": "ahead",
                 "merge_base_commit": {"sha": remote.git("merge-base", base, head)},
                 "total_commits": 1, "commits": [], "files": files[:300]}


@route("GET", OWNER_REPO + r"/contents/(?P<path>.+)")
def get_contents(fake: FakeGitHub, request: Request) -> Response:
    repo, path = _repo(request), request.match["path"]
    ref = request.query.get("ref", [""])[0] or fake.repos[repo]["default_branch"]
    data = fake.contents.get((repo, ref, path))
    if data is None and fake.remote is not None:
        data = fake.remote.blob(ref, path)  # the repository's git objects, as GitHub reads them
    if data is None:
        return 404, {"message": "Not Found"}
    url = f"{fake.base_url}/repos/{repo}/contents/{path}?ref={ref}"
    return 200, {"type": "file", "encoding": "base64", "size": len(data), "name": path.rsplit("/", 1)[-1],
                 "path": path, "content": base64.b64encode(data).decode(), "sha": "0" * 40, "url": url}


@route("GET", OWNER_REPO + r"/commits/(?P<sha>[0-9a-f]{7,40})")
def get_commit(fake: FakeGitHub, request: Request) -> Response:
    commit = fake.commits.get((_repo(request), request.match["sha"]))
    return (200, commit) if commit else (422, {"message": f"No commit found for SHA: {request.match['sha']}"})


def _new_review_comment(fake: FakeGitHub, repo: str, number: int, review_id: int | None,
                        commit_id: str, item: dict[str, Any], user: dict[str, Any]) -> dict[str, Any]:
    comment_id = fake.next_id()
    return {
        "_repo": repo, "_pull": number,
        "id": comment_id, "node_id": f"PRRC_{comment_id}", "pull_request_review_id": review_id,
        "path": item["path"], "line": item.get("line"), "side": item.get("side", "RIGHT"),
        "start_line": item.get("start_line"), "start_side": item.get("start_side"),
        "original_line": item.get("line"), "commit_id": commit_id, "original_commit_id": commit_id,
        "diff_hunk": "", "body": item["body"], "user": user, "in_reply_to_id": item.get("in_reply_to_id"),
        "created_at": _now(), "updated_at": _now(),
        "url": f"{fake.base_url}/repos/{repo}/pulls/comments/{comment_id}",
        "html_url": f"https://github.com/{repo}/pull/{number}#discussion_r{comment_id}",
        "pull_request_url": f"{fake.base_url}/repos/{repo}/pulls/{number}",
    }


@route("POST", OWNER_REPO + r"/pulls/(?P<number>\d+)/reviews")
def create_review(fake: FakeGitHub, request: Request) -> Response:
    repo, number = _repo(request), int(request.match["number"])
    pull = fake.pulls.get((repo, number))
    if pull is None:
        return 404, {"message": "Not Found"}
    body = request.body or {}
    commit_id = body.get("commit_id") or pull["head"]["sha"]
    if (repo, commit_id) not in fake.commits:
        return _unprocessable("commit_id is not part of the pull request")
    computed = pull_files_from_remote(fake, repo, number)  # a pull request opened through the API
    files = computed if computed is not None else fake.files[(repo, number)]
    patches = {f["filename"]: right_side_lines(f.get("patch")) for f in files}
    for item in body.get("comments") or []:
        lines = patches.get(item.get("path"), {})
        line, start = item.get("line"), item.get("start_line")
        if item.get("side", "RIGHT") != "RIGHT" or line not in lines:
            return _unprocessable("Line could not be resolved")
        if start is not None and (start not in lines or lines[start] != lines[line] or start >= line):
            return _unprocessable("start_line must be part of the same hunk as the line")
    review_id = fake.next_id()
    review = {
        "_repo": repo, "_pull": number, "id": review_id, "node_id": f"PRR_{review_id}", "user": BOT_USER,
        "body": body.get("body", ""), "state": REVIEW_STATES.get(body.get("event") or "", "PENDING"),
        "commit_id": commit_id, "submitted_at": _now(),
        "html_url": f"https://github.com/{repo}/pull/{number}#pullrequestreview-{review_id}",
        "pull_request_url": f"{fake.base_url}/repos/{repo}/pulls/{number}",
    }
    if review["state"] in ("APPROVED", "CHANGES_REQUESTED"):
        if (pull.get("user") or {}).get("login") == request.user.get("login"):
            verb = "approve" if review["state"] == "APPROVED" else "request changes on"
            return _unprocessable(f"Can not {verb} your own pull request")
        if review["state"] == "CHANGES_REQUESTED" and not review["body"]:
            return _unprocessable("Review body is required for REQUEST_CHANGES")
        review["user"] = request.user
    fake.reviews.append(review)
    for item in body.get("comments") or []:
        fake.review_comments.append(_new_review_comment(fake, repo, number, review_id, commit_id, item, BOT_USER))
    return 200, public(review)


@route("GET", OWNER_REPO + r"/pulls/(?P<number>\d+)/reviews")
def list_reviews(fake: FakeGitHub, request: Request) -> Response:
    return fake.paginate(request, fake.reviews_on(_repo(request), int(request.match["number"])))


@route("GET", OWNER_REPO + r"/pulls/(?P<number>\d+)/comments")
def list_review_comments(fake: FakeGitHub, request: Request) -> Response:
    return fake.paginate(request, fake.comments_on(_repo(request), int(request.match["number"])))


@route("POST", OWNER_REPO + r"/pulls/(?P<number>\d+)/comments/(?P<id>\d+)/replies")
def reply_to_review_comment(fake: FakeGitHub, request: Request) -> Response:
    repo, number, parent = _repo(request), int(request.match["number"]), int(request.match["id"])
    original = next((c for c in fake.comments_on(repo, number) if c["id"] == parent), None)
    if original is None:
        return 404, {"message": "Not Found"}
    item = {"path": original["path"], "line": original["line"], "body": (request.body or {}).get("body", ""),
            "in_reply_to_id": parent}
    user = {"login": "Codertocat", "id": 21031067, "type": "User", "site_admin": False}
    comment = _new_review_comment(fake, repo, number, None, original["commit_id"], item, user)
    fake.review_comments.append(comment)
    return 201, public(comment)


def _find(items: list[dict[str, Any]], repo: str, comment_id: int) -> dict[str, Any] | None:
    return next((c for c in items if c["_repo"] == repo and c["id"] == comment_id), None)


@route("PATCH", OWNER_REPO + r"/pulls/comments/(?P<id>\d+)")
def edit_review_comment(fake: FakeGitHub, request: Request) -> Response:
    comment = _find(fake.review_comments, _repo(request), int(request.match["id"]))
    if comment is None:
        return 404, {"message": "Not Found"}
    comment.update(body=(request.body or {}).get("body", comment["body"]), updated_at=_now())
    return 200, public(comment)


@route("DELETE", OWNER_REPO + r"/pulls/comments/(?P<id>\d+)")
def delete_review_comment(fake: FakeGitHub, request: Request) -> Response:
    comment = _find(fake.review_comments, _repo(request), int(request.match["id"]))
    if comment is None:
        return 404, {"message": "Not Found"}
    fake.review_comments.remove(comment)
    return 204, None


@route("GET", OWNER_REPO + r"/issues/(?P<number>\d+)")
def get_issue(fake: FakeGitHub, request: Request) -> Response:
    """An issue, or the issue view of a pull request (pull requests are issues too)."""
    repo, number = _repo(request), int(request.match["number"])
    issue = fake.issues.get((repo, number))
    if issue is not None:
        return 200, public(issue)
    pull = fake.pulls.get((repo, number))
    if pull is None:
        return 404, {"message": "Not Found"}
    url = f"{fake.base_url}/repos/{repo}/issues/{number}"
    return 200, {"number": number, "title": pull.get("title", ""), "state": pull.get("state", "open"),
                 "user": pull.get("user"), "body": pull.get("body"), "url": url,
                 "comments_url": f"{url}/comments", "pull_request": {"url": pull.get("url")}}


@route("GET", OWNER_REPO + r"/issues/(?P<number>\d+)/comments")
def list_issue_comments(fake: FakeGitHub, request: Request) -> Response:
    return fake.paginate(request, fake.issue_comments_on(_repo(request), int(request.match["number"])))


@route("POST", OWNER_REPO + r"/issues/(?P<number>\d+)/comments")
def create_issue_comment(fake: FakeGitHub, request: Request) -> Response:
    repo, number = _repo(request), int(request.match["number"])
    if (repo, number) not in fake.pulls and (repo, number) not in fake.issues:
        return 404, {"message": "Not Found"}
    comment_id = fake.next_id()
    comment = {
        "_repo": repo, "_pull": number, "id": comment_id, "node_id": f"IC_{comment_id}",
        "body": (request.body or {}).get("body", ""), "user": request.user or BOT_USER,
        "created_at": _now(), "updated_at": _now(),
        "url": f"{fake.base_url}/repos/{repo}/issues/comments/{comment_id}",
        "html_url": f"https://github.com/{repo}/pull/{number}#issuecomment-{comment_id}",
        "issue_url": f"{fake.base_url}/repos/{repo}/issues/{number}",
    }
    fake.issue_comments.append(comment)
    return 201, public(comment)


@route("PATCH", OWNER_REPO + r"/issues/comments/(?P<id>\d+)")
def edit_issue_comment(fake: FakeGitHub, request: Request) -> Response:
    comment = _find(fake.issue_comments, _repo(request), int(request.match["id"]))
    if comment is None:
        return 404, {"message": "Not Found"}
    comment.update(body=(request.body or {}).get("body", comment["body"]), updated_at=_now())
    return 200, public(comment)


@route("DELETE", OWNER_REPO + r"/issues/comments/(?P<id>\d+)")
def delete_issue_comment(fake: FakeGitHub, request: Request) -> Response:
    comment = _find(fake.issue_comments, _repo(request), int(request.match["id"]))
    if comment is None:
        return 404, {"message": "Not Found"}
    fake.issue_comments.remove(comment)
    return 204, None


@route("GET", OWNER_REPO + r"/(?P<kind>issues|pulls)/comments/(?P<id>\d+)/reactions")
def list_reactions(fake: FakeGitHub, request: Request) -> Response:
    wanted = (_repo(request), request.match["kind"], int(request.match["id"]))
    return fake.paginate(request, [r for r in fake.reactions if r["_on"] == wanted])


@route("POST", OWNER_REPO + r"/(?P<kind>issues|pulls)/comments/(?P<id>\d+)/reactions")
def create_reaction(fake: FakeGitHub, request: Request) -> Response:
    on = (_repo(request), request.match["kind"], int(request.match["id"]))
    content = (request.body or {}).get("content")
    if content not in ("+1", "-1", "laugh", "confused", "heart", "hooray", "rocket", "eyes"):
        return _unprocessable(f"invalid reaction {content!r}")
    existing = next((r for r in fake.reactions if r["_on"] == on and r["content"] == content), None)
    if existing is not None:
        return 200, public(existing)
    reaction = {"_on": on, "id": fake.next_id(), "content": content, "user": BOT_USER, "created_at": _now()}
    fake.reactions.append(reaction)
    return 201, public(reaction)


@route("POST", GRAPHQL)
def graphql(fake: FakeGitHub, request: Request) -> Response:
    """The GraphQL operations the bot uses, recognised by operation name; threads are the
    top-level review comments, their ids PRRT_<comment id>."""
    query = (request.body or {}).get("query", "")
    variables = (request.body or {}).get("variables") or {}
    if "query GraphmendViewer" in query:  # the token's own account, as GitHub answers every kind of token
        return 200, {"data": {"viewer": {"login": request.user["login"], "databaseId": request.user.get("id")}}}
    if "query GraphmendReviewThreads" in query:
        repo = f"{variables['owner']}/{variables['name']}"
        if (repo, variables["number"]) not in fake.pulls:
            return 200, {"data": {"repository": None}, "errors": [{"type": "NOT_FOUND", "message": "no such PR"}]}
        nodes = [{"id": f"PRRT_{c['id']}", "isResolved": bool(c.get("_resolved")),
                  "comments": {"nodes": [{"databaseId": c["id"]}]}}
                 for c in fake.comments_on(repo, variables["number"]) if c["in_reply_to_id"] is None]
        page = {"nodes": nodes, "pageInfo": {"hasNextPage": False, "endCursor": None}}
        return 200, {"data": {"repository": {"pullRequest": {"reviewThreads": page}}}}
    if "mutation GraphmendResolveThread" in query:
        if fake.read_only:
            return 200, {"data": {"resolveReviewThread": None},
                         "errors": [{"type": "FORBIDDEN", "message": READ_ONLY_MESSAGE}]}
        thread = str(variables.get("threadId", ""))
        comment = next((c for c in fake.review_comments if f"PRRT_{c['id']}" == thread), None)
        if comment is None:
            return 200, {"data": None, "errors": [{"type": "NOT_FOUND", "message": f"no thread {thread}"}]}
        comment["_resolved"] = True
        return 200, {"data": {"resolveReviewThread": {"thread": {"id": thread, "isResolved": True}}}}
    return 200, {"errors": [{"message": "this fake answers only the bot's GraphQL operations"}]}


# -- git: refs, blobs, trees and commits in a real bare repository ---------------------------------
GIT_ENV = {"GIT_CONFIG_GLOBAL": "/dev/null", "GIT_CONFIG_SYSTEM": "/dev/null", "PATH": "/usr/bin:/bin"}
SHA = r"[0-9a-f]{40}"


class BareRemote:
    """The repository on GitHub's side: a bare git repository that the git data API and the
    pull requests read and write, and that test clones push to and fetch from."""

    def __init__(self, path: Path) -> None:
        self.path = path
        subprocess.run(["git", "init", "-q", "--bare", "-b", "master", str(path)], env=GIT_ENV, check=True)

    def git(self, *args: str, data: bytes | None = None, env: dict[str, str] | None = None) -> str:
        done = subprocess.run(["git", *args], cwd=self.path, input=data, env={**GIT_ENV, **(env or {})},
                              capture_output=True, check=False)
        if done.returncode != 0:
            raise GitFailed(done.stderr.decode(errors="replace").strip())
        return done.stdout.decode().strip()

    def resolve(self, ref: str) -> str | None:
        try:
            return self.git("rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}")
        except GitFailed:
            return None

    def branch(self, name: str) -> str | None:
        return self.resolve(f"refs/heads/{name}")

    def blob(self, ref: str, path: str) -> bytes | None:
        """The bytes of the regular file `path` at `ref` (a commit or branch), or None."""
        sha = self.resolve(ref)
        if sha is None or ".." in path.split("/"):
            return None
        done = subprocess.run(["git", "cat-file", "blob", f"{sha}:{path}"], cwd=self.path, env=GIT_ENV,
                              capture_output=True, check=False)
        return done.stdout if done.returncode == 0 else None

    def show(self, sha: str, path: str) -> str:
        return self.git("show", f"{sha}:{path}")

    def files(self, sha: str) -> dict[str, str]:
        return {name: self.show(sha, name) for name in self.git("ls-tree", "-r", "--name-only", sha).splitlines()}

    def pull_files(self, base: str, head: str) -> list[dict[str, Any]]:
        from gitrepo import GitRepo

        view = GitRepo.__new__(GitRepo)
        view.root = self.path
        return view.pull_files(self.git("merge-base", base, head), head)


class GitFailed(Exception):
    pass


def _remote(fake: FakeGitHub) -> BareRemote:
    if fake.remote is None:
        raise RuntimeError("this test gave the fake GitHub no git remote (FakeGitHub.attach_remote)")
    return fake.remote


def attach_remote(fake: FakeGitHub, path: Path) -> BareRemote:
    fake.remote = BareRemote(path)
    return fake.remote


def _ref_body(fake: FakeGitHub, repo: str, name: str, sha: str) -> dict[str, Any]:
    return {"ref": f"refs/heads/{name}", "node_id": f"REF_{name}",
            "url": f"{fake.base_url}/repos/{repo}/git/refs/heads/{name}",
            "object": {"sha": sha, "type": "commit", "url": f"{fake.base_url}/repos/{repo}/git/commits/{sha}"}}


def _branch_moved(fake: FakeGitHub, repo: str, name: str, sha: str | None) -> None:
    """A branch moved: open pull requests from or into it follow, as on GitHub."""
    for (pull_repo, _), pull in fake.pulls.items():
        if pull_repo != repo or pull.get("state") != "open" or not pull.get("_remote"):
            continue
        if pull["head"]["ref"] == name and sha is not None:
            pull["head"]["sha"] = sha
            fake.commits[(repo, sha)] = {"sha": sha, "commit": {"message": ""}, "files": [],
                                         "url": f"{fake.base_url}/repos/{repo}/commits/{sha}"}
        if pull["head"]["ref"] == name and sha is None:
            pull.update(state="closed", closed_at=_now())  # GitHub closes a PR whose head branch is deleted


@route("GET", OWNER_REPO + r"/git/ref/heads/(?P<name>.+)")
def get_ref(fake: FakeGitHub, request: Request) -> Response:
    sha = fake.remote.branch(request.match["name"]) if fake.remote is not None else None
    if sha is None:
        return 404, {"message": "Not Found", "documentation_url": "https://docs.github.com/rest/git/refs"}
    return 200, _ref_body(fake, _repo(request), request.match["name"], sha)


def _valid_branch(name: str) -> bool:
    try:
        subprocess.run(["git", "check-ref-format", "--branch", name], env=GIT_ENV, check=True, capture_output=True)
    except subprocess.CalledProcessError:
        return False
    return True


@route("POST", OWNER_REPO + r"/git/refs")
def create_ref(fake: FakeGitHub, request: Request) -> Response:
    body = request.body or {}
    ref, sha = str(body.get("ref", "")), str(body.get("sha", ""))
    name = ref.removeprefix("refs/heads/")
    if not ref.startswith("refs/heads/") or not _valid_branch(name):
        return _unprocessable(f"{ref!r} is not a valid ref name")
    remote = _remote(fake)
    if remote.branch(name) is not None:
        return 422, {"message": "Reference already exists"}
    if not re.fullmatch(SHA, sha) or remote.resolve(sha) is None:
        return 422, {"message": "Object does not exist"}
    remote.git("update-ref", ref, sha)
    _branch_moved(fake, _repo(request), name, sha)
    return 201, _ref_body(fake, _repo(request), name, sha)


@route("PATCH", OWNER_REPO + r"/git/refs/heads/(?P<name>.+)")
def update_ref(fake: FakeGitHub, request: Request) -> Response:
    name, body = request.match["name"], request.body or {}
    remote = _remote(fake)
    current = remote.branch(name)
    sha = str(body.get("sha", ""))
    if current is None:
        return 422, {"message": "Reference does not exist"}
    if not re.fullmatch(SHA, sha) or remote.resolve(sha) is None:
        return 422, {"message": "Object does not exist"}
    if not body.get("force"):
        try:
            remote.git("merge-base", "--is-ancestor", current, sha)
        except GitFailed:
            return 422, {"message": "Update is not a fast forward"}
    remote.git("update-ref", f"refs/heads/{name}", sha)
    _branch_moved(fake, _repo(request), name, sha)
    return 200, _ref_body(fake, _repo(request), name, sha)


@route("DELETE", OWNER_REPO + r"/git/refs/heads/(?P<name>.+)")
def delete_ref(fake: FakeGitHub, request: Request) -> Response:
    name = request.match["name"]
    remote = _remote(fake)
    if remote.branch(name) is None:
        return 422, {"message": "Reference does not exist"}
    remote.git("update-ref", "-d", f"refs/heads/{name}")
    _branch_moved(fake, _repo(request), name, None)
    return 204, None


def _commit_body(fake: FakeGitHub, repo: str, sha: str) -> dict[str, Any]:
    remote = _remote(fake)
    fields = remote.git("show", "-s", "--format=%T%n%P%n%an%n%ae%n%cn%n%ce%n%B", sha).split("\n", 6)
    tree, parents, author, email, committer, committer_email, message = fields
    url = f"{fake.base_url}/repos/{repo}/git/commits/{sha}"
    return {"sha": sha, "node_id": f"C_{sha}", "url": url, "message": message.rstrip("\n"),
            "tree": {"sha": tree, "url": f"{fake.base_url}/repos/{repo}/git/trees/{tree}"},
            "parents": [{"sha": p, "url": f"{fake.base_url}/repos/{repo}/git/commits/{p}"} for p in parents.split()],
            "author": {"name": author, "email": email, "date": _now()},
            "committer": {"name": committer, "email": committer_email, "date": _now()}}


@route("GET", OWNER_REPO + r"/git/commits/(?P<sha>" + SHA + ")")
def get_git_commit(fake: FakeGitHub, request: Request) -> Response:
    if _remote(fake).resolve(request.match["sha"]) is None:
        return 404, {"message": "Not Found"}
    return 200, _commit_body(fake, _repo(request), request.match["sha"])


@route("POST", OWNER_REPO + r"/git/blobs")
def create_blob(fake: FakeGitHub, request: Request) -> Response:
    body = request.body or {}
    content = str(body.get("content", ""))
    data = base64.b64decode(content) if body.get("encoding") == "base64" else content.encode()
    sha = _remote(fake).git("hash-object", "-w", "--stdin", data=data)
    return 201, {"sha": sha, "url": f"{fake.base_url}/repos/{_repo(request)}/git/blobs/{sha}"}


@route("GET", OWNER_REPO + r"/git/blobs/(?P<sha>" + SHA + ")")
def get_blob(fake: FakeGitHub, request: Request) -> Response:
    """A blob's committed bytes, base64 (no `.gitattributes` conversion: GitHub serves the object)."""
    remote, sha = _remote(fake), request.match["sha"]
    done = subprocess.run(["git", "cat-file", "blob", sha], cwd=remote.path, env=GIT_ENV, capture_output=True,
                          check=False)
    if done.returncode != 0:
        return 404, {"message": "Not Found", "documentation_url": "https://docs.github.com/rest/git/blobs"}
    fake.blob_reads.append(sha)
    return 200, {"sha": sha, "node_id": f"B_{sha}", "size": len(done.stdout),
                 "url": f"{fake.base_url}/repos/{_repo(request)}/git/blobs/{sha}",
                 "content": base64.encodebytes(done.stdout).decode(), "encoding": "base64"}


@route("GET", OWNER_REPO + r"/git/trees/(?P<sha>" + SHA + ")")
def get_tree(fake: FakeGitHub, request: Request) -> Response:
    """One tree's entries, as GitHub lists them (`?recursive=1` lists every level)."""
    remote, sha = _remote(fake), request.match["sha"]
    recursive = bool((request.query.get("recursive") or [""])[0])
    try:
        lines = remote.git("ls-tree", "-l", *(["-r", "-t"] if recursive else []), sha).splitlines()
    except GitFailed:
        return 404, {"message": "Not Found"}
    entries = []
    for line in lines:
        meta, path = line.split("\t", 1)
        mode, kind, entry_sha, size = meta.split()
        entry = {"path": path, "mode": mode, "type": kind, "sha": entry_sha,
                 "url": f"{fake.base_url}/repos/{_repo(request)}/git/{kind}s/{entry_sha}"}
        entries.append(entry | ({"size": int(size)} if kind == "blob" else {}))
    tree = remote.git("rev-parse", f"{sha}^{{tree}}")
    truncated = recursive and fake.truncate_trees  # as GitHub answers past 100,000 entries or 7 MB
    return 200, {"sha": tree, "url": f"{fake.base_url}/repos/{_repo(request)}/git/trees/{tree}",
                 "tree": entries[:1] if truncated else entries, "truncated": truncated}


@route("POST", OWNER_REPO + r"/git/trees")
def create_tree(fake: FakeGitHub, request: Request) -> Response:
    """A tree: `base_tree` with the `tree` entries (blob sha, or inline content) put on top of it."""
    body = request.body or {}
    remote = _remote(fake)
    index = remote.path / f"index-{fake.next_id()}"
    env = {"GIT_INDEX_FILE": str(index)}
    try:
        if body.get("base_tree"):
            remote.git("read-tree", str(body["base_tree"]), env=env)
        for entry in body.get("tree") or []:
            path, mode = str(entry.get("path", "")), str(entry.get("mode", "100644"))
            if not path or path.startswith("/") or ".." in path.split("/"):
                return _unprocessable(f"tree.path {path!r} is invalid")
            sha = entry.get("sha")
            if sha is None and "content" in entry:
                sha = remote.git("hash-object", "-w", "--stdin", data=str(entry["content"]).encode())
            if sha is None:
                remote.git("update-index", "--force-remove", path, env=env)
                continue
            remote.git("update-index", "--add", "--cacheinfo", f"{mode},{sha},{path}", env=env)
        tree = remote.git("write-tree", env=env)
    except GitFailed as error:
        return _unprocessable(f"tree could not be built: {error}")
    finally:
        index.unlink(missing_ok=True)
    return 201, {"sha": tree, "url": f"{fake.base_url}/repos/{_repo(request)}/git/trees/{tree}", "tree": []}


@route("POST", OWNER_REPO + r"/git/commits")
def create_git_commit(fake: FakeGitHub, request: Request) -> Response:
    body = request.body or {}
    remote = _remote(fake)
    author = body.get("author") or {"name": request.user.get("login", "bot"), "email": "bot@users.noreply.github.com"}
    committer = body.get("committer") or author
    env = {"GIT_AUTHOR_NAME": author["name"], "GIT_AUTHOR_EMAIL": author["email"],
           "GIT_COMMITTER_NAME": committer["name"], "GIT_COMMITTER_EMAIL": committer["email"]}
    args = ["commit-tree", str(body.get("tree", ""))]
    for parent in body.get("parents") or []:
        args += ["-p", str(parent)]
    try:
        sha = remote.git(*args, data=str(body.get("message", "")).encode(), env=env)
    except GitFailed as error:
        return _unprocessable(f"commit could not be created: {error}")
    return 201, _commit_body(fake, _repo(request), sha)


# -- pull requests created through the API ------------------------------------------------------
def _new_pull(fake: FakeGitHub, request: Request, head: str, base: str, body: dict[str, Any]) -> dict[str, Any]:
    repo_name = _repo(request)
    repo = fake.repos[repo_name]
    remote = _remote(fake)
    head_sha, base_sha = remote.branch(head), remote.branch(base)
    number = 1 + max([n for (r, n) in [*fake.pulls, *fake.issues] if r == repo_name] or [0])
    url = f"{fake.base_url}/repos/{repo_name}/pulls/{number}"
    pull = {
        "_remote": True, "id": fake.next_id(), "node_id": f"PR_{number}", "number": number, "state": "open",
        "title": body.get("title", ""), "body": body.get("body"), "draft": bool(body.get("draft")),
        "user": request.user, "locked": False, "merged": False, "created_at": _now(), "updated_at": _now(),
        "closed_at": None, "url": url, "html_url": f"https://github.com/{repo_name}/pull/{number}",
        "issue_url": f"{fake.base_url}/repos/{repo_name}/issues/{number}",
        "comments_url": f"{fake.base_url}/repos/{repo_name}/issues/{number}/comments",
        "review_comments_url": f"{url}/comments",
        "maintainer_can_modify": bool(body.get("maintainer_can_modify")),
        "head": {"label": f"{repo['owner']['login']}:{head}", "ref": head, "sha": head_sha, "repo": repo,
                 "user": repo["owner"]},
        "base": {"label": f"{repo['owner']['login']}:{base}", "ref": base, "sha": base_sha, "repo": repo,
                 "user": repo["owner"]},
    }
    for sha in (head_sha, base_sha):
        fake.commits[(repo_name, str(sha))] = {"sha": sha, "commit": {"message": ""}, "files": [],
                                               "url": f"{fake.base_url}/repos/{repo_name}/commits/{sha}"}
    return pull


@route("POST", OWNER_REPO + r"/pulls")
def create_pull(fake: FakeGitHub, request: Request) -> Response:
    body = request.body or {}
    head, base = str(body.get("head", "")), str(body.get("base", ""))
    head = head.split(":", 1)[-1]
    remote = _remote(fake)
    if remote.branch(head) is None or remote.branch(base) is None:
        return _unprocessable(f"head {head!r} or base {base!r} is not a branch")
    for (repo, _), pull in fake.pulls.items():
        if repo == _repo(request) and pull["state"] == "open" and pull["head"]["ref"] == head \
                and pull["base"]["ref"] == base:
            return _unprocessable(f"A pull request already exists for {head}.")
    if remote.git("rev-parse", f"refs/heads/{head}^{{tree}}") == remote.git("rev-parse", f"refs/heads/{base}^{{tree}}"):
        return _unprocessable(f"No commits between {base} and {head}")
    refused = _body_too_long("PullRequest", body)
    if refused:
        return refused
    pull = _new_pull(fake, request, head, base, body)
    fake.pulls[(_repo(request), pull["number"])] = pull
    return 201, public(pull)


@route("GET", OWNER_REPO + r"/pulls")
def list_pulls(fake: FakeGitHub, request: Request) -> Response:
    state = request.query.get("state", ["open"])[0]
    head = request.query.get("head", [""])[0]
    base = request.query.get("base", [""])[0]
    found = [p for (repo, _), p in sorted(fake.pulls.items()) if repo == _repo(request)
             and (state == "all" or p["state"] == state)
             and (not head or p["head"]["label"] == head)
             and (not base or p["base"]["ref"] == base)]
    return fake.paginate(request, found)


@route("PATCH", OWNER_REPO + r"/pulls/(?P<number>\d+)")
def update_pull(fake: FakeGitHub, request: Request) -> Response:
    pull = fake.pulls.get((_repo(request), int(request.match["number"])))
    if pull is None:
        return 404, {"message": "Not Found"}
    body = request.body or {}
    refused = _body_too_long("PullRequest", body)
    if refused:
        return refused
    for key in ("title", "body", "state"):
        if key in body:
            pull[key] = body[key]
    pull["updated_at"] = _now()
    if body.get("state") == "closed":
        pull["closed_at"] = _now()
    return 200, public(pull)


def pull_files_from_remote(fake: FakeGitHub, repo: str, number: int) -> list[dict[str, Any]] | None:
    pull = fake.pulls.get((repo, number))
    if pull is None or not pull.get("_remote"):
        return None
    return _remote(fake).pull_files(pull["base"]["sha"], pull["head"]["sha"])


# -- archives (the tarball link redirects to codeload) ------------------------------------------
@route("GET", OWNER_REPO + r"/tarball/(?P<ref>.+)")
def get_tarball_link(fake: FakeGitHub, request: Request) -> Response:
    sha = _remote(fake).resolve(request.match["ref"])
    if sha is None:
        return 404, {"message": "Not Found"}
    location = f"{fake.base_url.removesuffix('/api/v3')}{CODELOAD}{_repo(request)}/{sha}?token=t{fake.next_id()}"
    return 302, None, {"Location": location}


def _codeload(fake: FakeGitHub, path: str, query: dict[str, list[str]]) -> tuple[int, Any, dict[str, str]]:
    owner, name, sha = path.removeprefix(CODELOAD).split("/")
    if not query.get("token") or not re.fullmatch(SHA, sha):
        return 404, {"message": "Not Found"}, {}
    if sha in fake.archives:  # a hand-made archive (hostile-input tests)
        return 200, fake.archives[sha], {}
    prefix = f"{owner}-{name}-{sha[:7]}/"
    data = subprocess.run(["git", "archive", "--format=tar.gz", f"--prefix={prefix}", sha], cwd=_remote(fake).path,
                          env=GIT_ENV, capture_output=True, check=True).stdout
    return 200, data, {}


# -- issues ---------------------------------------------------------------------------------------
def _issue(fake: FakeGitHub, repo: str, number: int, body: dict[str, Any], user: dict[str, Any]) -> dict[str, Any]:
    url = f"{fake.base_url}/repos/{repo}/issues/{number}"
    return {"_repo": repo, "id": fake.next_id(), "node_id": f"I_{number}", "number": number,
            "title": body.get("title", ""), "body": body.get("body"), "state": "open", "state_reason": None,
            "labels": [{"name": label} for label in body.get("labels") or []], "user": user,
            "comments": 0, "created_at": _now(), "updated_at": _now(), "closed_at": None, "url": url,
            "comments_url": f"{url}/comments", "html_url": f"https://github.com/{repo}/issues/{number}"}


@route("POST", OWNER_REPO + r"/issues")
def create_issue(fake: FakeGitHub, request: Request) -> Response:
    body = request.body or {}
    if not body.get("title"):
        return _unprocessable("title is required")
    refused = _body_too_long("Issue", body)
    if refused:
        return refused
    repo = _repo(request)
    number = 1 + max([n for (r, n) in [*fake.pulls, *fake.issues] if r == repo] or [0])
    issue = _issue(fake, repo, number, body, request.user)
    fake.issues[(repo, number)] = issue
    return 201, public(issue)


@route("GET", OWNER_REPO + r"/issues")
def list_issues(fake: FakeGitHub, request: Request) -> Response:
    state = request.query.get("state", ["open"])[0]
    creator = request.query.get("creator", [""])[0]
    found = [i for (repo, _), i in sorted(fake.issues.items()) if repo == _repo(request)
             and (state == "all" or i["state"] == state)
             and (not creator or i["user"].get("login") == creator)]
    return fake.paginate(request, found)


@route("PATCH", OWNER_REPO + r"/issues/(?P<number>\d+)")
def update_issue(fake: FakeGitHub, request: Request) -> Response:
    issue = fake.issues.get((_repo(request), int(request.match["number"])))
    if issue is None:
        return 404, {"message": "Not Found"}
    body = request.body or {}
    refused = _body_too_long("Issue", body)
    if refused:
        return refused
    for key in ("title", "body", "state", "state_reason"):
        if key in body:
            issue[key] = body[key]
    issue["closed_at"] = _now() if issue["state"] == "closed" else None
    issue["updated_at"] = _now()
    return 200, public(issue)


@route("GET", OWNER_REPO + r"/issues/comments/(?P<id>\d+)")
def get_issue_comment(fake: FakeGitHub, request: Request) -> Response:
    comment = _find(fake.issue_comments, _repo(request), int(request.match["id"]))
    return (200, public(comment)) if comment else (404, {"message": "Not Found"})


def add_issue_comment(fake: FakeGitHub, repo: str, number: int, body: str, user: dict[str, Any],
                      association: str) -> dict[str, Any]:
    """A comment somebody wrote on an issue or pull request (what `issue_comment` is about)."""
    comment_id = fake.next_id()
    comment = {
        "_repo": repo, "_pull": number, "id": comment_id, "node_id": f"IC_{comment_id}", "body": body,
        "user": user, "author_association": association, "created_at": _now(), "updated_at": _now(),
        "url": f"{fake.base_url}/repos/{repo}/issues/comments/{comment_id}",
        "html_url": f"https://github.com/{repo}/pull/{number}#issuecomment-{comment_id}",
        "issue_url": f"{fake.base_url}/repos/{repo}/issues/{number}",
    }
    fake.issue_comments.append(comment)
    return comment


# -- workflows ------------------------------------------------------------------------------------
def add_workflow_run(fake: FakeGitHub, repo: str, head_sha: str, *, event: str = "push", branch: str = "master",
                     workflow: str = "graphmend-census.yml", head_repo: str | None = None, status: str = "completed",
                     artifacts: dict[str, bytes] | None = None, expired: bool = False,
                     artifact_sha: str | None = None) -> dict[str, Any]:
    """A workflow run as `GET /repos/{owner}/{repo}/actions/runs` lists it, with artifacts (name -> zip
    bytes). `artifact_sha`: the commit the artifacts' `workflow_run` record names (default: the run's)."""
    run_id = fake.next_id()
    url = f"{fake.base_url}/repos/{repo}/actions/runs/{run_id}"
    owner = (head_repo or repo).split("/")[0]
    run = {"id": run_id, "name": workflow, "node_id": f"WFR_{run_id}", "path": f".github/workflows/{workflow}",
           "event": event, "head_branch": branch, "head_sha": head_sha, "status": status,
           "conclusion": "success" if status == "completed" else None, "run_number": run_id, "url": url,
           "artifacts_url": f"{url}/artifacts", "html_url": f"https://github.com/{repo}/actions/runs/{run_id}",
           "head_repository": {"id": 7, "full_name": head_repo or repo, "name": (head_repo or repo).split("/")[1],
                               "owner": {"login": owner}},
           "repository": {"id": 1, "full_name": repo}, "created_at": _now(), "updated_at": _now(), "_repo": repo}
    fake.workflow_runs.insert(0, run)
    for name, data in (artifacts or {}).items():
        artifact_id = fake.next_id()
        fake.artifacts[artifact_id] = {
            "id": artifact_id, "node_id": f"A_{artifact_id}", "name": name, "size_in_bytes": len(data),
            "url": f"{fake.base_url}/repos/{repo}/actions/artifacts/{artifact_id}",
            "archive_download_url": f"{fake.base_url}/repos/{repo}/actions/artifacts/{artifact_id}/zip",
            "expired": expired, "created_at": _now(), "expires_at": _now(), "updated_at": _now(),
            "workflow_run": {"id": run_id, "repository_id": 1, "head_repository_id": 7, "head_branch": branch,
                             "head_sha": artifact_sha or head_sha},
            "_run": run_id, "_zip": data}
    return run


def _query_matches(item: dict[str, Any], request: Request, names: tuple[str, ...]) -> bool:
    return all(item.get(name) == request.query[name][0] for name in names if name in request.query)


@route("GET", OWNER_REPO + r"/actions/runs")
def list_workflow_runs(fake: FakeGitHub, request: Request) -> Response:
    """Filtered by `head_sha`, `status`, `event` and `branch` as GitHub filters (status: completed here)."""
    runs = [public(run) for run in fake.workflow_runs if run["_repo"] == _repo(request)
            and _query_matches(run, request, ("head_sha", "status", "event"))
            and ("branch" not in request.query or run["head_branch"] == request.query["branch"][0])]
    return 200, {"total_count": len(runs), "workflow_runs": runs}


@route("GET", OWNER_REPO + r"/actions/runs/(?P<id>\d+)/artifacts")
def list_run_artifacts(fake: FakeGitHub, request: Request) -> Response:
    found = [public(a) for a in fake.artifacts.values() if a["_run"] == int(request.match["id"])]
    return 200, {"total_count": len(found), "artifacts": found}


@route("GET", OWNER_REPO + r"/actions/artifacts/(?P<id>\d+)/zip")
def download_artifact(fake: FakeGitHub, request: Request) -> Response:
    artifact = fake.artifacts.get(int(request.match["id"]))
    if artifact is None:
        return 404, {"message": "Not Found"}
    if artifact["expired"]:
        return 410, {"message": "Artifact has expired"}
    location = f"{fake.base_url.removesuffix('/api/v3')}{ARTIFACT_STORAGE}{artifact['id']}?sig=s{fake.next_id()}"
    return 302, None, {"Location": location}


def _artifact_storage(fake: FakeGitHub, path: str, query: dict[str, list[str]]) -> tuple[int, Any, dict[str, str]]:
    artifact = fake.artifacts.get(int(path.removeprefix(ARTIFACT_STORAGE) or 0))
    if artifact is None or not query.get("sig"):
        return 404, {"message": "Not Found"}, {}
    return 200, artifact["_zip"], {}


@route("GET", OWNER_REPO + r"/actions/workflows/(?P<id>[\w.-]+)")
def get_workflow(fake: FakeGitHub, request: Request) -> Response:
    name = request.match["id"]
    if fake.workflows is not None and name not in fake.workflows:
        return 404, {"message": "Not Found"}
    url = f"{fake.base_url}/repos/{_repo(request)}/actions/workflows/{name}"
    return 200, {"id": 161335, "node_id": "W_1", "name": name, "path": f".github/workflows/{name}",
                 "state": "active", "url": url, "html_url": f"https://github.com/{_repo(request)}/actions"}


@route("POST", OWNER_REPO + r"/actions/workflows/(?P<id>[\w.-]+)/dispatches")
def dispatch_workflow(fake: FakeGitHub, request: Request) -> Response:
    name = request.match["id"]
    body = request.body or {}
    inputs = body.get("inputs") or {}
    if not isinstance(inputs, dict) or not all(isinstance(v, str) for v in inputs.values()):
        return _unprocessable("inputs must be strings")
    if fake.workflows is not None:
        if name not in fake.workflows:
            return 404, {"message": "Not Found"}
        declared = fake.workflows[name]
        if declared is None:
            return 422, {"message": "Workflow does not have 'workflow_dispatch' trigger"}
        unexpected = sorted(set(inputs) - declared)
        if unexpected:
            return 422, {"message": f"Unexpected inputs provided: {unexpected}"}
    fake.dispatches.append({"workflow": name, "ref": body.get("ref"), "inputs": inputs})
    return 204, None


@route("GET", OWNER_REPO + r"/branches/(?P<name>.+)")
def get_branch(fake: FakeGitHub, request: Request) -> Response:
    sha = fake.remote.branch(request.match["name"]) if fake.remote is not None else None
    if sha is None:
        return 404, {"message": "Branch not found"}
    url = f"{fake.base_url}/repos/{_repo(request)}/commits/{sha}"
    return 200, {"name": request.match["name"], "protected": False, "commit": {"sha": sha, "url": url}}


# -- collaborators --------------------------------------------------------------------------------
# The role's base permission, as `permission` reports it: maintain counts as write, triage as read.
_BASE_PERMISSION = {"admin": "admin", "maintain": "write", "write": "write", "triage": "read", "read": "read"}


@route("GET", OWNER_REPO + r"/collaborators/(?P<login>[^/]+)/permission")
def collaborator_permission(fake: FakeGitHub, request: Request) -> Response:
    """`GET /repos/{owner}/{repo}/collaborators/{username}/permission`: `permission` is the legacy base
    role (admin, write, read, none; maintain reads as write, triage as read), `role_name` the role
    itself. Someone who is not a collaborator reads as `read` on a public repository and is not
    found (404) on a private one."""
    login = request.match["login"]
    role = fake.collaborators.get(login)
    if role is None:
        if (fake.repos.get(_repo(request)) or {}).get("private", True):
            return 404, {"message": "Not Found",
                         "documentation_url": "https://docs.github.com/rest/collaborators/collaborators"}
        role = "read"
    permission = _BASE_PERMISSION[role]
    user = {"login": login, "id": 5000 + len(login), "type": "User", "site_admin": False,
            "permissions": {"admin": role == "admin", "maintain": role in ("admin", "maintain"),
                            "push": permission in ("admin", "write"), "triage": role != "read", "pull": True},
            "role_name": role}
    return 200, {"permission": permission, "role_name": role, "user": user}
