"""PFRL (Preferred Networks): deep RL algorithms (DQN family, PPO, SAC, TD3) and their networks.

Users compile the networks an agent acts with and the agent's loss: a fully connected Q-function
with its greedy action (what `batch_act` computes), a dueling Atari Q-network, a Gaussian policy
head sampling actions with their log-probabilities (PPO's act), and DQN's `_compute_loss` on a
batch from the library's `batch_experiences`.
"""

from __future__ import annotations

import numpy as np
import pfrl
import torch
from pfrl.q_functions import DuelingDQN, FCStateQFunctionWithDiscreteAction
from pfrl.replay_buffer import batch_experiences
from torch import nn

DISTRIBUTION = "pfrl"
PACKAGE = "pfrl"
WHY = "reinforcement learning: DQN-family, policy-gradient and actor-critic agents' networks and losses"

_OBS, _ACTIONS = 6, 3


def _q_function() -> FCStateQFunctionWithDiscreteAction:
    torch.manual_seed(0)
    return FCStateQFunctionWithDiscreteAction(_OBS, _ACTIONS, n_hidden_channels=32, n_hidden_layers=2)


def call_q_function_greedy():
    q_func = _q_function()

    def act(obs):  # DQN.batch_act: the greedy action and its value
        action_value = q_func(obs)
        return action_value.greedy_actions, action_value.max

    return act, (torch.randn(8, _OBS),), {}


def call_dueling_dqn():
    torch.manual_seed(0)
    return DuelingDQN(n_actions=4, n_input_channels=4), (torch.rand(2, 4, 84, 84),), {}


def call_gaussian_policy_act():
    torch.manual_seed(0)
    policy = nn.Sequential(
        nn.Linear(_OBS, 32),
        nn.Tanh(),
        nn.Linear(32, 2),
        pfrl.policies.GaussianHeadWithStateIndependentCovariance(action_size=2, var_type="diagonal"),
    )

    def act(obs):  # PPO's act: sample an action and keep its log-probability
        distribution = policy(obs)
        action = distribution.sample()
        return action, distribution.log_prob(action)

    return act, (torch.randn(8, _OBS),), {}


def call_dqn_compute_loss():
    q_func = _q_function()
    agent = pfrl.agents.DQN(
        q_func,
        torch.optim.Adam(q_func.parameters(), lr=1e-3),
        pfrl.replay_buffers.ReplayBuffer(capacity=100),
        gamma=0.99,
        explorer=pfrl.explorers.Greedy(),
        replay_start_size=8,
        minibatch_size=8,
        target_update_interval=10,
    )
    rng = np.random.default_rng(0)
    experiences = [
        [{"state": rng.standard_normal(_OBS, dtype=np.float32), "action": int(rng.integers(_ACTIONS)),
          "reward": float(rng.standard_normal()), "is_state_terminal": False,
          "next_state": rng.standard_normal(_OBS, dtype=np.float32), "next_action": None}]
        for _ in range(8)
    ]  # fmt: skip
    batch = batch_experiences(experiences, torch.device("cpu"), lambda x: x, gamma=0.99)

    def loss(exp_batch):  # DQN.update computes the loss with grad on (the truth runs under no_grad)
        with torch.enable_grad():
            return agent._compute_loss(exp_batch)

    return loss, (batch,), {}
