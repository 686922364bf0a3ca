"""norse: deep learning with spiking neural networks (LIF, LSNN, leaky integrators) in PyTorch.

Users compile the forward pass of a spiking network simulated over time: a `SequentialState` of
lifted convolutions/linears and spiking layers fed by an encoder (the MNIST tutorial), recurrent
spiking layers (LIFRecurrent, LSNNRecurrent), and a hand-written time loop over neuron cells.
"""

from __future__ import annotations

import norse.torch as snn
import torch

DISTRIBUTION = "norse"
PACKAGE = "norse"
WHY = "neuromorphic: spiking neural networks, stateful neuron layers stepped in Python time loops"


def call_conv_snn_classifier():
    # The README/MNIST model: Poisson-encode an image, then a lifted conv, LIF, lifted linear, LI
    # readout over the time steps; the prediction is the max over time of the readout voltage.
    torch.manual_seed(0)
    encoder = snn.PoissonEncoder(seq_length=6, f_max=200)
    model = snn.SequentialState(
        snn.Lift(torch.nn.Conv2d(1, 4, 3)),
        torch.nn.Flatten(2),
        snn.LIF(),
        snn.Lift(torch.nn.Linear(4 * 6 * 6, 5)),
        snn.LI(),
    )

    def predict(images):
        voltages, _ = model(encoder(images))
        return voltages.max(0).values.log_softmax(-1)

    return predict, (torch.rand(2, 1, 8, 8),), {}


def call_lif_recurrent():
    torch.manual_seed(0)
    layer = snn.LIFRecurrent(6, 8, p=snn.LIFParameters(method="super", alpha=100.0))
    return layer, (torch.randn(5, 2, 6),), {}


def call_lsnn_recurrent():
    torch.manual_seed(0)
    layer = snn.LSNNRecurrent(6, 8)
    return layer, (torch.randn(5, 2, 6),), {}


def call_cell_time_loop():
    # The "step by step" style of the tutorials: a user loop over time with a LIFCell and a
    # leaky-integrator readout, states passed explicitly.
    torch.manual_seed(0)
    linear = torch.nn.Linear(6, 8)
    cell = snn.LIFCell(p=snn.LIFParameters(method="triangle", alpha=0.3))
    readout = snn.LILinearCell(8, 3)

    def run(x):
        s1 = s2 = None
        for t in range(x.shape[0]):
            z, s1 = cell(linear(x[t]), s1)
            v, s2 = readout(z, s2)
        return v

    return run, (torch.randn(4, 2, 6),), {}


def call_adex_and_izhikevich():
    # Richer neuron models in one network: adaptive-exponential LIF and Izhikevich layers.
    torch.manual_seed(0)
    model = snn.SequentialState(
        snn.Lift(torch.nn.Linear(6, 8)),
        snn.LIFAdEx(),
        snn.Lift(torch.nn.Linear(8, 4)),
        snn.Izhikevich(snn.tonic_spiking),
    )
    return model, (torch.randn(4, 2, 6),), {}
