"""pytorch-kinematics: differentiable, batched forward kinematics and Jacobians of robot chains.

Users compile the chain's forward kinematics (the README's `torch.compile` section compiles
`forward_kinematics_tensor`), its Jacobian, and the rotation conversions, inside IK or trajectory
optimisation loops. The robot is a small three-joint arm written here as a URDF string.
"""

from __future__ import annotations

import pytorch_kinematics as pk
import torch

DISTRIBUTION = "pytorch-kinematics"
PACKAGE = "pytorch_kinematics"
WHY = "robotics: batched differentiable forward kinematics, Jacobians and rotation conversions"

_JOINT = """
  <joint name="joint{k}" type="revolute">
    <parent link="link{k}"/><child link="link{n}"/>
    <origin xyz="0 0 0.3" rpy="0 0 0"/><axis xyz="{axis}"/>
    <limit lower="-2.0" upper="2.0" effort="10" velocity="1"/>
  </joint>"""


def _urdf() -> str:
    links = "".join(f'\n  <link name="link{k}"/>' for k in range(4))
    joints = "".join(
        _JOINT.format(k=k, n=k + 1, axis=axis) for k, axis in enumerate(("0 0 1", "0 1 0", "0 1 0"))
    )
    return f'<?xml version="1.0"?>\n<robot name="arm3">{links}{joints}\n</robot>'


def _arm() -> pk.SerialChain:
    return pk.build_serial_chain_from_urdf(_urdf(), "link3")


def call_forward_kinematics_tensor():
    return _arm().forward_kinematics_tensor, (torch.rand(8, 3),), {}


def call_serial_forward_kinematics():
    return _arm().forward_kinematics, (torch.rand(8, 3),), {}


def call_jacobian():
    return _arm().jacobian, (torch.rand(8, 3),), {}


def call_matrix_to_quaternion():
    return pk.matrix_to_quaternion, (pk.random_rotations(16),), {}
