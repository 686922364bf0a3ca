"""Resolve review threads: GraphQL only (REST has no endpoint for it).

A stale comment that people replied to is kept (edited to say it is resolved); resolving its
thread also folds it away in the pull request's conversation, as a reviewer would.
"""

from __future__ import annotations

from collections.abc import Iterable

from github.Repository import Repository

THREADS_QUERY = """
query GraphmendReviewThreads($owner: String!, $name: String!, $number: Int!, $cursor: String) {
  repository(owner: $owner, name: $name) {
    pullRequest(number: $number) {
      reviewThreads(first: 100, after: $cursor) {
        nodes { id isResolved comments(first: 1) { nodes { databaseId } } }
        pageInfo { hasNextPage endCursor }
      }
    }
  }
}
"""

RESOLVE_MUTATION = """
mutation GraphmendResolveThread($threadId: ID!) {
  resolveReviewThread(input: {threadId: $threadId}) { thread { id isResolved } }
}
"""


def unresolved_threads(repo: Repository, number: int) -> dict[int, str]:
    """First comment's database id -> thread id, for the pull request's unresolved threads."""
    threads: dict[int, str] = {}
    cursor: str | None = None
    owner, name = repo.full_name.split("/", 1)
    for _ in range(50):  # 5,000 threads is more than any pull request has
        _, data = repo.requester.graphql_query(
            THREADS_QUERY, {"owner": owner, "name": name, "number": number, "cursor": cursor})
        page = data["data"]["repository"]["pullRequest"]["reviewThreads"]
        for node in page["nodes"]:
            comments = node["comments"]["nodes"]
            if comments and not node["isResolved"]:
                threads[int(comments[0]["databaseId"])] = node["id"]
        if not page["pageInfo"]["hasNextPage"]:
            break
        cursor = page["pageInfo"]["endCursor"]
    return threads


def resolve_threads(repo: Repository, number: int, comment_ids: Iterable[int]) -> int:
    """Resolve the threads that start with these comments; returns how many were resolved."""
    wanted = list(comment_ids)
    if not wanted:
        return 0
    threads = unresolved_threads(repo, number)
    resolved = 0
    for comment_id in wanted:
        thread = threads.get(comment_id)
        if thread is not None:
            repo.requester.graphql_query(RESOLVE_MUTATION, {"threadId": thread})
            resolved += 1
    return resolved
