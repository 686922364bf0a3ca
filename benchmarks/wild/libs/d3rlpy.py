"""d3rlpy: offline (and online) deep reinforcement learning algorithms (DQN, SAC, CQL, ...).

d3rlpy itself wraps its algorithms' gradient steps in `torch.compile` (`compile_graph=True`, on
CUDA): the calls here are those steps, `compute_grad` of DQN and the critic and actor steps of SAC,
on a small random mini-batch, plus the greedy-action prediction a deployed policy runs.
"""

from __future__ import annotations

import d3rlpy
import torch
from d3rlpy.torch_utility import TorchMiniBatch

DISTRIBUTION = "d3rlpy"
PACKAGE = "d3rlpy"
WHY = "reinforcement learning: offline RL algorithms' update steps and policies (DQN, SAC)"

_OBS, _ACT, _BATCH = 6, 2, 16


def _batch(discrete: bool) -> TorchMiniBatch:
    actions = torch.randint(0, _ACT, (_BATCH, 1)).float() if discrete else torch.rand(_BATCH, _ACT) * 2 - 1
    return TorchMiniBatch(
        observations=torch.randn(_BATCH, _OBS),
        actions=actions,
        rewards=torch.randn(_BATCH, 1),
        next_observations=torch.randn(_BATCH, _OBS),
        next_actions=actions.clone(),
        returns_to_go=torch.zeros(_BATCH, 1),
        terminals=torch.zeros(_BATCH, 1),
        intervals=torch.ones(_BATCH, 1),
        device="cpu:0",
    )


def _algo(config):
    d3rlpy.seed(0)
    algo = config.create(device="cpu:0")
    algo.create_impl((_OBS,), _ACT)
    return algo


def _with_grad(step):
    # A training loop runs the step with grad on (the benchmark's truth runs under no_grad).
    def grad_step(batch: TorchMiniBatch):
        with torch.enable_grad():
            return step(batch)

    return grad_step


def call_dqn_compute_grad():
    return _with_grad(_algo(d3rlpy.algos.DQNConfig()).impl.compute_grad), (_batch(discrete=True),), {}


def call_dqn_predict_best_action():
    return _algo(d3rlpy.algos.DQNConfig()).impl.predict_best_action, (torch.randn(_BATCH, _OBS),), {}


def call_sac_critic_grad():
    return _with_grad(_algo(d3rlpy.algos.SACConfig()).impl.compute_critic_grad), (_batch(discrete=False),), {}


def call_sac_actor_grad():
    return _with_grad(_algo(d3rlpy.algos.SACConfig()).impl.compute_actor_grad), (_batch(discrete=False),), {}
