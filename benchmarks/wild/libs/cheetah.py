"""cheetah (cheetah-accelerator): differentiable particle-accelerator beam dynamics simulation.

Users build a lattice (`Segment` of `Drift`, `Quadrupole`, `Dipole`, `Cavity`, `Screen`, ...: all
nn.Modules whose forward tracks a beam) and compile the tracking, typically inside an objective of
magnet settings that is optimised by gradient descent or Bayesian optimisation, or in a
reinforcement-learning environment step. Beams are moments (`ParameterBeam`) or macro-particles
(`ParticleBeam`); particle tracking covers nonlinear (drift-kick-drift) magnets and space charge.
"""

from __future__ import annotations

import cheetah
import torch
import torch.nn as nn

DISTRIBUTION = "cheetah-accelerator"
PACKAGE = "cheetah"
WHY = "scientific ML / physics: differentiable accelerator beam tracking (transfer maps, macro-particles, space charge)"


def _ares_like(k1: list, tracking_method: str = "linear") -> cheetah.Segment:
    # A small experimental-area-like lattice: quadrupole triplet, corrector pair, screen.
    return cheetah.Segment(
        elements=[
            cheetah.Drift(length=torch.tensor(0.2)),
            cheetah.Quadrupole(
                length=torch.tensor(0.12), k1=k1[0], name="Q1", tracking_method=tracking_method
            ),
            cheetah.Drift(length=torch.tensor(0.2)),
            cheetah.Quadrupole(
                length=torch.tensor(0.12), k1=k1[1], name="Q2", tracking_method=tracking_method
            ),
            cheetah.Drift(length=torch.tensor(0.2)),
            cheetah.VerticalCorrector(length=torch.tensor(0.02), angle=torch.tensor(1e-4), name="CV"),
            cheetah.Drift(length=torch.tensor(0.1)),
            cheetah.Quadrupole(
                length=torch.tensor(0.12), k1=k1[2], name="Q3", tracking_method=tracking_method
            ),
            cheetah.Drift(length=torch.tensor(0.3)),
            cheetah.HorizontalCorrector(length=torch.tensor(0.02), angle=torch.tensor(-1e-4), name="CH"),
            cheetah.Drift(length=torch.tensor(0.5)),
        ]
    )


def _parameter_beam() -> cheetah.ParameterBeam:
    return cheetah.ParameterBeam.from_parameters(
        sigma_x=torch.tensor(1e-4), sigma_y=torch.tensor(2e-4), energy=torch.tensor(107e6)
    )


def call_segment_beam_size_objective():
    # Gradient-based magnet tuning: quadrupole strengths are nn.Parameters, the loss is the beam
    # size at the end of the lattice (the library's tuning tutorial).
    segment = _ares_like([nn.Parameter(torch.tensor(k)) for k in (10.0, -9.0, 5.0)])
    beam = _parameter_beam()

    def objective(incoming):
        outgoing = segment(incoming)
        return outgoing.sigma_x**2 + outgoing.sigma_y**2 + outgoing.mu_x**2 + outgoing.mu_y**2

    return objective, (beam,), {}


def call_screen_reading():
    # Tracking onto a diagnostic screen and reading the camera image (histogram of particles).
    torch.manual_seed(0)
    screen = cheetah.Screen(
        resolution=(32, 24), pixel_size=torch.tensor([3e-5, 3e-5]), binning=1, is_active=True, name="SCR"
    )
    segment = cheetah.Segment(
        elements=[*_ares_like([torch.tensor(k) for k in (10.0, -9.0, 5.0)]).elements, screen]
    )
    beam = cheetah.ParticleBeam.from_parameters(
        num_particles=500, sigma_x=torch.tensor(1e-4), sigma_y=torch.tensor(2e-4), energy=torch.tensor(107e6)
    )

    def observe(incoming):
        segment.track(incoming)
        return screen.reading

    return observe, (beam,), {}


def call_particle_drift_kick_drift():
    # Macro-particle tracking with nonlinear (symplectic drift-kick-drift) quadrupoles, a
    # sextupole, a dipole and an RF cavity.
    torch.manual_seed(0)
    segment = cheetah.Segment(
        elements=[
            *_ares_like(
                [torch.tensor(k) for k in (8.0, -7.0, 4.0)], tracking_method="drift_kick_drift"
            ).elements,
            cheetah.Sextupole(length=torch.tensor(0.1), k2=torch.tensor(20.0)),
            cheetah.Dipole(length=torch.tensor(0.3), angle=torch.tensor(0.05)),
            cheetah.Cavity(
                length=torch.tensor(1.0),
                voltage=torch.tensor(1e7),
                phase=torch.tensor(0.0),
                frequency=torch.tensor(1.3e9),
            ),
        ]
    )
    beam = cheetah.ParticleBeam.from_parameters(
        num_particles=500, sigma_x=torch.tensor(1e-4), sigma_y=torch.tensor(2e-4), energy=torch.tensor(107e6)
    )
    return segment, (beam,), {}


def call_space_charge():
    # Space charge: the particle distribution is deposited on a grid (cloud-in-cell), the
    # potential solved with FFTs, and the kick applied, between drift sections.
    torch.manual_seed(0)
    segment = cheetah.Segment(
        elements=[
            cheetah.Drift(length=torch.tensor(0.1)),
            cheetah.SpaceChargeKick(effect_length=torch.tensor(0.1), grid_shape=(8, 8, 8)),
            cheetah.Drift(length=torch.tensor(0.1)),
        ]
    )
    beam = cheetah.ParticleBeam.from_parameters(
        num_particles=500,
        sigma_x=torch.tensor(1e-4),
        sigma_y=torch.tensor(1e-4),
        sigma_tau=torch.tensor(1e-4),
        energy=torch.tensor(10e6),
        total_charge=torch.tensor(1e-10),
    )
    return segment, (beam,), {}
