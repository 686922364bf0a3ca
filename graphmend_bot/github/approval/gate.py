"""Which pull requests may reach the GPU runner: decided through the API, never from a checkout.

Only GraphMend's own fix pull requests qualify: open, from a branch of this repository (never a
fork), opened by the bot's GitHub App, on a `graphmend/fix/` branch. `refusal` is the rule, a pure
function over facts the API reported; `submit` applies it again before it reviews.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from github.PullRequest import PullRequest

from graphmend_bot.github.fixes.fix_pr import FIX_BRANCH_PREFIX

# The login of GraphMend's GitHub App. A repository that installs its own App passes `--bot-login`
# (`<app-slug>[bot]`); with the wrong login every pull request is refused, never the reverse.
DEFAULT_BOT_LOGIN = "graphmend[bot]"
SHA = re.compile(r"[0-9a-f]{40}")


@dataclass(frozen=True)
class PullFacts:
    """What the API says about a pull request, as far as the GPU job is concerned."""

    number: int
    state: str
    head_repository: str | None  # None when the fork was deleted
    author: str
    head_ref: str
    head_sha: str
    base_sha: str

    @classmethod
    def read(cls, pr: PullRequest) -> PullFacts:
        head_repo = pr.head.repo
        return cls(pr.number, pr.state, head_repo.full_name if head_repo is not None else None,
                   pr.user.login if pr.user is not None else "", pr.head.ref, pr.head.sha, pr.base.sha)


def valid_sha(text: str) -> bool:
    return SHA.fullmatch(text) is not None


def refusal(facts: PullFacts, repository: str, bot_login: str) -> str | None:
    """Why the pull request must not be verified (run on the GPU runner, approved), or None."""
    number = f"#{facts.number}"
    if facts.head_repository != repository:
        return (f"{number} comes from a fork ({facts.head_repository or 'deleted'}): GPU verification never runs "
                "code from forks")
    if facts.state != "open":
        return f"{number} is {facts.state}: only open pull requests are verified"
    if facts.author != bot_login:
        return (f"{number} was opened by {facts.author or 'nobody'}, not by the bot's App {bot_login}: only "
                "GraphMend's own fix pull requests are verified (pass --bot-login if the App has another name)")
    if not facts.head_ref.startswith(FIX_BRANCH_PREFIX):
        return f"{number}'s branch {facts.head_ref!r} is not a GraphMend fix branch ({FIX_BRANCH_PREFIX}...)"
    if not valid_sha(facts.head_sha) or not valid_sha(facts.base_sha):
        return f"{number}: the API reported no commit SHA for its head or base"
    return None
