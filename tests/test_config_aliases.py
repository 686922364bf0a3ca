"""YAML aliases cannot make a configuration huge (review14's finding 13): ten nested aliases of ten
made a `verify:` table of 10**10 values, which hashing the settings for the summary cache wrote out
whole. The loader refuses a document whose aliases expand past MAX_EXPANDED_NODES (or refer to a
node holding them), and `verify`, which no finding depends on, is not part of the cache's key."""

import pytest

from graphmend_bot.analysis.summary_cache import SummaryCache
from graphmend_bot.config import MAX_EXPANDED_NODES, ConfigError, load_config, parse_config


def alias_bomb(levels: int) -> str:
    lines = ["a0: &a0 [x, x, x, x, x, x, x, x, x, x]"]
    lines += [f"a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 10)}]" for i in range(1, levels)]
    return "verify:\n  " + "\n  ".join(lines) + "\n"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (alias_bomb(10), f"aliases expand the configuration past {MAX_EXPANDED_NODES} values"),
        ("verify: &loop [*loop]\n", "an alias refers to a node that holds it"),
        ("verify: " + "[" * 1000 + "]" * 1000 + "\n", "nested too deeply"),
    ],
)
def test_a_configuration_that_expands_without_bound_is_refused(tmp_path, text, message):
    (tmp_path / ".graphmend.yml").write_text(text, encoding="utf-8")
    with pytest.raises(ConfigError, match=message):
        load_config(tmp_path / ".graphmend.yml")


def test_ordinary_aliases_and_merges_still_load(tmp_path):
    (tmp_path / ".graphmend.yml").write_text(
        alias_bomb(4) + "select: &rules [GM1, GM3]\nignore: []\nexclude: *rules\n", encoding="utf-8"
    )
    config = load_config(tmp_path / ".graphmend.yml")
    assert config.exclude == ["GM1", "GM3"] and len(config.verify["a3"]) == 10


def test_the_verify_table_is_not_part_of_the_cache_key():
    plain, verified = parse_config({}), parse_config({"verify": {"shapes": {"x": [2, 3]}}})
    assert SummaryCache.result_key([], [], plain, ["."]) == SummaryCache.result_key([], [], verified, ["."])
    selected = parse_config({"select": ["GM1"]})
    assert SummaryCache.result_key([], [], plain, ["."]) != SummaryCache.result_key([], [], selected, ["."])
