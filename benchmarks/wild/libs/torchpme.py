"""torch-pme (lab-cosmo): long-range interactions of atomistic systems (Ewald, PME, P3M) in torch.

Users compile a calculator's forward inside an interatomic potential's energy: charges, cell,
positions and a neighbor list in, per-atom potentials out. The calls evaluate Coulomb interactions
of a small periodic ionic crystal with the three k-space methods, and a dispersion-like inverse
power law with PME.
"""

from __future__ import annotations

import torch
from torchpme import (
    CoulombPotential,
    EwaldCalculator,
    InversePowerLawPotential,
    P3MCalculator,
    PMECalculator,
)

DISTRIBUTION = "torch-pme"
PACKAGE = "torchpme"
WHY = "atomistic ML / molecules: Ewald, particle-mesh Ewald and P3M long-range interactions"

_CUTOFF = 2.5


def _system() -> tuple[torch.Tensor, ...]:
    """A rock-salt cell of 8 ions with jittered positions and its half neighbor list (brute force,
    minimum image; what a neighbor-list library such as vesin hands the calculator)."""
    torch.manual_seed(0)
    side = 4.0
    grid = torch.tensor([[i, j, k] for i in (0, 1) for j in (0, 1) for k in (0, 1)], dtype=torch.float64)
    positions = grid * side / 2 + 0.05 * torch.randn(8, 3, dtype=torch.float64)
    charges = torch.where(grid.sum(dim=1) % 2 == 0, 1.0, -1.0).to(torch.float64).unsqueeze(1)
    cell = side * torch.eye(3, dtype=torch.float64)
    i, j = torch.triu_indices(8, 8, offset=1)
    delta = positions[j] - positions[i]
    delta = delta - side * torch.round(delta / side)
    distances = delta.norm(dim=1)
    keep = distances < _CUTOFF
    return charges, cell, positions, torch.stack([i[keep], j[keep]], dim=1), distances[keep]


def call_ewald_coulomb():
    calculator = EwaldCalculator(CoulombPotential(smearing=0.8), lr_wavelength=1.0)
    return calculator.to(torch.float64), _system(), {}


def call_pme_coulomb():
    calculator = PMECalculator(CoulombPotential(smearing=0.8), mesh_spacing=0.5)
    return calculator.to(torch.float64), _system(), {}


def call_p3m_coulomb():
    calculator = P3MCalculator(CoulombPotential(smearing=0.8), mesh_spacing=0.5)
    return calculator.to(torch.float64), _system(), {}


def call_pme_inverse_power_law():
    calculator = PMECalculator(InversePowerLawPotential(exponent=6, smearing=0.8), mesh_spacing=0.5)
    return calculator.to(torch.float64), _system(), {}
