"""Who the bot is: the login its token acts as, resolved once per run.

Hidden markers (`<!-- graphmend:... -->`) are plain text anyone can type, so they are honoured
only in comments, reviews and issues whose author is this login. REST `GET /user` answers 403
("Resource not accessible by integration") to installation tokens and GITHUB_TOKEN, so the login
comes from GraphQL `viewer`, which answers for every kind of token; the `bot-login` input
overrides it (`${{ steps.app.outputs.app-slug }}[bot]` with actions/create-github-app-token).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from github import Github

from graphmend_bot.github.core.api import API_ERRORS, describe

VIEWER_QUERY = "query GraphmendViewer { viewer { login } }"


@dataclass(frozen=True)
class BotIdentity:
    """The bot's login; empty when unknown, and then nothing anyone wrote is trusted as the bot's."""

    login: str = ""

    def wrote(self, user: Any) -> bool:
        """Whether `user` (a PyGithub NamedUser, an API/event dict, or None) is the bot itself."""
        login = user.get("login") if isinstance(user, dict) else getattr(user, "login", None)
        return bool(self.login) and isinstance(login, str) and login.lower() == self.login.lower()


def viewer_login(client: Github) -> str:
    """The login of the token's account (a GitHub App's is `<slug>[bot]`)."""
    _, data = client.requester.graphql_query(VIEWER_QUERY, {})
    login = ((data.get("data") or {}).get("viewer") or {}).get("login")
    if not isinstance(login, str) or not login:
        raise ValueError("GraphQL `viewer` answered without a login")
    return login


def resolve_identity(client: Github, override: str, warn: Any) -> BotIdentity:
    """`override` (the `bot-login` input) when set, else the token's viewer login. When neither is
    known, `warn` says so and the bot trusts no marker: it posts fresh comments rather than adopt
    anyone else's."""
    if override:
        return BotIdentity(override)
    try:
        return BotIdentity(viewer_login(client))
    except (*API_ERRORS, ValueError) as error:
        warn(f"{describe(error, 'finding out which account the token acts as')}; set the `bot-login` input. "
             "Until then no earlier comment is recognised as the bot's own.")
        return BotIdentity()
