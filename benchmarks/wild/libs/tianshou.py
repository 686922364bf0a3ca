"""tianshou: reinforcement learning; policies are nn.Modules acting on `Batch` containers.

Users compile a policy's forward (the action step of a rollout), the network it wraps, and the
policy's `learn` update on a sampled batch, as tianshou's trainers call them.
"""

from __future__ import annotations

import numpy as np
import torch
from tianshou.data import Batch
from tianshou.policy import DQNPolicy, PGPolicy
from tianshou.utils.net.common import Net
from tianshou.utils.net.discrete import Actor

DISTRIBUTION = "tianshou"
PACKAGE = "tianshou"
WHY = "reinforcement learning: DQN / policy-gradient policies over Batch containers (Net, Actor)"

OBS, ACTIONS = 6, 3


def _dqn():
    torch.manual_seed(0)
    net = Net(OBS, ACTIONS, hidden_sizes=[16, 16])
    return DQNPolicy(net, torch.optim.Adam(net.parameters(), lr=1e-3), discount_factor=0.9, estimation_step=1)


def call_dueling_net_forward():
    torch.manual_seed(0)
    dueling = ({"hidden_sizes": [8]}, {"hidden_sizes": [8]})
    return Net(OBS, ACTIONS, hidden_sizes=[16], dueling_param=dueling), (torch.randn(4, OBS),), {}


def call_dqn_forward():
    return _dqn(), (Batch(obs=torch.randn(4, OBS), info={}),), {}


def call_pg_forward():
    torch.manual_seed(0)
    actor = Actor(Net(OBS, hidden_sizes=[16]), ACTIONS)
    optim = torch.optim.Adam(actor.parameters(), lr=1e-3)
    policy = PGPolicy(actor, optim, torch.distributions.Categorical, action_space=None)
    return policy, (Batch(obs=torch.randn(4, OBS), info={}),), {}


def call_dqn_learn():
    policy = _dqn()
    actions = np.array([0, 2, 1, 0])

    def update(obs, returns):
        # A trainer samples a fresh batch each step (learn pops and sets its "weight"), and runs the
        # update with grad on (the benchmark's truth runs under no_grad).
        with torch.enable_grad():
            return policy.learn(Batch(obs=obs, act=actions, returns=returns, info={}))

    return update, (torch.randn(4, OBS), torch.randn(4)), {}
