"""GM640 at a call of a Python function of an installed package that calls a standard-library
function Dynamo skips on every path (analysis/installed_skips.py), measured with TorchDynamo.

opt_einsum's `currently_sharing()` is `return threading.get_ident() in _SHARING_STACK`, which broke
neuralop's einsum (GB0007 "Dynamo does not know how to trace the builtin `_thread.get_ident`"); a
deprecated wrapper starts with `warnings.warn`. The stand-in package is installed in a
`site-packages` folder on sys.path; Dynamo inlines it and breaks at the caller's line.
"""

from __future__ import annotations

import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

from graphmend_bot.analysis import installed_packages, installed_skips, installed_wrappers

torch = pytest.importorskip("torch")

from sample_modules import dynamo_breaks, graphmend_findings, line_of  # noqa: E402

SHARING = '''\
import threading
import time

_STACK = {}


def currently_sharing():
    return threading.get_ident() in _STACK


def via_helper(x):
    sharing = currently_sharing()
    return x + 1


def stamped(x):
    started = time.time()
    return x * 2


def in_branch(x, flag):
    if flag:
        currently_sharing()
    return x + 1


def after_early_return(x, flag):
    if flag:
        return x
    currently_sharing()
    return x + 1


def plain(x):
    return x * 2
'''

OLD = '''\
import warnings


def old_scale(x):
    warnings.warn("old_scale is deprecated: use scale", DeprecationWarning, stacklevel=2)
    return x * 2
'''

SOURCE = textwrap.dedent("""\
    import torch
    import fakeskip
    from fakeskip.sharing import via_helper, in_branch, after_early_return, plain


    class Model(torch.nn.Module):
        def forward(self, x):
            x = x * 2
            x = via_helper(x)
            x = fakeskip.sharing.stamped(x)
            x = fakeskip.old_scale(x)
            x = in_branch(x, False)
            x = after_early_return(x, True)
            x = plain(x)
            return x + 1
    """)


@pytest.fixture
def site(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A `site-packages` folder on sys.path holding the stand-in package `fakeskip`."""
    root = tmp_path / "site-packages"
    package = root / "fakeskip"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("from . import sharing\nfrom .old import old_scale\n")
    (package / "sharing.py").write_text(SHARING)
    (package / "old.py").write_text(OLD)
    monkeypatch.syspath_prepend(str(root))
    _forget()
    yield root
    _forget()
    for name in [name for name in sys.modules if name.startswith("fakeskip")]:
        del sys.modules[name]  # imported by the Dynamo run


def _forget() -> None:
    installed_packages.forget()
    installed_wrappers.forget()
    installed_skips.forget()


def test_lookup_follows_every_path_and_same_module_helpers(site: Path) -> None:
    assert installed_skips.skipped_call_inside("fakeskip.sharing.currently_sharing") == ("threading.get_ident", "GB0007")
    assert installed_skips.skipped_call_inside("fakeskip.sharing.via_helper") == ("threading.get_ident", "GB0007")
    assert installed_skips.skipped_call_inside("fakeskip.old_scale") == ("warnings.warn", "GB0007")
    for name in ("in_branch", "after_early_return", "plain"):
        assert installed_skips.skipped_call_inside(f"fakeskip.sharing.{name}") is None, name


def test_reported_where_dynamo_breaks(site: Path, tmp_path: Path) -> None:
    project = tmp_path / "project"  # beside site-packages: Dynamo's lines in the package are not the tree's
    project.mkdir()
    breaks = {line for line, _ in dynamo_breaks(SOURCE, project)}
    expected = {line_of(SOURCE, text) for text in ("via_helper(x)", "stamped(x)", "old_scale(x)")}
    assert breaks == expected
    found = graphmend_findings(SOURCE, project)
    assert {line for line, code, _ in found if code == "GM640"} == expected
    assert {line for line, _, _ in found} == expected
