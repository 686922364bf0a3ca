"""`self.register_buffer("low", taps[0])`: torch accepts only a tensor or None there, so a buffer
registered from a value computed in place (an element of an in-tree helper's tuple, arithmetic on
its result) is a tensor, though the untraced `__init__`'s calls are never solved (pytorch_wavelets'
filter banks: kind_gaps.py counted them as tensors graphmend did not know). Measured with Dynamo
on torch 2.13 against what `graphmend check` reports: `int(self.low[2])` reads a tensor back
(GB0124). The near misses, a buffer registered as None and one registered from a parameter its
builder left None, trace and are not reported."""

from __future__ import annotations

from sample_modules import dynamo_breaks, graphmend_findings, line_of

COMPUTED = """
import torch
from torch import nn


def filters(n):
    low = torch.arange(n, dtype=torch.float32)
    return low, low.flip(0)


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        taps = filters(3)
        self.register_buffer("low", taps[0])
        self.register_buffer("high", filters(3)[1] * 2)

    def forward(self, x):
        k = int(self.low[2])
        j = float(self.high[0])
        return x * k + j
"""

MAYBE_NONE = """
import torch
from torch import nn


class Model(nn.Module):
    def __init__(self, mask=None):
        super().__init__()
        self.register_buffer("extra", None)
        self.register_buffer("mask", mask)

    def forward(self, x):
        if self.extra is not None:
            x = x + self.extra
        if self.mask:
            x = x * 2
        return x
"""


def test_buffer_computed_in_place_is_a_tensor(tmp_path):
    breaks = dynamo_breaks(COMPUTED, tmp_path)
    assert {line for line, _ in breaks} == {line_of(COMPUTED, "k = int"), line_of(COMPUTED, "j = float")}
    assert {(line, gb_id) for line, _, gb_id in graphmend_findings(COMPUTED, tmp_path)} == breaks


def test_buffer_of_none_or_a_name_stays_unreported(tmp_path):
    assert dynamo_breaks(MAYBE_NONE, tmp_path) == set()
    assert graphmend_findings(MAYBE_NONE, tmp_path) == set()


HELPERS = """
import torch
from torch import nn


def nothing(n):
    if n:
        return None
    return


def ramp(n):
    if n == 0:
        return None
    return torch.arange(n, dtype=torch.float32)


def window(n):
    def inner():
        return None
    inner()
    return torch.ones(n)


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("none", nothing(3))
        self.register_buffer("ramp", ramp(3))
        self.register_buffer("window", window(3))

    def forward(self, x):
        if self.none:
            x = x - 1
        k = int(self.ramp[2])
        j = float(self.window[0])
        return x * k + j
"""


def test_buffer_from_a_helper_returning_only_none_is_no_tensor(tmp_path):
    # `nothing` returns None on every path: `if self.none:` tests None and traces. `ramp` returns None
    # only for n == 0 and `window` only in a nested function: their buffers are tensors and still break.
    breaks = dynamo_breaks(HELPERS, tmp_path)
    assert {line for line, _ in breaks} == {line_of(HELPERS, "k = int"), line_of(HELPERS, "j = float")}
    assert {(line, gb_id) for line, _, gb_id in graphmend_findings(HELPERS, tmp_path)} == breaks


# torchcde's LinearInterpolation: `register_buffer("_coeffs", coeffs)` of a parameter without a default.
# Its builder passes a tensor (torch takes nothing else but None, which the signature does not offer);
# one defaulting to None (`scale=None`) may be left None and keeps its kind, as does a parameter rebound.
PASSED = """
import torch
from torch import nn


class Interp(nn.Module):
    def __init__(self, coeffs, scale=None, *, knots):
        super().__init__()
        self.register_buffer("_c", coeffs)
        self.register_buffer("_k", knots)
        self.register_buffer("_s", scale)

    def forward(self, x):
        if self._c[0] > 0:
            x = x + 1
        n = int(self._k[1])
        if self._s is not None and self._s[0] > 0:
            x = x * 2
        return x * n


class Model(Interp):
    def __init__(self):
        super().__init__(torch.ones(3), knots=torch.arange(3))
"""


def test_buffer_of_a_parameter_the_builder_must_pass_is_a_tensor(tmp_path):
    breaks = dynamo_breaks(PASSED, tmp_path)
    assert breaks == {(line_of(PASSED, "if self._c[0] > 0"), "GB0170"), (line_of(PASSED, "n = int(self._k[1])"), "GB0124")}
    assert {(line, gb_id) for line, _, gb_id in graphmend_findings(PASSED, tmp_path)} == breaks


# pypose's EKF: `if Q is not None: self.register_buffer("_Q", Q)` in a setter `__init__` calls, read
# through a property. The `if` proves the name no None where it is registered (so does the `else` of
# `if R is None:`); where it is None (`if S is None:`), what is registered keeps the parameter's kind.
NARROWED = """
import torch
from torch import nn


class Filter(nn.Module):
    def __init__(self, Q=None, R=None, S=None):
        super().__init__()
        self.set_uncertainty(Q=Q, R=R, S=S)

    @property
    def Q(self):
        return self._Q

    def set_uncertainty(self, Q=None, R=None, S=None):
        if Q is not None and Q.dim() == 1:
            self.register_buffer("_Q", Q)
        if R is None:
            R = torch.zeros(3)
        else:
            self.register_buffer("_R", R)
        if S is None:
            self.register_buffer("_S", S)

    def forward(self, x, Q=None):
        Q = Q if Q is not None else self.Q
        if Q[0] > 0:
            x = x + 1
        if self._R[0] > 0:
            x = x + 1
        if self._S is not None and self._S:
            x = x * 2
        return x


class Model(Filter):
    def __init__(self):
        super().__init__(torch.ones(3), torch.ones(3))
"""


def test_buffer_of_a_name_an_if_proves_no_none_is_a_tensor(tmp_path):
    breaks = dynamo_breaks(NARROWED, tmp_path)
    assert breaks == {(line_of(NARROWED, "if Q[0] > 0"), "GB0170"), (line_of(NARROWED, "if self._R[0] > 0"), "GB0170")}
    assert {(line, gb_id) for line, _, gb_id in graphmend_findings(NARROWED, tmp_path)} == breaks


# normflows' spline: a parameter with a number default is registered only when a caller passes a tensor;
# with the default, the attribute holds the float and `int(self.bound)` traces.
DEFAULTED = """
import torch
from torch import nn


class Model(nn.Module):
    def __init__(self, bound=1.0):
        super().__init__()
        if torch.is_tensor(bound):
            self.register_buffer("bound", bound)
        else:
            self.bound = bound

    def forward(self, x):
        return x * int(self.bound)
"""


def test_buffer_of_a_parameter_with_a_number_default_stays_unreported(tmp_path):
    assert dynamo_breaks(DEFAULTED, tmp_path) == set()
    assert graphmend_findings(DEFAULTED, tmp_path) == set()
