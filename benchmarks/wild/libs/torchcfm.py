"""torchcfm: conditional flow matching (CFM, OT-CFM, Schrodinger-bridge CFM) for generative models.

Users compile the training step the library's README and examples write: the flow matcher samples
a time, a point on the probability path between noise and data and the target vector field
(`sample_location_and_conditional_flow`, with a minibatch optimal-transport coupling for OT-CFM and
SB-CFM), the network regresses the field (the library's MLP, or its class-conditional UNet for
MNIST), and the loss is a mean squared error.
"""

from __future__ import annotations

import torch
from torchcfm.conditional_flow_matching import (
    ConditionalFlowMatcher,
    ExactOptimalTransportConditionalFlowMatcher,
    SchrodingerBridgeConditionalFlowMatcher,
)
from torchcfm.models import MLP
from torchcfm.models.unet import UNetModel

DISTRIBUTION = "torchcfm"
PACKAGE = "torchcfm"
WHY = "generative: conditional flow matching with optimal-transport and Schrodinger-bridge couplings"


def _mlp_step(fm, model):
    def step(x0, x1):
        t, xt, ut = fm.sample_location_and_conditional_flow(x0, x1)
        vt = model(torch.cat([xt, t[:, None]], dim=-1))
        return torch.mean((vt - ut) ** 2)

    return step


def call_cfm_mlp_step():
    # The README's 2-D example: independent coupling, time-varying MLP.
    torch.manual_seed(0)
    step = _mlp_step(ConditionalFlowMatcher(sigma=0.0), MLP(dim=2, w=32, time_varying=True))
    return step, (torch.randn(16, 2), torch.randn(16, 2) + 3.0), {}


def call_exact_ot_cfm_step():
    # OT-CFM: x0 and x1 are re-paired by an exact minibatch OT plan (POT's emd) before sampling.
    torch.manual_seed(0)
    step = _mlp_step(ExactOptimalTransportConditionalFlowMatcher(sigma=0.1), MLP(dim=2, w=32, time_varying=True))
    return step, (torch.randn(16, 2), torch.randn(16, 2) + 3.0), {}


def call_sb_cfm_sinkhorn_step():
    # Schrodinger-bridge CFM with an entropic (Sinkhorn) plan: the path's noise depends on t.
    torch.manual_seed(0)
    fm = SchrodingerBridgeConditionalFlowMatcher(sigma=0.5, ot_method="sinkhorn")
    step = _mlp_step(fm, MLP(dim=2, w=32, time_varying=True))
    return step, (torch.randn(16, 2), torch.randn(16, 2) + 3.0), {}


def call_conditional_unet_mnist_step():
    # examples/images/conditional_mnist: class-conditional UNet on 28x28 images.
    torch.manual_seed(0)
    fm = ConditionalFlowMatcher(sigma=0.0)
    model = UNetModel(dim=(1, 28, 28), num_channels=32, num_res_blocks=1, class_cond=True, num_classes=10)

    def step(x1, y):
        x0 = torch.randn_like(x1)
        t, xt, ut = fm.sample_location_and_conditional_flow(x0, x1)
        vt = model(t, xt, y)
        return torch.mean((vt - ut) ** 2)

    return step, (torch.randn(2, 1, 28, 28), torch.randint(0, 10, (2,))), {}
