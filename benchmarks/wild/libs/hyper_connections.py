"""hyper-connections: hyper-connections (Zhu et al. 2024), frac-connections and manifold-constrained
hyper-connections (mHC, Sinkhorn-normalised stream mixing), lucidrains.

They replace a transformer's residual connection with several residual streams mixed by learned
static and input-dependent weights. Users compile their model's forward with its branches wrapped
(the README's `init_hyper_conn(branch=...)` between `expand_stream` and `reduce_stream`, or the
branch-less form returning the branch input and an `add_residual` closure), and the package's own
mHC vision transformer.
"""

from __future__ import annotations

import torch
from hyper_connections import (
    get_init_and_expand_reduce_stream_functions,
    mc_get_init_and_expand_reduce_stream_functions,
)
from hyper_connections.vit import ViT

DISTRIBUTION = "hyper-connections"
PACKAGE = "hyper_connections"
WHY = "residual-stream architectures: hyper-, frac- and manifold-constrained hyper-connections (Sinkhorn)"

DIM = 32


class _Block(torch.nn.Module):
    """A user's residual block: attention-free mixer and MLP branches, each wrapped in a hyper-connection."""

    def __init__(self, get_fns, num_streams: int, **options: object) -> None:
        super().__init__()
        init_hyper_conn, self.expand_stream, self.reduce_stream = get_fns(num_streams, dim=DIM, **options)
        self.mix = init_hyper_conn(
            branch=torch.nn.Sequential(torch.nn.LayerNorm(DIM), torch.nn.Linear(DIM, DIM)), layer_index=0
        )
        self.mlp = init_hyper_conn(
            branch=torch.nn.Sequential(
                torch.nn.Linear(DIM, 2 * DIM), torch.nn.GELU(), torch.nn.Linear(2 * DIM, DIM)
            ),
            layer_index=1,
        )

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        residual = self.expand_stream(x)
        residual = self.mix(residual)
        residual = self.mlp(residual)
        return self.reduce_stream(residual)


def call_hyper_connections_block():
    torch.manual_seed(0)
    return _Block(get_init_and_expand_reduce_stream_functions, 4), (torch.randn(2, 10, DIM),), {}


def call_frac_connections_stream_embed():
    # Frac-connections (num_fracs=2) with learned stream embeddings on expansion.
    torch.manual_seed(0)
    block = _Block(get_init_and_expand_reduce_stream_functions, 2, num_fracs=2, add_stream_embed=True)
    return block, (torch.randn(2, 10, DIM),), {}


def call_mhc_branchless():
    # The README's other form: the hyper-connection returns the branch input and a closure that
    # adds the branch's output back into the streams.
    torch.manual_seed(0)
    init_hyper_conn, expand_stream, reduce_stream = mc_get_init_and_expand_reduce_stream_functions(4, dim=DIM)
    hyper_conn = init_hyper_conn(layer_index=0)
    branch = torch.nn.Linear(DIM, DIM)

    def forward(x):
        residual = expand_stream(x)
        branch_input, add_residual = hyper_conn(residual)
        residual = add_residual(branch(branch_input))
        return reduce_stream(residual)

    return forward, (torch.randn(2, 10, DIM),), {}


def call_mhc_vit():
    torch.manual_seed(0)
    vit = ViT(
        image_size=16,
        patch_size=4,
        num_classes=10,
        dim=DIM,
        depth=2,
        heads=2,
        dim_head=16,
        mlp_dim=64,
        num_residual_streams=4,
    )
    return vit, (torch.randn(2, 3, 16, 16),), {}
