"""torchattacks: adversarial attacks on image classifiers (FGSM, PGD, CW, APGD, AutoAttack, ...).

Users compile the attack that generates adversarial examples inside an adversarial-training or
robustness-evaluation loop: `atk = torchattacks.PGD(model, ...)`, then `adv = atk(images, labels)`,
which runs the attack's `forward` (a plain class, not an nn.Module): the classifier's forward,
a loss, `torch.autograd.grad` (or an optimiser's step, for CW) and the projection, step after step.
The calls wrap the attack in `torch.enable_grad()`, as an evaluation loop under `torch.no_grad()`
must (the attacks differentiate the loss with respect to the images).
"""

from __future__ import annotations

import torch
import torchattacks
from torch import nn

DISTRIBUTION = "torchattacks"
PACKAGE = "torchattacks"
WHY = "adversarial robustness: gradient attacks (FGSM, PGD, Carlini-Wagner, APGD) on a classifier"

N_CLASSES = 5


def _classifier() -> nn.Module:
    torch.manual_seed(0)
    return nn.Sequential(
        nn.Conv2d(3, 8, 3, padding=1),
        nn.ReLU(),
        nn.MaxPool2d(2),
        nn.Conv2d(8, 8, 3, padding=1),
        nn.ReLU(),
        nn.AdaptiveAvgPool2d(1),
        nn.Flatten(),
        nn.Linear(8, N_CLASSES),
    ).eval()


def _batch(model: nn.Module):
    # Labels the classifier predicts: an attack only works on the images it classifies correctly.
    torch.manual_seed(0)
    images = torch.rand(4, 3, 16, 16)
    with torch.no_grad():
        return images, model(images).argmax(dim=1)


def _with_grad(atk):
    def attack(images, labels):
        with torch.enable_grad():
            return atk(images, labels)

    return attack


def call_fgsm():
    model = _classifier()
    atk = torchattacks.FGSM(model, eps=8 / 255)
    return _with_grad(atk), _batch(model), {}


def call_pgd_linf():
    # The README's example: L-inf PGD with a random start, a few steps.
    model = _classifier()
    atk = torchattacks.PGD(model, eps=8 / 255, alpha=2 / 255, steps=3, random_start=True)
    return _with_grad(atk), _batch(model), {}


def call_cw_l2():
    # Carlini-Wagner L2: Adam on a tanh-space perturbation, keeping the best adversarial per image.
    model = _classifier()
    atk = torchattacks.CW(model, c=1, kappa=0, steps=4, lr=0.01)
    return _with_grad(atk), _batch(model), {}


def call_apgd_ce():
    # AutoAttack's first component: APGD with cross-entropy, step-size halving at checkpoints.
    model = _classifier()
    atk = torchattacks.APGD(model, norm="Linf", eps=8 / 255, steps=4, n_restarts=1, loss="ce", seed=0)
    return _with_grad(atk), _batch(model), {}
