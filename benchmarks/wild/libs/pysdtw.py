"""pysdtw: Soft-DTW (Cuturi & Blondel 2017), a differentiable alignment loss between time series.

Users compile their model's forward with the Soft-DTW loss on its output (CPU: the dynamic
programme runs in a numba kernel inside an autograd Function), on equal-length batches or on
PackedSequences of different lengths, and the package's pairwise distance functions.

numba compiles the kernels on their first call, and torch 2.13's Dynamo raises when it meets that
compilation (an AssertionError building a resume function inside numba's dispatcher,
`bytecode_transformation.py`: "exception table entry start instruction has no offset", not a graph
break), so each SoftDTW call is run once eagerly when it is built, as in a process that has already
computed the loss; compiled afterwards, it breaks as measured.
"""

from __future__ import annotations

import torch
import torch.nn.utils.rnn as rnn
from pysdtw import SoftDTW
from pysdtw.distance import pairwise_l2_squared, pairwise_l2_squared_exact

DISTRIBUTION = "pysdtw"
PACKAGE = "pysdtw"
WHY = "time series / losses: Soft-DTW alignment loss, numba kernels in an autograd Function"


def _warm(sdtw: SoftDTW, x, y):
    # numba's first compilation of the kernels happens here, eagerly (module docstring).
    with torch.no_grad():
        sdtw(x, y)
    return sdtw, (x, y), {}


def call_softdtw_loss():
    torch.manual_seed(0)
    sdtw = SoftDTW(gamma=0.1, use_cuda=False)
    return _warm(sdtw, torch.randn(4, 10, 3), torch.randn(4, 12, 3))


def call_softdtw_packed_sequences():
    # Sequences of different lengths in one batch, packed.
    torch.manual_seed(0)
    sdtw = SoftDTW(gamma=1.0, use_cuda=False, bandwidth=4)
    lengths = [10, 8, 6]
    x = rnn.pack_sequence([torch.randn(n, 3) for n in lengths])
    y = rnn.pack_sequence([torch.randn(n + 1, 3) for n in lengths])
    return _warm(sdtw, x, y)


def call_softdtw_exact_distance():
    torch.manual_seed(0)
    sdtw = SoftDTW(gamma=0.5, dist_func=pairwise_l2_squared_exact, use_cuda=False)
    return _warm(sdtw, torch.randn(2, 8, 4), torch.randn(2, 8, 4))


def call_pairwise_l2_squared():
    torch.manual_seed(0)
    return pairwise_l2_squared, (torch.randn(2, 8, 4), torch.randn(2, 6, 4)), {}
