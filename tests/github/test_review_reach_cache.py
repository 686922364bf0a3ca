"""A warm review (engine.check_change) takes the whole result and what the change's added calls
bring into traced code from the cache, loading no summary; another change gets its own answer."""

from pathlib import Path

import pytest
from test_github_added_calls import CALLING, UTILS

from graphmend_bot.analysis.summary_cache import SummaryCache
from graphmend_bot.config import Config
from graphmend_bot.engine import check_change

NET = CALLING["pkg/net.py"]  # line 9: y = helper(x * 2)


class CountingCache(SummaryCache):
    """The real cache, counting the summaries it loads."""

    loaded = 0

    def load_summary(self, key, path):
        CountingCache.loaded += 1
        return super().load_summary(key, path)


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    for name, text in {"pkg/__init__.py": "", "pkg/net.py": NET, "pkg/utils.py": UTILS}.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def pointers(cache: SummaryCache, added: dict, replaced: dict | None = None) -> list[tuple[str, int, str]]:
    more = (replaced,) if replaced is not None else ()
    # the model scope, as test_github_added_calls' project configures it: `helper` is traced only
    # where the added call brings it in
    result = check_change(["."], Config(scope="model"), ["pkg/net.py"], added, cache, *more)
    return [(f.path, f.location.row, f.breaks_at) for f in result.findings]


def test_a_warm_review_loads_no_summary_and_says_the_same(project: Path) -> None:
    cache = CountingCache(project / ".cache")
    cold = pointers(cache, {"pkg/net.py": {9}})
    assert cold == [("pkg/net.py", 9, "pkg/utils.py:5")]
    CountingCache.loaded = 0
    assert pointers(cache, {"pkg/net.py": {9}}) == cold
    assert CountingCache.loaded == 0  # lead solved the tree again: every summary loaded


def test_a_warm_review_of_another_change_is_not_served_the_first_ones(project: Path) -> None:
    cache = SummaryCache(project / ".cache")
    assert pointers(cache, {"pkg/net.py": {9}}) == [("pkg/net.py", 9, "pkg/utils.py:5")]
    assert pointers(cache, {"pkg/net.py": {10}}) == []  # only `return y` added
    assert pointers(cache, {"pkg/net.py": {9}}, {"pkg/net.py": {9: frozenset({"helper"})}}) == []  # an edit
    assert pointers(cache, {"pkg/net.py": {9}}) == [("pkg/net.py", 9, "pkg/utils.py:5")]


def test_a_forged_reach_blaming_a_line_the_change_did_not_add_is_ignored(project: Path) -> None:
    cache = SummaryCache(project / ".cache")
    pointers(cache, {"pkg/net.py": {9}})
    [entry] = (project / ".cache" / "reach").rglob("*.json")
    entry.write_text(entry.read_text().replace('"pkg/net.py",9', '"pkg/net.py",1'))
    assert pointers(cache, {"pkg/net.py": {9}}) == [("pkg/net.py", 9, "pkg/utils.py:5")]


def test_a_warm_review_takes_its_bases_result_from_the_cache_too(project: Path) -> None:
    """The base's solve is kept as the head's is, keyed by the base's texts: a warm review of the same
    change loads no summary, and says the same; another base is solved afresh."""
    cache = CountingCache(project / ".cache")
    old = NET.replace("y = helper(x * 2)", "y = x * 2")  # the base: forward did not call helper

    def review(base_text: str) -> tuple[list[tuple[str, int, str]], list[str]]:
        result = check_change(["."], Config(scope="model"), ["pkg/net.py"], {"pkg/net.py": {9}}, cache,
                              before={"pkg/net.py": base_text})
        assert result.base is not None
        return [(f.path, f.location.row, f.breaks_at) for f in result.findings], \
            [f"{f.path}:{f.location.row}" for f in result.base.removed]

    cold = review(old)
    assert cold == ([("pkg/net.py", 9, "pkg/utils.py:5")], [])
    CountingCache.loaded = 0
    assert review(old) == cold
    assert CountingCache.loaded == 0
    # A base in which forward printed itself: that break is gone with the change.
    printing = NET.replace("y = helper(x * 2)", "print(x)\n        y = x")
    assert review(printing) == (cold[0], ["pkg/net.py:9"])
