"""titans-pytorch: Titans' neural long-term memory (test-time learning of an MLP memory), lucidrains.

Users compile the `NeuralMemory` layer's forward (each chunk of the sequence is stored by a
per-sample gradient step of the memory MLP, `torch.func.grad` under `vmap`, then retrieved), alone
or with its state carried across calls, and the Memory-as-Context transformer's forward with the
language-model loss; the README compiles both.
"""

from __future__ import annotations

import torch
from titans_pytorch import MemoryAsContextTransformer, MemoryAttention, NeuralMemory

DISTRIBUTION = "titans-pytorch"
PACKAGE = "titans_pytorch"
WHY = "memory / attention models: neural long-term memory updated at test time, memory-as-context transformer"

DIM = 32


def call_neural_memory():
    # The README's layer: store and retrieve a sequence in chunks, multi-head memory.
    torch.manual_seed(0)
    mem = NeuralMemory(dim=DIM, chunk_size=4, heads=2, dim_head=16)
    return mem, (torch.randn(2, 16, DIM),), {}


def call_neural_memory_with_state():
    # Streaming: weights are updated every `batch_size` tokens and the state of an earlier call is
    # carried into the next one.
    torch.manual_seed(0)
    mem = NeuralMemory(dim=DIM, chunk_size=4, batch_size=8)
    with torch.no_grad():
        _, state = mem(torch.randn(2, 16, DIM))
    return mem, (torch.randn(2, 8, DIM),), {"state": state}


def call_neural_memory_attention_model():
    # The memory model is an attention layer (MemoryAttention) rather than the default MLP.
    torch.manual_seed(0)
    mem = NeuralMemory(dim=DIM, chunk_size=4, model=MemoryAttention(dim=DIM))
    return mem, (torch.randn(2, 8, DIM),), {}


def call_mac_transformer_loss():
    # Memory-as-Context transformer: segments with long-term and persistent memory tokens, neural
    # memory in its second layer, hyper-connection residual streams; next-token loss.
    torch.manual_seed(0)
    model = MemoryAsContextTransformer(
        num_tokens=64,
        dim=DIM,
        depth=2,
        segment_len=8,
        num_persist_mem_tokens=2,
        num_longterm_mem_tokens=2,
        dim_head=16,
        heads=2,
        neural_memory_layers=(2,),
        num_residual_streams=2,
    )
    return model, (torch.randint(0, 64, (2, 20)),), {"return_loss": True}
