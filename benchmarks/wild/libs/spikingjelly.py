"""spikingjelly: spiking neural networks (activation-based: IF/LIF/PLIF neurons with surrogate gradients).

Users compile a spiking network stepped over time: the CSNN of the tutorials run multi-step
(`functional.set_step_mode(net, "m")`, reset with `functional.reset_net` between batches), a
single-step network driven by a Poisson encoder in a Python time loop, parametric LIF neurons in
`SeqToANNContainer` blocks, masked parallel spiking neurons (PSN), and Spikformer's spiking
self-attention.
"""

from __future__ import annotations

import torch
from spikingjelly.activation_based import encoding, functional, layer, neuron, surrogate

DISTRIBUTION = "spikingjelly"
PACKAGE = "spikingjelly"
WHY = "neuromorphic: stateful spiking neurons (memories held on the module), step modes, surrogate gradients"


def call_csnn_multi_step():
    # The conv_fashion_mnist tutorial's CSNN (shrunk): multi-step layers over [T, N, C, H, W], the
    # firing rate over time is the prediction; the network's memories are reset per batch.
    torch.manual_seed(0)
    net = torch.nn.Sequential(
        layer.Conv2d(1, 4, 3, padding=1, bias=False),
        layer.BatchNorm2d(4),
        neuron.IFNode(surrogate_function=surrogate.ATan()),
        layer.MaxPool2d(2, 2),
        layer.Flatten(),
        layer.Linear(4 * 4 * 4, 5, bias=False),
        neuron.LIFNode(tau=2.0, surrogate_function=surrogate.ATan()),
    ).eval()
    functional.set_step_mode(net, "m")

    def predict(x_seq):
        functional.reset_net(net)
        return net(x_seq).mean(0)

    return predict, (torch.rand(4, 2, 1, 8, 8),), {}


def call_single_step_poisson_loop():
    # The lif_fc_mnist tutorial: a single-step network fed by a Poisson encoder in a Python loop.
    torch.manual_seed(0)
    net = torch.nn.Sequential(
        layer.Flatten(),
        layer.Linear(16, 5, bias=False),
        neuron.LIFNode(tau=2.0, surrogate_function=surrogate.Sigmoid()),
    )
    encoder = encoding.PoissonEncoder()

    def predict(img):
        functional.reset_net(net)
        rate = 0.0
        for _ in range(4):
            rate = rate + net(encoder(img))
        return rate / 4

    return predict, (torch.rand(2, 1, 4, 4),), {}


def call_plif_seq_to_ann():
    # Parametric LIF (learnable tau) after SeqToANNContainer-wrapped stateless layers.
    torch.manual_seed(0)
    net = torch.nn.Sequential(
        layer.SeqToANNContainer(torch.nn.Linear(6, 8), torch.nn.LayerNorm(8)),
        neuron.ParametricLIFNode(init_tau=2.0, detach_reset=True, step_mode="m"),
        layer.SeqToANNContainer(torch.nn.Linear(8, 3)),
    )
    return net, (torch.randn(5, 2, 6),), {}


def call_masked_psn():
    # Masked parallel spiking neurons (PSN paper): all T steps in one matmul with a learnable,
    # progressively masked weight; users anneal `lambda_` from 0 to 1 during training.
    torch.manual_seed(0)
    net = torch.nn.Sequential(
        layer.SeqToANNContainer(torch.nn.Linear(6, 8)),
        neuron.MaskedPSN(k=2, T=4, step_mode="m"),
        layer.SeqToANNContainer(torch.nn.Linear(8, 3)),
    )
    return net, (torch.randn(4, 2, 6),), {}


def call_spiking_self_attention():
    # Spikformer's spiking self-attention over [T, N, C, L] spike tensors.
    torch.manual_seed(0)
    attention = layer.SpikingSelfAttention(dim=8, num_heads=2).eval()
    functional.set_step_mode(attention, "m")
    spikes = (torch.rand(3, 2, 8, 6) > 0.5).float()
    return attention, (spikes,), {}
