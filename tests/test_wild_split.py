"""The wild corpus's development/test split (benchmarks/wild/split.py) is fixed and roughly balanced.

The split decides which libraries detection may be tuned against; if it moved, a library tuned
against could land in the test half and the test figures would no longer be figures on unseen code.
"""

from __future__ import annotations

import hashlib
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks" / "wild"))

import hf_corpus
from split import DEV, SALT, TEST, corpus_names, half

# Halves as first assigned (2026-11-28): a change of the rule or the salt moves some of these
PINNED = {
    "kornia": DEV, "stable_baselines3": DEV, "torchmetrics": DEV, "vector_quantize_pytorch": DEV,
    "torchdiffeq": TEST, "torchsde": TEST, "gpytorch": TEST, "torch_geometric": TEST,
    "transformers-bart": DEV, "transformers-whisper": DEV, "transformers-t5": TEST, "transformers-llama": TEST,
}  # fmt: skip


def test_the_split_is_the_documented_hash() -> None:
    for name in corpus_names():
        first_byte = hashlib.sha256((SALT + name).encode("utf-8")).digest()[0]
        assert half(name) == (DEV if first_byte % 2 == 0 else TEST), name


def test_the_split_is_stable() -> None:
    assert {name: half(name) for name in PINNED} == PINNED


def test_the_split_is_roughly_balanced_in_each_group() -> None:
    families = hf_corpus.unit_names()
    pypi = [name for name in corpus_names() if name not in families]
    assert len(pypi) >= 40 and len(families) >= 40
    for group in (pypi, families):
        share = sum(half(name) == DEV for name in group) / len(group)
        assert 0.4 <= share <= 0.6, (share, len(group))


def test_transformers_classes_are_split_by_family() -> None:
    """A family's classes share a half: BartModel and BartForConditionalGeneration are one unit."""
    assert sum(len(classes) for classes in hf_corpus.MODELS.values()) >= 60
    assert all(hf_corpus.is_unit(name) for name in hf_corpus.unit_names())
    assert not hf_corpus.is_unit("transformers-no_such_family") and not hf_corpus.is_unit("kornia")


def test_a_half_counts_a_statement_two_families_share_once() -> None:
    """Families share files (modeling_utils.py): a half's figures are over the union of statements."""
    from halves import figures
    from harness import DECLARED_SCOPE, DEFAULT_SCOPE, LibraryReport, Line

    def family(name: str, breaks: list[str], found: list[str], executed: list[str]) -> LibraryReport:
        report = LibraryReport(name, "transformers", "5.24.0", "", [])
        report.break_lines = [Line(where, "", "") for where in breaks]
        report.scopes = {scope: {"found": found, "executed": executed} for scope in (DEFAULT_SCOPE, DECLARED_SCOPE)}
        return report

    shared, own = "transformers/modeling_utils.py:10", "transformers/models/x/modeling_x.py:5"
    names = [n for n in hf_corpus.unit_names() if half(n) == DEV][:2]
    reports = [family(names[0], [shared, own], [shared], [shared, own]), family(names[1], [shared], [shared], [shared])]
    scope = figures(reports, DEV).scopes[DECLARED_SCOPE]
    assert (scope.breaks, scope.found, scope.executed, scope.confirmed) == (2, 1, 2, 2)
    assert figures(reports, DEV).lowest[DECLARED_SCOPE] == (names[0], 0.5)


def test_misses_are_told_apart_by_whether_their_function_is_traced(tmp_path: Path) -> None:
    """A missed break in a forward is "construct has no rule"; in a function nothing traced calls,
    "function not reached"; one the declared entry points find, "found through declared entry points".
    The functions are private: `auto`'s public-api scope roots every public callable of a package."""
    from harness import StatementKeys
    from miss_causes import FOUND_DECLARED, NO_RULE, NOT_REACHED, miss_causes

    package, config = _package(tmp_path, "", (
        "import torch\n"  # 1
        "class M(torch.nn.Module):\n"  # 2
        "    def forward(self, x):\n"  # 3
        "        return x + 1\n"  # 4
        "def _unused(x):\n"  # 5
        "    return x * 2\n"  # 6
        "def _declared(x):\n"  # 7
        "    return x - 1\n"  # 8
    ))
    keys = StatementKeys(str(package))
    missed = [("pkg/mod.py", 4), ("pkg/mod.py", 6), ("pkg/mod.py", 8)]
    causes = miss_causes(missed, {("pkg/mod.py", 8)}, keys, str(package), str(config))
    assert causes == {"pkg/mod.py:4": NO_RULE, "pkg/mod.py:6": NOT_REACHED, "pkg/mod.py:8": FOUND_DECLARED}


def test_a_function_the_public_api_scope_roots_is_traced_for_the_causes(tmp_path: Path) -> None:
    """A missed break in a public function of a package exporting an nn.Module (auto's public-api
    scope roots it) is "construct has no rule": the causes use the scope `check` settled on, not
    the model scope, where nothing calls the function."""
    from harness import StatementKeys
    from miss_causes import NO_RULE, NOT_REACHED, miss_causes

    package, config = _package(tmp_path, "from pkg.mod import M, scale, _hidden\n", (
        "import torch\n"  # 1
        "class M(torch.nn.Module):\n"  # 2
        "    def forward(self, x):\n"  # 3
        "        return x + 1\n"  # 4
        "def scale(x: torch.Tensor) -> torch.Tensor:\n"  # 5
        "    return x * 2\n"  # 6
        "def _hidden(x):\n"  # 7
        "    return x - 1\n"  # 8
    ))
    keys = StatementKeys(str(package))
    causes = miss_causes([("pkg/mod.py", 6), ("pkg/mod.py", 8)], set(), keys, str(package), str(config))
    assert causes == {"pkg/mod.py:6": NO_RULE, "pkg/mod.py:8": NOT_REACHED}


def test_reach_gaps_lists_executed_functions_the_scope_does_not_trace(tmp_path: Path) -> None:
    """A function the eager call ran that no root reaches is a gap; the forward is not. It is
    private: `auto`'s public-api scope roots every public callable of a package."""
    from reach_gaps import unreached

    package, config = _package(tmp_path, "", (
        "import torch\n"  # 1
        "class M(torch.nn.Module):\n"  # 2
        "    def forward(self, x):\n"  # 3
        "        return x + 1\n"  # 4
        "def _orphan(x):\n"  # 5
        "    return x * 2\n"  # 6
    ))
    truth = {"package_dir": str(package), "ran": {"pkg/mod.py": [4, 6]}}
    assert unreached(truth, {"default": str(config)}) == {"default": {("pkg.mod", "_orphan")}}


def test_a_namespace_package_names_its_modules_as_graphmend_does(tmp_path: Path) -> None:
    """In a folder without `__init__.py` graphmend names `mod`, not `pkg.mod`: a miss in a forward
    there is "construct has no rule", not "function not reached"."""
    from harness import StatementKeys
    from miss_causes import NO_RULE, miss_causes

    package, config = _package(tmp_path, "", "import torch\nclass M(torch.nn.Module):\n    def forward(self, x):\n        return x\n")
    (package / "__init__.py").unlink()
    causes = miss_causes([("pkg/mod.py", 4)], set(), StatementKeys(str(package)), str(package), str(config))
    assert causes == {"pkg/mod.py:4": NO_RULE}


def _package(tmp_path: Path, init: str, module: str) -> tuple[Path, Path]:
    """A package `pkg` (its `__init__.py` and `mod.py`) and a config declaring no entry point."""
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text(init)
    (package / "mod.py").write_text(module)
    config = tmp_path / "config.yml"
    config.write_text("entry-points: []\n")
    return package, config
