"""SB3-Contrib: the experimental algorithms of Stable-Baselines3 (QR-DQN, TQC, MaskablePPO, RecurrentPPO).

Users compile the policies: QR-DQN's quantile network, TQC's quantile critics, MaskablePPO's
forward and evaluate_actions under an action mask, RecurrentPPO's LSTM actor-critic forward.
gymnasium's built-in CartPole/Pendulum, no simulator run.
"""

from __future__ import annotations

import torch
from sb3_contrib import QRDQN, TQC, MaskablePPO, RecurrentPPO
from sb3_contrib.common.recurrent.type_aliases import RNNStates

DISTRIBUTION = "sb3-contrib"
PACKAGE = "sb3_contrib"
WHY = "RL: distributional, masked and recurrent algorithms on top of Stable-Baselines3"


def call_qrdqn_quantile_net():
    model = QRDQN("MlpPolicy", "CartPole-v1", buffer_size=100, device="cpu", seed=0)
    return model.quantile_net, (torch.randn(4, 4),), {}


def call_tqc_critic():
    model = TQC("MlpPolicy", "Pendulum-v1", buffer_size=100, device="cpu", seed=0)
    return model.critic, (torch.randn(4, 3), torch.rand(4, 1) * 2 - 1), {}


def call_maskable_ppo_evaluate_actions():
    policy = MaskablePPO("MlpPolicy", "CartPole-v1", n_steps=16, batch_size=16, device="cpu", seed=0).policy
    masks = torch.tensor([[True, False], [True, True], [False, True], [True, True]])
    return policy.evaluate_actions, (torch.randn(4, 4), torch.tensor([0, 1, 1, 0])), {"action_masks": masks}


def call_recurrent_ppo_forward():
    policy = RecurrentPPO(
        "MlpLstmPolicy", "CartPole-v1", n_steps=16, batch_size=16, device="cpu", seed=0
    ).policy
    layers, _, size = policy.lstm_hidden_state_shape  # (layers, envs, size) for one env
    actor, critic = ([torch.zeros(layers, 4, size) for _ in range(2)] for _ in range(2))  # four envs
    states = RNNStates(tuple(actor), tuple(critic))
    return policy, (torch.randn(4, 4), states, torch.zeros(4)), {}
