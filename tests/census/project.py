"""A small project with a test suite, written into a temporary folder for the census to run on."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

MODEL = '''\
import logging
import time

import torch
from torch import nn

logger = logging.getLogger(__name__)


class Block(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.linear = nn.Linear(4, 4)

    def forward(self, x):
        h = self.linear(x)
        if h.mean() > 0:  # break: branch
            h = h * 0.5
        return h


class Net(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.block = Block()
        self.norm = nn.BatchNorm1d(4)
        self.drop = nn.Dropout(0.5)

    def forward(self, x):
        h = self.block(x)
        logger.warning("scaling")  # break: logger
        h = self.norm(h)
        return self.drop(h) + x.shape[0]


class Untraceable(nn.Module):
    """Eager it adds one; traced, it takes a torch.cond whose branches disagree, which Dynamo
    refuses outright (an error, not a graph break)."""

    def forward(self, x):
        if torch.compiler.is_compiling():
            return torch.cond(x.sum() > 0, lambda t: t[:1], lambda t: t * 2, (x,))
        return x + 1


def score(x):
    total = x.sum()
    print("score", total.item())  # break: print
    return total * 2


def clean(x):
    return torch.relu(x) * 2


def timed(x):
    started = time.monotonic()  # break: time
    y = x.detach() * 2
    y.data = x.detach()  # break: only Dynamo sees this one
    return y * 3, started
'''

TESTS = '''\
import logging
import random

import torch
from pkg.model import Net, Untraceable, clean, score, timed


def test_forward_sees_its_own_randomness_logs_and_stats(caplog):
    x = torch.randn(3, 4)
    torch.manual_seed(0)
    net = Net()
    with caplog.at_level(logging.WARNING):
        out = net(x)
    assert [r.getMessage() for r in caplog.records] == ["scaling"]
    torch.manual_seed(0)
    net2 = Net()
    assert torch.equal(out, net2(x))
    assert torch.equal(net.norm.running_mean, net2.norm.running_mean)
    assert net.norm.num_batches_tracked.item() == 1


def test_score_prints_once(capsys):
    assert score(torch.ones(2)).item() == 4.0
    assert capsys.readouterr().out == "score 2.0\\n"


def test_compiled_fullgraph_is_untouched():
    net = torch.nn.Sequential(torch.nn.Linear(4, 4), torch.nn.ReLU())
    compiled = torch.compile(net, fullgraph=True, backend="eager")
    x = torch.randn(2, 4)
    assert torch.equal(compiled(x), net(x))


def test_untraceable_module_still_runs():
    assert torch.equal(Untraceable()(torch.zeros(2)), torch.ones(2))


def test_clean_entry_point():
    random.seed(1)
    assert clean(torch.ones(2)).tolist() == [2.0, 2.0]


def test_timed_entry_point():
    assert timed(torch.ones(1))[0].item() == 6.0


def test_a_failing_test_stays_failing():
    assert Net()(torch.randn(2, 4)).shape == (3, 4)
'''


def make_project(root: Path) -> Path:
    (root / "pkg").mkdir(parents=True)
    (root / "tests").mkdir()
    (root / "pkg" / "__init__.py").write_text("")
    (root / "pkg" / "model.py").write_text(MODEL)
    (root / "tests" / "test_model.py").write_text(TESTS)
    (root / "pyproject.toml").write_text('[tool.graphmend]\nentry-points = ["pkg.model:score", "pkg.model:clean", "pkg.model:timed"]\n')
    git = ["git", "-c", "user.email=t@example.com", "-c", "user.name=t"]
    subprocess.run([*git, "init", "-q", "."], cwd=root, check=True)
    subprocess.run([*git, "add", "-A"], cwd=root, check=True)
    subprocess.run([*git, "commit", "-qm", "project"], cwd=root, check=True)
    return root


def line_of(marker: str) -> int:
    return next(i for i, text in enumerate(MODEL.splitlines(), 1) if marker in text)


def run_pytest(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-rA", *args], cwd=root,
                          capture_output=True, text=True, timeout=600, check=False)


def outcomes(output: str) -> dict[str, str]:
    """node id -> PASSED/FAILED, from `-rA`'s short summary."""
    found = {}
    for line in output.splitlines():
        word, _, rest = line.partition(" ")
        if word in ("PASSED", "FAILED", "ERROR") and "::" in rest:
            found[rest.split(" - ")[0].strip()] = word
    return found
