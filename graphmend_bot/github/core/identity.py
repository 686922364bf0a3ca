"""Who the bot is: the account its token acts as, resolved once per run.

Hidden markers (`<!-- graphmend:... -->`) are plain text anyone can type, so they are honoured
only in comments, reviews and issues whose author is this account; the same account's events and
pull requests are the bot's own (no loops, its recorded exclusions). The account is matched exactly,
by its user id where both sides carry one, else by its whole login: never by a name's prefix, which
any other App could share (`graphmend-anything[bot]`) and which misses an App of another name
(`my-graphmend[bot]`). REST `GET /user` answers 403 ("Resource not accessible by integration") to
installation tokens and GITHUB_TOKEN, so the account comes from GraphQL `viewer`, which answers
for every kind of token; the `bot-login` input overrides it (`${{ steps.app.outputs.app-slug }}[bot]`
with actions/create-github-app-token).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from github import Github

from graphmend_bot.github.core.api import API_ERRORS, describe

VIEWER_QUERY = "query GraphmendViewer { viewer { login databaseId } }"
ACTIONS_BOT = "github-actions[bot]"  # GITHUB_TOKEN's account: its runs and comments never start the bot either


@dataclass(frozen=True)
class BotIdentity:
    """The bot's login and user id; an empty login when unknown, and then nothing anyone wrote is
    trusted as the bot's."""

    login: str = ""
    user_id: int | None = None  # known when the API resolved the account

    def wrote(self, user: Any) -> bool:
        """Whether `user` (a PyGithub NamedUser, an API/event dict, or None) is the bot itself."""
        login = _field(user, "login")
        if not self.login or not isinstance(login, str):
            return False
        user_id = _field(user, "id")
        if self.user_id is not None and isinstance(user_id, int) and not isinstance(user_id, bool):
            return user_id == self.user_id
        return login.lower() == self.login.lower()

    def is_own_actor(self, user: Any) -> bool:
        """The bot, or GitHub Actions' own account: an event either caused starts no new fix (no loops)."""
        return self.wrote(user) or str(_field(user, "login") or "").lower() == ACTIONS_BOT


def _field(user: Any, name: str) -> Any:
    if isinstance(user, dict):
        return user.get(name)
    return getattr(user, name, None) if user is not None else None


def viewer(client: Github) -> BotIdentity:
    """The token's account (a GitHub App's login is `<slug>[bot]`), with its user id."""
    _, data = client.requester.graphql_query(VIEWER_QUERY, {})
    account = (data.get("data") or {}).get("viewer") or {}
    login, user_id = account.get("login"), account.get("databaseId")
    if not isinstance(login, str) or not login:
        raise ValueError("GraphQL `viewer` answered without a login")
    return BotIdentity(login, user_id if isinstance(user_id, int) and not isinstance(user_id, bool) else None)


def resolve_identity(client: Github, override: str, warn: Any) -> BotIdentity:
    """`override` (the `bot-login` input) when set, else the token's viewer login. When neither is
    known, `warn` says so and the bot trusts no marker: it posts fresh comments rather than adopt
    anyone else's."""
    if override:
        return BotIdentity(override)
    try:
        return viewer(client)
    except (*API_ERRORS, ValueError) as error:
        warn(f"{describe(error, 'finding out which account the token acts as')}; set the `bot-login` input. "
             "Until then no earlier comment is recognised as the bot's own.")
        return BotIdentity()
