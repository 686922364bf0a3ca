"""Rewrites are well-typed by construction (issue 16 part 1): torch code is written only on
values that may be tensors, and `torch.cond` only where both branches return one shape.

Each case is a shape the fixer got wrong on real code. Each checks the finding is still
reported with its advice, that no fix is offered (not even an unsafe one), and, where the old
rewrite crashed, that the original runs.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import torch

from graphmend_bot.config import Config
from graphmend_bot.engine import check
from graphmend_bot.rewrite import attach_fixes
from graphmend_bot.rules import advice_for as advice

NUMPY_ASTYPE = '''
import numpy as np
import torch
from torch import nn


def to_mask(img_np):
    return img_np.astype(bool if img_np.max() <= 1 else np.int32)


class M(nn.Module):
    def forward(self, x):
        return to_mask(x)
'''

EDGE_FILTER = '''
import torch
from torch import nn


class M(nn.Module):
    def forward(self, edge_index, mask):
        if not mask.all():
            edge_index = edge_index[:, mask]
        return edge_index
'''

RETURNS_LITERAL_WHERE = '''
import torch
from torch import nn


class M(nn.Module):
    def forward(self, x):
        if x.sum() > 0:
            return False
        return x
'''

RETURNS_LITERAL_COND = '''
import torch
from torch import nn


class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(2, 2)

    def forward(self, x):
        if x.sum() > 0:
            return False
        return self.proj(x)
'''

NONZERO_ARM = '''
import torch
from torch import nn


class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(2, 2)

    def forward(self, x):
        if x.sum() > 0:
            y = self.proj(x[x.nonzero()])
        else:
            y = self.proj(x)
        return y
'''

NUMPY_ANNOTATED = '''
import numpy as np
import torch
from torch import nn


def scale(values: np.ndarray, x):
    return values * 2 if x.sum() > 0 else values


class M(nn.Module):
    def forward(self, x):
        return scale(x, x)
'''

NUMPY_GUARD_AND_ITEM = '''
import numpy as np
import torch
from torch import nn


def check(img_np):
    if img_np.max() > 255:
        raise ValueError("out of range")
    return img_np


def scale(img_np):
    peak = img_np.max().item()
    return img_np / peak


class M(nn.Module):
    def forward(self, x):
        return scale(check(x))
'''

ENUM_ARMS = '''
import enum

import torch
from torch import nn


class Perturb(enum.Enum):
    NONE = 0
    PREV = 1


class M(nn.Module):
    def forward(self, x, t0, t1, dt, alpha):
        if alpha == 1.0:
            ti = t1
            perturb = Perturb.PREV
        else:
            ti = t0 + alpha * dt
            perturb = Perturb.NONE
        return x * ti, perturb
'''

CASES = {
    "numpy-astype": (NUMPY_ASTYPE, "GM102"),
    "edge-filter": (EDGE_FILTER, "GM101"),
    "return-literal-where": (RETURNS_LITERAL_WHERE, "GM101"),
    "return-literal-cond": (RETURNS_LITERAL_COND, "GM101"),
    "nonzero-arm": (NONZERO_ARM, "GM101"),
    "numpy-annotated": (NUMPY_ANNOTATED, "GM102"),
    "numpy-validation-guard": (NUMPY_GUARD_AND_ITEM, "GM201"),  # no torch._assert_async on numpy
    "numpy-item": (NUMPY_GUARD_AND_ITEM, "GM301"),  # a numpy scalar would promote differently
    "enum-member-arms": (ENUM_ARMS, "GM101"),  # torchdiffeq's rk_common.py:70
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_no_fix_is_offered_and_the_finding_stays_with_advice(name: str, tmp_path: Path) -> None:
    source, code = CASES[name]
    path = tmp_path / "case.py"
    path.write_text(source, encoding="utf-8")
    findings = [f for f in attach_fixes(check([str(path)]), Config()).findings if f.code == code]
    assert len(findings) == 1, findings
    assert findings[0].fix is None, findings[0].fix and findings[0].fix.message
    assert advice(findings[0]).strip()


def test_the_refused_cond_would_have_raised_in_eager_mode() -> None:
    """Why the edge filter is never a `torch.cond`: the rewrite the fixer used to emit raises on
    a valid eager call, where the original returns the filtered edges."""
    edge_index = torch.arange(8).reshape(2, 4)
    mask = torch.tensor([True, False, True, True])

    def original(edge_index: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        if not mask.all():
            edge_index = edge_index[:, mask]
        return edge_index

    def old_rewrite(edge_index: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        def edge_index_if_true(edge_index: torch.Tensor) -> torch.Tensor:
            return edge_index[:, mask]

        def keep_edge_index(edge_index: torch.Tensor) -> torch.Tensor:
            return edge_index.clone()

        return torch.cond(torch.logical_not(mask.all()), edge_index_if_true, keep_edge_index, (edge_index,))

    assert original(edge_index, mask).shape == (2, 3)
    with pytest.raises(Exception, match=r"data-dependent|guard|shape|size"):
        old_rewrite(edge_index, mask)


def test_numpy_rewrite_would_have_raised() -> None:
    """`img_np.astype(torch.where(...))`, the old rewrite, raises on the array the original accepts."""
    import numpy as np

    img_np = np.array([[0.0, 1.0]])
    assert img_np.astype(bool if img_np.max() <= 1 else np.int32).dtype == np.bool_
    with pytest.raises(TypeError):
        img_np.astype(torch.where(img_np.max() <= 1, bool, np.int32))  # type: ignore[call-overload]


def test_an_imported_class_member_is_no_arm_either(tmp_path: Path) -> None:
    """torchdiffeq imports `Perturb` from a sibling module (`from .misc import Perturb`): the
    CapWords name is a class, so `Perturb.PREV` is never a `torch.where` arm."""
    (tmp_path / "misc.py").write_text("import enum\n\n\nclass Perturb(enum.Enum):\n    NONE = 0\n    PREV = 1\n")
    path = tmp_path / "case.py"
    path.write_text(ENUM_ARMS.replace("import enum\n", "from misc import Perturb\n").split("\n\nclass Perturb")[0]
                    + "\n\n\nclass M" + ENUM_ARMS.split("\nclass M", 1)[1], encoding="utf-8")
    assert "from misc import Perturb" in path.read_text() and "class Perturb" not in path.read_text()
    findings = [f for f in attach_fixes(check([str(path)]), Config()).findings if f.code == "GM101"]
    assert len(findings) == 1 and findings[0].fix is None, findings


def test_the_enum_rewrite_would_have_raised() -> None:
    """The rewrite offered on torchdiffeq (`perturb = torch.where(alpha_i == 1., Perturb.PREV,
    Perturb.NONE)`) raised TypeError on every adaptive-step solve (wild rewrite_check: 3 calls)."""
    import enum

    class Perturb(enum.Enum):
        NONE = 0
        PREV = 1

    alpha = torch.tensor(1.0)
    assert (Perturb.PREV if alpha == 1.0 else Perturb.NONE) is Perturb.PREV
    with pytest.raises(TypeError):
        torch.where(alpha == 1.0, Perturb.PREV, Perturb.NONE)  # type: ignore[call-overload]
