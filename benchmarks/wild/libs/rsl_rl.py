"""rsl-rl (ETH Zurich, NVIDIA): PPO for legged robots; actor and critic models over observation groups.

rsl-rl compiles its actor and critic itself (`PPO.compile` -> `torch.compile`): the calls are those
models' forwards on a `TensorDict` of observation groups, as PPO's `act` runs them: a stochastic
Gaussian actor sampling actions, a critic normalising its observations, a recurrent (LSTM) actor and
a Beta-distribution actor's deterministic output.
"""

from __future__ import annotations

import torch
from rsl_rl.models import MLPModel, RNNModel
from tensordict import TensorDict

DISTRIBUTION = "rsl-rl-lib"
PACKAGE = "rsl_rl"
WHY = "reinforcement learning: PPO actor-critic models for robot control"

_ENVS, _ACT = 8, 3
_GROUPS = {"actor": ["policy"], "critic": ["policy", "privileged"]}


def _obs() -> TensorDict:
    torch.manual_seed(0)
    return TensorDict(
        {"policy": torch.randn(_ENVS, 10), "privileged": torch.randn(_ENVS, 4)}, batch_size=[_ENVS]
    )


def _gaussian() -> dict:
    return {
        "class_name": "rsl_rl.modules.distribution:GaussianDistribution",
        "init_std": 1.0,
        "std_type": "log",
    }


def call_gaussian_actor_sample():
    obs = _obs()
    actor = MLPModel(obs, _GROUPS, "actor", _ACT, hidden_dims=[32, 32], distribution_cfg=_gaussian())
    return actor, (obs,), {"stochastic_output": True}


def call_critic_normalized():
    obs = _obs()
    critic = MLPModel(obs, _GROUPS, "critic", 1, hidden_dims=[32, 32], obs_normalization=True)
    return critic, (obs,), {}


def call_lstm_actor():
    obs = _obs()
    actor = RNNModel(obs, _GROUPS, "actor", _ACT, hidden_dims=[32], distribution_cfg=_gaussian(),
                     rnn_type="lstm", rnn_hidden_dim=16)  # fmt: skip
    return actor, (obs,), {"stochastic_output": True}


def call_beta_actor_deterministic():
    obs = _obs()
    beta = {"class_name": "rsl_rl.modules.distribution:BetaDistribution"}
    actor = MLPModel(obs, _GROUPS, "actor", _ACT, hidden_dims=[32], distribution_cfg=beta)
    return actor, (obs,), {}
