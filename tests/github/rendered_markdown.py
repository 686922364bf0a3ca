"""What GitHub would make of a body the bot posts: rendered with cmark-gfm (GitHub's own renderer,
through `cmarkgfm`, with the table, autolink, strikethrough and tag-filter extensions), then read the
way GitHub's post-rendering filters read it (mentions and issue references in text outside code and
links).

`untrusted_markup(body)` lists every link, image, HTML element or comment, mention and issue
reference the body renders to that the bot did not write itself. Tests put hostile strings in every
untrusted field and assert the list is empty.
"""

from __future__ import annotations

import re
from collections.abc import Collection
from html.parser import HTMLParser

import cmarkgfm
from cmarkgfm.cmark import Options

from graphmend_bot.rules.rule import GB_SITE

# The elements the bot's own Markdown renders to (and the raw HTML it writes: details, summary, sub).
BOT_TAGS = {"p", "code", "pre", "strong", "em", "h2", "h3", "ul", "ol", "li", "blockquote", "hr", "br", "table",
            "thead", "tbody", "tr", "th", "td", "details", "summary", "sub", "a"}
# The links the bot writes: Dynamo's graph-break pages (and lines of the repository: `repository_links`).
BOT_LINK_PREFIXES = (GB_SITE.split("/gb/", 1)[0] + "/",)
# GitHub's mention filter (html-pipeline's MentionFilter), issue references, and commit SHAs (7 to 40
# hex characters, linked when the commit exists in the repository's network, a fork's included).
COMMIT_SHA = re.compile(r"\b[0-9a-f]{7,40}\b", re.IGNORECASE)
MENTION = re.compile(r"(?:^|\W)@([a-z0-9][a-z0-9-]*)(?!/)(?=\.+[ \t\W]|\.+$|[^0-9a-zA-Z_.]|$)", re.IGNORECASE)
HOSTILE_REFERENCE = re.compile(r"(?:#|GH-)31337", re.IGNORECASE)  # the hostile strings' issue number
_UNSAFE = Options.CMARK_OPT_UNSAFE  # keep raw HTML, to see it (GitHub sanitises it afterwards)


def render(body: str) -> str:
    return cmarkgfm.github_flavored_markdown_to_html(body, options=_UNSAFE)


class _Reader(HTMLParser):
    def __init__(self, allowed_mentions: frozenset[str], links: tuple[str, ...], own_commits: Collection[str]) -> None:
        super().__init__(convert_charrefs=True)
        self.problems: list[str] = []
        self.inert_depth = 0  # inside code, pre or a link: GitHub links nothing there
        self.allowed_mentions = allowed_mentions
        self.links = links
        self.own_commits = own_commits

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag not in BOT_TAGS:
            self.problems.append(f"HTML element <{tag}>")
        if tag == "a":
            href = dict(attrs).get("href") or ""
            if not href.startswith(self.links):
                self.problems.append(f"link to {href!r}")
        if tag in ("code", "pre", "a"):
            self.inert_depth += 1

    def handle_endtag(self, tag: str) -> None:
        if tag in ("code", "pre", "a"):
            self.inert_depth -= 1

    def handle_comment(self, data: str) -> None:
        if not data.strip().lstrip("/").startswith("graphmend"):
            self.problems.append(f"HTML comment <!--{data}-->")

    def handle_data(self, data: str) -> None:
        if self.inert_depth:
            return
        for mention in MENTION.finditer(data):
            if mention.group(1).lower() not in self.allowed_mentions:
                self.problems.append(f"mention @{mention.group(1)} in {data!r}")
        if HOSTILE_REFERENCE.search(data):
            self.problems.append(f"issue reference in {data!r}")
        for sha in COMMIT_SHA.finditer(data):
            if not any(commit.startswith(sha.group().lower()) for commit in self.own_commits):
                self.problems.append(f"commit SHA {sha.group()} in {data!r}")


def untrusted_markup(body: str, allowed_mentions: frozenset[str] = frozenset(),
                     repository_links: str = "", own_commits: Collection[str] = ()) -> list[str]:
    """Everything in the rendered `body` that makes text more than text, apart from the bot's own:
    its links to Dynamo's pages and to `repository_links` ("https://github.com/owner/repo/blob/"),
    and the commits it names (`own_commits`: the head it reviewed, the base, its fix commits)."""
    reader = _Reader(allowed_mentions, BOT_LINK_PREFIXES + ((repository_links,) if repository_links else ()),
                     own_commits)
    reader.feed(render(body))
    reader.close()
    return reader.problems


def rendered_text(body: str) -> str:
    """The text a reader sees (tags dropped, entities decoded)."""
    parts: list[str] = []

    class _Text(HTMLParser):
        def handle_data(self, data: str) -> None:
            parts.append(data)

    reader = _Text(convert_charrefs=True)
    reader.feed(render(body))
    reader.close()
    return "".join(parts)


# Every construct the issue names, in one string: link reference definitions, images, autolinks
# (CommonMark's and GFM's extended ones), entities, mentions, issue references, HTML, line starts,
# commit SHAs.
HOSTILE_TEXT = ("x` ``y`` @octocat @org/team <img src=x onerror=alert(1)> ![i](http://evil.example/i.png) "
                "[win](http://evil.example) [ref] <http://evil.example/a> http://evil.example/b www.evil.example "
                "mail@evil.example &#64;octocat &commat;octocat #31337 GH-31337 octo/repo#31337 <!-- evil --> "
                "<b>bold</b> *em* ~~gone~~ \\` | cell |\n[ref]: //evil.example\n# heading\n> quote\n1. list\n"
                "===\n    indented\n[ref] a5c3785ed8d6a35868bc169f07e40e889087fd2e 1234567 deadbeef")
