"""skrl: modular reinforcement learning; policies and value functions are Model + mixin classes.

Users compile a policy's `act` (the rollout step) and the value function, as skrl's agents call them.
"""

from __future__ import annotations

import gymnasium
import torch
from skrl.models.torch import CategoricalMixin, DeterministicMixin, GaussianMixin, Model

DISTRIBUTION = "skrl"
PACKAGE = "skrl"
WHY = "reinforcement learning: Gaussian/categorical policies and value models of PPO/SAC-style agents"

OBSERVATIONS = gymnasium.spaces.Box(-1.0, 1.0, (6,))


class _GaussianPolicy(GaussianMixin, Model):
    def __init__(self) -> None:
        Model.__init__(self, observation_space=OBSERVATIONS, action_space=gymnasium.spaces.Box(-1.0, 1.0, (2,)))
        GaussianMixin.__init__(self, clip_actions=True)
        self.net = torch.nn.Sequential(torch.nn.Linear(6, 16), torch.nn.Tanh(), torch.nn.Linear(16, 2))
        self.log_std = torch.nn.Parameter(torch.zeros(2))

    def compute(self, inputs, role=""):
        return self.net(inputs["observations"]), {"log_std": self.log_std}


class _CategoricalPolicy(CategoricalMixin, Model):
    def __init__(self) -> None:
        Model.__init__(self, observation_space=OBSERVATIONS, action_space=gymnasium.spaces.Discrete(3))
        CategoricalMixin.__init__(self)
        self.net = torch.nn.Linear(6, 3)

    def compute(self, inputs, role=""):
        return self.net(inputs["observations"]), {}


class _Value(DeterministicMixin, Model):
    def __init__(self) -> None:
        Model.__init__(self, observation_space=OBSERVATIONS, action_space=gymnasium.spaces.Box(-1.0, 1.0, (2,)))
        DeterministicMixin.__init__(self)
        self.net = torch.nn.Linear(6, 1)

    def compute(self, inputs, role=""):
        return self.net(inputs["observations"]), {}


def call_gaussian_act():
    return _GaussianPolicy().act, ({"observations": torch.randn(4, 6)},), {}


def call_categorical_act():
    return _CategoricalPolicy().act, ({"observations": torch.randn(4, 6)},), {}


def call_value_act():
    return _Value().act, ({"observations": torch.randn(4, 6)},), {}
