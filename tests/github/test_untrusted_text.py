"""Issue 25.3: the one escaper for untrusted text, checked through cmark-gfm (GitHub's renderer).

Each place text goes in the bot's Markdown (a paragraph, a table cell, a list item, the start of a
line) renders it as exactly that text: no link, image, mention, issue reference or HTML."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rendered_markdown import HOSTILE_TEXT, render, rendered_text, untrusted_markup

from graphmend_bot.findings import Finding, Location
from graphmend_bot.report.markdown import SummaryView, resolved_comment, summary_markdown
from graphmend_bot.report.untrusted_text import ZERO_WIDTH_SPACE, escape_text, markdown_text

# Where the bot puts inline text: alone, after a list marker, mid-sentence, in a table cell.
PLACES = ("{}", "- {}", "**GM101** {} (see below)", "| a | b |\n|---|---|\n| {} | x |", "> {}")

# Each construct of the issue on its own, so a failure names the one that got through.
CONSTRUCTS = [
    "[x]: //evil.example\n\n[x]", "[x]: http://evil.example\n[x]", "![i](http://evil.example/i.png)",
    "[win](http://evil.example)", "<http://evil.example>", "http://evil.example", "www.evil.example",
    "WWW.evil.example", "mail@evil.example", "&#64;octocat", "&commat;octocat", "@octocat", "@org/team",
    "#31337", "GH-31337", "octo/repo#31337", "<img src=x onerror=alert(1)>", "<!-- evil -->", "<b>b</b>",
    "x\n[x]: //evil.example\n[x]", "`code` @octocat `more`", "``a`b`` @octocat", "` @octocat",
    "a5c3785ed8d6a35868bc169f07e40e889087fd2e", "see a5c3785 now", "1234567", "deadbeef", "octo@a5c3785ed8",
    "octo/repo@a5c3785ed8", "(a5c3785ed8d6a35868bc169f07e40e889087fd2ea5c3785ed8d6a35868bc169f07e40e889087fd2e)",
]


@pytest.mark.parametrize("text", [*CONSTRUCTS, HOSTILE_TEXT])
@pytest.mark.parametrize("place", PLACES)
def test_untrusted_text_renders_to_nothing_but_text(text: str, place: str) -> None:
    body = place.format(markdown_text(text))
    assert untrusted_markup(body) == [], body
    assert "octocat" not in text or "octocat" in rendered_text(body)  # the text is shown, as text


def test_what_the_escaper_did_not_catch_before() -> None:
    """The old sanitiser's misses (issue 25.3), each made a link, an image or a mention."""
    for missed in ("[x]: //evil.example\n\n[x]", "![i](http://evil.example/i.png)", "&#64;octocat",
                   "<http://evil.example>", "mail@evil.example", "see a5c3785ed8d6 now"):
        assert untrusted_markup(missed), missed  # the renderer sees them ...
        assert untrusted_markup(markdown_text(missed)) == [], missed  # ... and not once escaped


def test_the_text_reads_as_written() -> None:
    body = markdown_text("a *b* [c](d) & e < f | `x|y` #1 @g www.h")
    shown = rendered_text(f"| h |\n|---|\n| {body} |").replace(ZERO_WIDTH_SPACE, "").strip()
    assert shown.endswith("a *b* [c](d) & e < f | x|y #1 @g www.h")


def test_quoted_code_stays_code_whatever_its_backticks() -> None:
    """Code a message quotes keeps CommonMark's reading (a run closed by the next run of its length),
    re-fenced so that nothing inside it ends it early."""
    html = render(markdown_text("replace `x[0]<b>` by ``y`z`` and ` @octocat"))
    assert "<code>x[0]&lt;b&gt;</code>" in html and "<code>y`z</code>" in html, html
    assert untrusted_markup(markdown_text("replace `x[0]<b>` by ``y`z`` and ` @octocat")) == []


HOSTILE_ALPHABET = st.sampled_from([*"`[]()!<>&#;@:/.\\|*_~-=+ \nwhttpsx1\t", "www.", "http://", "&#64;", "@octocat",
                                    "#31337", "a5c3785", "0f"])


@settings(max_examples=300, deadline=None)
@given(st.lists(HOSTILE_ALPHABET, max_size=40).map("".join), st.sampled_from(PLACES))
def test_no_string_escapes_the_escaper(text: str, place: str) -> None:
    body = place.format(markdown_text(text))
    assert untrusted_markup(body) == [], body


@settings(max_examples=200, deadline=None)
@given(st.lists(HOSTILE_ALPHABET, max_size=40).map("".join))
def test_escaped_text_shows_every_character(text: str) -> None:
    """Outside code, the reader sees the text itself: spaces for line breaks, zero-width spaces added."""
    shown = rendered_text(escape_text(text)).replace(ZERO_WIDTH_SPACE, "")
    assert shown.split() == re.sub(r"[\n\t]", " ", text).split()


@pytest.mark.parametrize("start", ["# h", "## h", "> q", "- i", "+ i", "* i", "1. i", "12) i", "===", "---", "***",
                                   "___", "| a |", "[x]: /u", "<div>", "  - i", "```", "~~~"])
def test_nothing_it_starts_is_a_block(start: str) -> None:
    """Where the bot puts the text at the start of a line, it is still a paragraph of text."""
    html = render(f"{markdown_text(start)}\n")
    assert re.fullmatch(r"<p>[^<]*</p>\n", html), html


def test_punctuation_that_means_nothing_inside_a_line_reads_as_written() -> None:
    assert markdown_text("logging-net: 2 -> 1 (seed 0, x.y)") == "logging-net: 2 -> 1 (seed 0, x.y)"


def test_only_untrusted_text_loses_its_commit_links() -> None:
    """review17 #5: a commit SHA in untrusted text is broken by zero-width spaces (GitHub would link
    it, a fork's commit included); the commits the bot names itself are not escaped and stay links."""
    sha = "a5c3785ed8d6a35868bc169f07e40e889087fd2e"
    finding = Finding("GM401", f"`print` in traced code, see {sha}", "m.py", Location(3, 5), Location(3, 12),
                      "GB0059", "m.f", "print(1)")
    summary = summary_markdown(SummaryView([finding], files_checked=1, changed_files=1, head_sha=sha))
    assert f"graph break(s) in the changed Python files at {sha[:7]}" in summary  # the bot's own link
    assert sha not in summary and ZERO_WIDTH_SPACE in summary  # the finding's text: no link
    assert untrusted_markup(summary) == [f"commit SHA {sha[:7]} in {rendered_text(summary).splitlines()[0]!r}"]
    assert untrusted_markup(summary, own_commits=[sha]) == []
    assert f"**Resolved** in {sha[:7]}:" in resolved_comment("x\n<!-- m -->", "<!-- m -->", sha)
