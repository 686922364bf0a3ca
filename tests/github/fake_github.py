"""A fake GitHub REST API over real HTTP, for PyGithub to reach through `base_url`.

Stateful: repositories, pull requests (seeded from real webhook payloads), their files and patches
(computed from a real git repository by `gitrepo.pull_files`), commits, reviews, review comments,
issue comments and reactions. It answers like GitHub does where the bot depends on it: line
comments only on lines in the diff (422 otherwise), 401 for a wrong token, 403 for writes with a
read-only token, Link-header pagination, and injectable faults (5xx, rate limits).

To extend it (refs, commit creation, pull creation for fix PRs), add a handler with `@route`:
handlers get a Request and return `(status, body)` or `(status, body, headers)`.
"""

from __future__ import annotations

import base64
import itertools
import json
import re
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

PUBLIC_API = "https://api.github.com"
BOT_USER = {"login": "github-actions[bot]", "id": 41898282, "node_id": "MDM6Qm90NDE4OTgyODI=", "type": "Bot",
            "site_admin": False}
READ_ONLY_MESSAGE = "Resource not accessible by integration"

Response = tuple[int, Any] | tuple[int, Any, dict[str, str]]


@dataclass
class Request:
    method: str
    path: str  # without the /api/v3 prefix and the query
    query: dict[str, list[str]]
    body: Any
    match: re.Match[str]
    headers: dict[str, str]


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
        self.log: list[tuple[str, str, int]] = []  # (method, path, status) of every request
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
        return [entry for entry in self.log if entry[0] != "GET"]

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
                data = b"" if body is None else json.dumps(body).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json; charset=utf-8")
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
            self.log.append((method, path, status))
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
        auth = {k.lower(): v for k, v in headers.items()}.get("authorization", "")
        if auth not in (f"token {self.token}", f"Bearer {self.token}"):
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
                answer = handler(self, Request(method, path, query, body, match, headers))
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


def public(item: dict[str, Any]) -> dict[str, Any]:
    """What the API shows of a stored object: without the fake's own bookkeeping keys."""
    return {k: v for k, v in item.items() if not k.startswith("_")}


def _unprocessable(message: str) -> Response:
    return 422, {"message": "Unprocessable Entity", "errors": [message],
                 "documentation_url": "https://docs.github.com/rest/pulls/reviews#create-a-review-for-a-pull-request"}


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
    return fake.paginate(request, fake.files[key])


@route("GET", OWNER_REPO + r"/contents/(?P<path>.+)")
def get_contents(fake: FakeGitHub, request: Request) -> Response:
    repo, path = _repo(request), request.match["path"]
    ref = request.query.get("ref", [""])[0] or fake.repos[repo]["default_branch"]
    data = fake.contents.get((repo, ref, path))
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
    patches = {f["filename"]: right_side_lines(f.get("patch")) for f in fake.files[(repo, number)]}
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
        "body": body.get("body", ""), "state": "COMMENTED" if body.get("event") == "COMMENT" else "PENDING",
        "commit_id": commit_id, "submitted_at": _now(),
        "html_url": f"https://github.com/{repo}/pull/{number}#pullrequestreview-{review_id}",
        "pull_request_url": f"{fake.base_url}/repos/{repo}/pulls/{number}",
    }
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
    """Pull requests are issues too: the issue view of a pull request."""
    repo, number = _repo(request), int(request.match["number"])
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
    if (repo, number) not in fake.pulls:
        return 404, {"message": "Not Found"}
    comment_id = fake.next_id()
    comment = {
        "_repo": repo, "_pull": number, "id": comment_id, "node_id": f"IC_{comment_id}",
        "body": (request.body or {}).get("body", ""), "user": BOT_USER,
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
    """The two GraphQL operations the bot uses, recognised by operation name; threads are the
    top-level review comments, their ids PRRT_<comment id>."""
    query = (request.body or {}).get("query", "")
    variables = (request.body or {}).get("variables") or {}
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
