"""A pull request's run trusts its restored summary cache only for the texts it does not touch
(review16's finding 2, github/review/pull_request_cache.py): GitHub restores from the pull request's
own cache scope first, and any `pull_request` run of it can save there. On main a forged result
entry there made the review "clean"."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from graphmend_bot.analysis.files import SourceFile, text_digest
from graphmend_bot.config import Config
from graphmend_bot.github.core.context import read_context
from graphmend_bot.github.core.outputs import Log
from graphmend_bot.github.review.analyse import action_cache, analyse
from graphmend_bot.github.review.pull_request_cache import PullRequestCache

BROKEN = "import torch\n\n\nclass M(torch.nn.Module):\n    def forward(self, x):\n        return x.item()\n"
CLEAN = "import torch\n\n\nclass M(torch.nn.Module):\n    def forward(self, x):\n        return x + 1\n"
HELPER = "import torch\n\n\ndef helper(x):\n    return x * 2\n"
CACHE = ".graphmend_cache"


def context(workspace: Path, event: str):
    return read_context(
        {
            "GITHUB_EVENT_NAME": event,
            "GITHUB_WORKSPACE": str(workspace),
            "GITHUB_REPOSITORY": "o/r",
            "INPUT_CACHE-DIR": CACHE,
        }
    )


def codes(
    workspace: Path,
    event: str,
    before: dict[str, str | None] | None = None,
    added: dict[str, set[int]] | None = None,
) -> list[str]:
    """The findings' codes of `model.py` (as the review of a change adding `added` lines, if given)."""
    result = analyse(
        context(workspace, event), Config(), Log(), only=["model.py"], before=before, added_lines=added
    )
    return [finding.code for finding in result.findings]


def forge_results(cache: Path) -> None:
    """Empty the findings of every stored result, as a run saving into the same scope could."""
    for entry in (cache / "result").glob("*/*.json"):
        data = json.loads(entry.read_bytes())
        data["entry"]["value"][0] = []
        entry.write_text(json.dumps(data), encoding="utf-8")


def forge_summary(cache: Path, real_digest: str, clean_digest: str) -> None:
    """Put the summary of the clean text under the key of the broken one (its key inside replaced)."""
    source_file = SourceFile("model.py", "model", False)
    bare = PullRequestCache(cache, [])
    real, clean = (
        bare.summary_key(real_digest, source_file, False),
        bare.summary_key(clean_digest, source_file, False),
    )
    entry = json.loads((cache / "summary" / clean[:2] / f"{clean}.json").read_bytes())
    entry["key"] = real
    (cache / "summary" / real[:2]).mkdir(parents=True, exist_ok=True)
    (cache / "summary" / real[:2] / f"{real}.json").write_text(json.dumps(entry), encoding="utf-8")


@pytest.fixture
def workspace(write_tree, monkeypatch) -> Path:
    root = write_tree({"model.py": BROKEN, "helper.py": HELPER})
    monkeypatch.chdir(root)
    monkeypatch.delenv("GRAPHMEND_READ_ROOT", raising=False)
    return root


def test_a_forged_result_in_the_pull_requests_scope_never_clears_its_review(workspace: Path) -> None:
    assert codes(workspace, "push") == ["GM301"]  # the cache now holds this tree's result
    forge_results(workspace / CACHE)
    assert codes(workspace, "push") == []  # a default-branch run trusts its own scope's entries
    for event in ("pull_request", "pull_request_review", "merge_group"):
        assert codes(workspace, event, {"model.py": CLEAN}) == ["GM301"], event


def test_a_forged_result_never_clears_the_review_of_a_change(workspace: Path) -> None:
    review = ({"model.py": CLEAN}, {"model.py": {6}})  # the change: line 6 made `x.item()`
    assert codes(workspace, "push", *review) == ["GM301"]
    forge_results(workspace / CACHE)
    assert codes(workspace, "push", *review) == []  # where the scope is trusted, the forgery works
    assert codes(workspace, "pull_request", *review) == ["GM301"]


def test_a_forged_summary_of_a_changed_text_is_recomputed(workspace: Path) -> None:
    (workspace / "model.py").write_text(CLEAN, encoding="utf-8")
    assert codes(workspace, "push") == []  # stores the clean text's summary
    (workspace / "model.py").write_text(BROKEN, encoding="utf-8")
    forge_summary(workspace / CACHE, text_digest(BROKEN), text_digest(CLEAN))
    shutil.rmtree(workspace / CACHE / "result")
    shutil.rmtree(workspace / CACHE / "state", ignore_errors=True)
    assert codes(workspace, "push") == []  # the forged summary is read where the scope is trusted
    shutil.rmtree(workspace / CACHE / "result")
    shutil.rmtree(workspace / CACHE / "state", ignore_errors=True)
    assert codes(workspace, "pull_request", {"model.py": CLEAN}) == ["GM301"]


def test_entries_of_untouched_texts_are_read_and_whole_project_ones_never(workspace: Path) -> None:
    assert codes(workspace, "push") == ["GM301"]
    helper, model = SourceFile("helper.py", "helper", False), SourceFile("model.py", "model", False)
    untouched = action_cache(context(workspace, "pull_request"), Log(), ["helper.py"])  # model.py untouched
    assert isinstance(untouched, PullRequestCache)
    assert untouched.load_scan(untouched.scan_key(text_digest(BROKEN), model)) is not None
    assert (
        untouched.load_summary(untouched.summary_key(text_digest(BROKEN), model, False), "model.py")
        is not None
    )
    assert untouched.load_scan(untouched.scan_key(text_digest(HELPER), helper)) is None
    # model.py's text as the base of a changed file is touched too
    touched = action_cache(context(workspace, "pull_request"), Log(), ["helper.py"], {"model.py": BROKEN})
    assert isinstance(touched, PullRequestCache)
    assert touched.load_scan(touched.scan_key(text_digest(BROKEN), model)) is None
    assert touched.load_summary(touched.summary_key(text_digest(BROKEN), model, False), "model.py") is None
    [result] = (workspace / CACHE / "result").glob("*/*.json")
    assert untouched.load_result(result.stem) is None and touched.load_result(result.stem) is None
    # Without the changed files' texts, a pull request's run reads no cache at all.
    assert action_cache(context(workspace, "pull_request"), Log()) is None
