"""snntorch: spiking neural networks (leaky integrate-and-fire neurons) on top of torch.

Users compile the network stepped over time (its forward, called once per time step, with the
neurons' membrane state carried between steps) and the spike-count losses of snntorch.functional.
"""

from __future__ import annotations

import snntorch
import snntorch.functional
import snntorch.utils
import torch
from torch import nn

DISTRIBUTION = "snntorch"
PACKAGE = "snntorch"
WHY = "spiking networks: LIF neuron layers stepped over time, trained with spike-rate losses"

_STEPS = 4


def _leaky_net() -> nn.Sequential:
    torch.manual_seed(0)
    return nn.Sequential(
        nn.Linear(8, 16),
        snntorch.Leaky(beta=0.9, init_hidden=True),
        nn.Linear(16, 3),
        snntorch.Leaky(beta=0.9, init_hidden=True, output=True),
    )


def call_leaky_stack_over_time():
    """The tutorials' loop: reset the hidden state, then step the Sequential once per time step."""
    net = _leaky_net()

    def run(data: torch.Tensor) -> torch.Tensor:
        snntorch.utils.reset(net)
        spikes = []
        for step in range(data.shape[0]):
            spike, _membrane = net(data[step])
            spikes.append(spike)
        return torch.stack(spikes)

    torch.manual_seed(0)
    return run, (torch.rand(_STEPS, 2, 8),), {}


def call_synaptic_step():
    """One step of a Synaptic (second-order LIF) layer with the state passed explicitly."""
    torch.manual_seed(0)
    layer = snntorch.Synaptic(alpha=0.8, beta=0.9)
    synapse, membrane = layer.reset_mem()
    return layer, (torch.randn(2, 8), synapse, membrane), {}


def call_ce_rate_loss():
    torch.manual_seed(0)
    spikes = (torch.rand(_STEPS, 2, 3) > 0.5).float().requires_grad_()
    return snntorch.functional.ce_rate_loss(), (spikes, torch.tensor([0, 2])), {}


def call_mse_count_loss():
    torch.manual_seed(0)
    spikes = (torch.rand(_STEPS, 2, 3) > 0.5).float().requires_grad_()
    loss = snntorch.functional.mse_count_loss(correct_rate=0.8, incorrect_rate=0.2)
    return loss, (spikes, torch.tensor([0, 2])), {}
