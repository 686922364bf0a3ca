"""linear_operator: structured, lazily evaluated linear algebra (the engine under GPyTorch).

Users compile solves and log-determinants of structured covariance matrices.
"""

from __future__ import annotations

import torch
from linear_operator import to_linear_operator
from linear_operator.operators import DiagLinearOperator, KroneckerProductLinearOperator

DISTRIBUTION = "linear_operator"
PACKAGE = "linear_operator"
WHY = "probabilistic / scientific: structured linear algebra (solves, logdets, Kronecker, low rank)"


def _spd(n: int) -> torch.Tensor:
    a = torch.randn(n, n)
    return a @ a.T + n * torch.eye(n)


def call_dense_solve():
    return to_linear_operator(_spd(8)).solve, (torch.randn(8, 2),), {}


def call_inv_quad_logdet():
    return to_linear_operator(_spd(8)).inv_quad_logdet, (torch.randn(8, 1),), {"logdet": True}


def call_kronecker_plus_diag_matmul():
    operator = KroneckerProductLinearOperator(to_linear_operator(_spd(3)), to_linear_operator(_spd(4)))
    operator = operator + DiagLinearOperator(torch.ones(12))
    return operator.matmul, (torch.randn(12, 2),), {}
