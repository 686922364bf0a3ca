"""e3nn: E(3)-equivariant neural networks (irreps, tensor products, spherical harmonics).

Users compile equivariant layers in molecular and materials models: a fully connected tensor
product, spherical harmonics of edge vectors, an equivariant linear layer and a gated
nonlinearity.
"""

from __future__ import annotations

import torch
from e3nn import o3
from e3nn.nn import Gate

DISTRIBUTION = "e3nn"
PACKAGE = "e3nn"
WHY = "scientific ML: equivariant nets for molecules and materials (codegen through torch.fx)"


def call_tensor_product():
    tp = o3.FullyConnectedTensorProduct("2x0e + 1x1o", "1x0e + 1x1o", "2x0e + 2x1o")
    return tp, (tp.irreps_in1.randn(10, -1), tp.irreps_in2.randn(10, -1)), {}


def call_spherical_harmonics():
    return o3.spherical_harmonics, ([0, 1, 2], torch.randn(10, 3), True), {"normalization": "component"}


def call_linear():
    linear = o3.Linear("4x0e + 2x1o", "2x0e + 3x1o")
    return linear, (linear.irreps_in.randn(10, -1),), {}


def call_gate():
    gate = Gate("2x0e", [torch.relu], "2x0e", [torch.sigmoid], "2x1o")
    return gate, (gate.irreps_in.randn(10, -1),), {}


# Calls written for the rewrites (issue 16's calls-per-rewrite check). The three `radius_graph`
# helpers of e3nn's example networks get `@torch.compiler.disable` (their `nonzero()` and boolean
# mask give data-dependent shapes); the benchmark's calls use o3 building blocks, never a network.
# Each call runs a whole network on two small point clouds (`batch` set, so the mask that drops
# cross-graph edges does work), with `pos` requiring grad as for forces (-dE/dpos).


def _point_clouds(nodes: int = 8):
    pos = torch.randn(nodes, 3).requires_grad_()
    return pos, torch.arange(2).repeat_interleave(nodes // 2)


def rewrite_call_gate_points_2101():
    """e3nn/nn/models/gate_points_2101.py:radius_graph, built by `Network.forward` on every call."""
    from e3nn.nn.models.gate_points_2101 import Network

    net = Network(irreps_in="2x0e", irreps_hidden="4x0e + 2x1o", irreps_out="1x0e", irreps_node_attr=None,
                  irreps_edge_attr="0e + 1o", layers=1, max_radius=2.5, number_of_basis=4, radial_layers=1,
                  radial_neurons=8, num_neighbors=3.0, num_nodes=4.0)
    pos, batch = _point_clouds()
    return net, ({"pos": pos, "x": torch.randn(8, 2), "batch": batch},), {}


def rewrite_call_gate_points_2102():
    """e3nn/nn/models/gate_points_2102.py:radius_graph, built by `Network.forward` on every call."""
    from e3nn.nn.models.gate_points_2102 import Network

    net = Network(irreps_in="2x0e", irreps_hidden="4x0e + 2x1o", irreps_out="1x0e", irreps_node_attr="1x0e",
                  irreps_edge_attr="0e + 1o", layers=1, max_radius=2.5, number_of_basis=4, radial_layers=1,
                  radial_neurons=8, num_neighbors=3.0, num_nodes=4.0)
    pos, batch = _point_clouds()
    return net, ({"pos": pos, "x": torch.randn(8, 2), "z": torch.ones(8, 1), "batch": batch},), {}


def rewrite_call_simple_network_v2106():
    """e3nn/nn/models/v2106/gate_points_networks.py:radius_graph, built by `SimpleNetwork.preprocess`.

    The convolutions' `alpha` gates are set off zero, as training leaves them, so that the edges
    radius_graph finds reach the output and its gradient with respect to `pos`."""
    from e3nn.nn.models.v2106.gate_points_networks import SimpleNetwork

    net = SimpleNetwork("2x0e + 1x1o", "1x0e", max_radius=2.5, num_neighbors=3.0, num_nodes=4.0, mul=4, layers=1,
                        lmax=1)
    with torch.no_grad():  # `alpha` starts at zero, which mutes every edge; a trained network's is not
        for name, module in net.named_modules():
            if name.endswith(".alpha"):
                module.weight.normal_()
    pos, batch = _point_clouds()
    return net, ({"pos": pos, "x": net.irreps_in.randn(8, -1), "batch": batch},), {}
