"""Captum (Meta): model interpretability, gradient and perturbation attribution methods.

Users compile the attribution of a model's prediction, which runs the model's forward (and
backward) inside the method: Integrated Gradients along a path of scaled inputs, DeepLift through
its hooks on the nonlinearities, Grad-CAM on a convolutional layer, and feature ablation's
perturbed forwards. Each call attributes a small CNN's class-0 score on random images.
"""

from __future__ import annotations

import torch
from captum.attr import DeepLift, FeatureAblation, IntegratedGradients, LayerGradCam
from torch import nn

DISTRIBUTION = "captum"
PACKAGE = "captum"
WHY = "interpretability: gradient and perturbation attribution methods that run the model inside"


class _CNN(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.conv = nn.Conv2d(3, 4, kernel_size=3, padding=1)
        self.relu1 = nn.ReLU()
        self.pool = nn.AdaptiveAvgPool2d(2)
        self.fc = nn.Linear(16, 8)
        self.relu2 = nn.ReLU()
        self.out = nn.Linear(8, 3)

    def forward(self, x):
        x = self.pool(self.relu1(self.conv(x))).flatten(1)
        return self.out(self.relu2(self.fc(x)))


def _model() -> _CNN:
    torch.manual_seed(0)
    return _CNN().eval()


def _images() -> torch.Tensor:
    torch.manual_seed(1)
    return torch.rand(2, 3, 8, 8)


def call_integrated_gradients():
    method = IntegratedGradients(_model())
    return method.attribute, (_images(),), {"target": 0, "n_steps": 8}


def call_deeplift():
    method = DeepLift(_model())
    x = _images()
    return method.attribute, (x,), {"baselines": torch.zeros_like(x), "target": 0}


def call_layer_grad_cam():
    model = _model()
    method = LayerGradCam(model, model.conv)
    return method.attribute, (_images(),), {"target": 0}


def call_feature_ablation():
    method = FeatureAblation(_model())
    mask = torch.arange(4).repeat_interleave(2).repeat(8, 1)  # 4 column bands of 2 pixels
    return method.attribute, (_images(),), {"target": 0, "feature_mask": mask.expand(1, 3, 8, 8)}
