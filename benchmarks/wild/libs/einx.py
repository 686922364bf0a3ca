"""einx: a universal notation for tensor operations (rearrange, dot, reductions, indexing) in strings.

Each einx call parses its description string, solves the axis sizes, traces and compiles a small
Python function for the operation (cached by signature) and runs it. Users write einx inside their
models' forward (attention, norms, patch embeddings, gathers), as x-transformers and
vector-quantize-pytorch do, and compile those; einx 0.4 registers its ops with
`torch.compiler.allow_in_graph` when the torch backend is first built.
"""

from __future__ import annotations

import einx
import torch

DISTRIBUTION = "einx"
PACKAGE = "einx"
WHY = "tensor notation: string-parsed ops traced and compiled to Python code, cached; pure Python"


class _Attention(torch.nn.Module):
    """Multi-head self-attention written with einx, as in einx's documentation examples, over packed
    sequences: a token attends only within its own segment (mask built by `einx.equal`)."""

    def __init__(self, dim: int = 16, heads: int = 4) -> None:
        super().__init__()
        self.heads = heads
        self.to_qkv = torch.nn.Linear(dim, 3 * dim)
        self.to_out = torch.nn.Linear(dim, dim)

    def forward(self, x: torch.Tensor, segment_ids: torch.Tensor) -> torch.Tensor:
        q, k, v = self.to_qkv(x).chunk(3, dim=-1)
        q = q * (q.shape[-1] // self.heads) ** -0.5
        attn = einx.dot("b q (h c), b k (h c) -> b h q k", q, k, h=self.heads)
        same_segment = einx.equal("b q, b k -> b q k", segment_ids, segment_ids)
        attn = einx.where("b q k, b h q k, -> b h q k", same_segment, attn, float("-inf"))
        attn = einx.softmax("b h q [k]", attn)
        out = einx.dot("b h q k, b k (h c) -> b q (h c)", attn, v, h=self.heads)
        return self.to_out(out)


class _PatchEmbedNorm(torch.nn.Module):
    """ViT patch embedding (einx.id as rearrange) followed by a layer norm written with einx."""

    def __init__(self, patch: int = 4, channels: int = 3, dim: int = 16) -> None:
        super().__init__()
        self.patch = patch
        self.proj = torch.nn.Linear(patch * patch * channels, dim)
        self.scale = torch.nn.Parameter(torch.ones(dim))

    def forward(self, images: torch.Tensor) -> torch.Tensor:
        patches = einx.id("b c (h p1) (w p2) -> b (h w) (p1 p2 c)", images, p1=self.patch, p2=self.patch)
        x = self.proj(patches)
        mean = einx.mean("b n [d]", x)
        var = einx.var("b n [d]", x)
        x = einx.subtract("b n d, b n -> b n d", x, mean)
        x = einx.true_divide("b n d, b n -> b n d", x, torch.sqrt(var + 1e-5))
        return einx.multiply("b n d, d", x, self.scale)


def call_attention_forward():
    torch.manual_seed(0)
    segment_ids = torch.tensor([[0, 0, 0, 1, 1, 1, 1, 1], [0, 0, 0, 0, 0, 0, 1, 1]])
    return _Attention(), (torch.randn(2, 8, 16), segment_ids), {}


def call_patch_embed_layernorm():
    torch.manual_seed(0)
    return _PatchEmbedNorm(), (torch.randn(2, 3, 8, 8),), {}


def call_token_logprob_gather():
    """The sequence log-likelihood of x-transformers' loss: log_softmax over the vocabulary, then
    `einx.get_at` of the target tokens, masked past each sequence's length."""
    torch.manual_seed(0)

    def seq_log_likelihood(logits, targets, lens):
        log_probs = einx.log_softmax("b n [l]", logits)
        picked = einx.get_at("b n [l], b n -> b n", log_probs, targets)
        mask = einx.less("n, b -> b n", torch.arange(targets.shape[1]), lens)
        picked = einx.where("b n, b n, -> b n", mask, picked, 0.0)
        return einx.sum("b [n]", picked) / lens

    return seq_log_likelihood, (torch.randn(2, 6, 11), torch.randint(0, 11, (2, 6)), torch.tensor([6, 4])), {}


def call_codebook_nearest_update():
    """A vector-quantiser step: squared distances to a codebook, nearest code by `argmin`, code
    lookup with `get_at`, and the EMA numerator accumulated by `add_at`."""
    torch.manual_seed(0)
    codebook = torch.randn(8, 4)

    def quantize(x, embed_sum):
        dist = einx.subtract("b n d, c d -> b n c d", x, codebook).pow(2)
        dist = einx.sum("b n c [d]", dist)
        ind = einx.argmin("b n [c] -> b n", dist)
        quantized = einx.get_at("[c] d, b n -> b n d", codebook, ind)
        embed_sum = einx.add_at("[c] d, b n, b n d -> [c] d", embed_sum, ind, x)
        return quantized, embed_sum

    return quantize, (torch.randn(2, 5, 4), torch.zeros(8, 4)), {}


def call_adapt_with_vmap():
    """A user's per-example function lifted to a batched einx op by `einx.torch.adapt_with_vmap`."""
    torch.manual_seed(0)

    def weighted_pool(x, w):  # x: (n, d), w: (n,)
        return (torch.softmax(w, dim=0)[:, None] * x).sum(dim=0)

    pool = einx.torch.adapt_with_vmap(weighted_pool)

    def pooled(x, w):
        return pool("b [n d], b [n] -> b [d]", x, w)

    return pooled, (torch.randn(3, 5, 4), torch.randn(3, 5)), {}
