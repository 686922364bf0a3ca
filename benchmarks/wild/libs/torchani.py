"""torchani: ANI neural-network interatomic potentials (atomic environment vectors + per-element
networks), built from the library's architecture recipes with random weights (no downloads).

Users compile the potential's forward (energies of a batch of molecules), the AEV featuriser, and
energies-and-forces for molecular dynamics.
"""

from __future__ import annotations

import typing as tp

import torch
import torchani
from torchani.arch import ANI, Assembler, simple_ani
from torchani.grad import energies_and_forces

DISTRIBUTION = "torchani"
PACKAGE = "torchani"
WHY = "chemistry: neural-network interatomic potentials (energies, forces) for molecules"


def _ani1x_architecture(ensemble_size: int) -> ANI:
    """models.ANI1x's recipe, without fetching its trained state dict."""
    torch.manual_seed(0)
    asm = Assembler(periodic_table_index=True)
    asm.set_symbols(("H", "C", "N", "O"))
    asm.set_atomic_networks(ctor="ani1x")
    asm.set_global_cutoff_fn("cosine")
    asm.set_aev_computer(angular="ani1x", radial="ani1x", strategy="pyaev")
    asm.set_neighborlist("all_pairs")
    asm.set_gsaes_as_self_energies("wb97x-631gd")
    return tp.cast(ANI, asm.assemble(ensemble_size))


def _molecules() -> tuple[torch.Tensor, torch.Tensor]:
    """Two methane-like molecules (atomic numbers; the second padded with -1) and their coordinates."""
    torch.manual_seed(0)
    species = torch.tensor([[6, 1, 1, 1, 1], [8, 1, 1, -1, -1]])
    coordinates = torch.randn(2, 5, 3) * 0.8
    return species, coordinates


def call_ani1x_energies():
    return _ani1x_architecture(2), (_molecules(),), {}


def call_aev_computer():
    species, coordinates = _molecules()
    elem_idxs = torch.where(species == 6, 1, torch.where(species == 8, 3, torch.where(species == 1, 0, -1)))
    return torchani.AEVComputer.like_1x(), (elem_idxs, coordinates), {}


def call_energies_and_forces():
    torch.manual_seed(0)
    model = simple_ani(("H", "C", "N", "O"), "wb97x-631gd", self_energies="zero")

    def md_forces(species: torch.Tensor, coordinates: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        # Forces differentiate the energy in the coordinates, so grad is on even where the caller
        # runs under no_grad (as an MD driver's step may, and as the benchmark's truth runs).
        with torch.enable_grad():
            return energies_and_forces(model, species, coordinates)

    return md_forces, _molecules(), {}
