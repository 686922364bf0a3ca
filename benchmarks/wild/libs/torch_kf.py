"""torch-kf: batched linear Kalman filtering and RTS smoothing in PyTorch (Raphael Reme).

Users compile the filter's steps on a batch of independent signals (multi-object tracking,
batched time series): one predict/update step with the measurement's log-likelihood (a tracker's
association cost), the whole filter over a sequence with NaN-masked measurements, and the
Rauch-Tung-Striebel smoother over the filtered states, with a constant-velocity model built by
the library's `constant_kalman_filter`.
"""

from __future__ import annotations

import torch
from torch_kf import GaussianState
from torch_kf.ckf import constant_kalman_filter

DISTRIBUTION = "torch-kf"
PACKAGE = "torch_kf"
WHY = "time series / tracking: batched Kalman filter predict/update, filtering and RTS smoothing"

_N, _T, _DIM = 16, 10, 2  # signals, time steps, spatial dimensions (state: position + velocity)


def _filter_and_prior():
    kf = constant_kalman_filter(measurement_std=0.5, process_std=0.1, dim=_DIM, order=1)
    prior = GaussianState(torch.zeros(_N, 2 * _DIM, 1), torch.eye(2 * _DIM).expand(_N, -1, -1) * 10.0)
    return kf, prior


def _measures() -> torch.Tensor:
    torch.manual_seed(0)
    measures = torch.cumsum(torch.randn(_T, _N, _DIM, 1), dim=0)
    measures[3, :4] = float("nan")  # missed detections: no update for those signals at t=3
    return measures


def call_predict_update_step():
    kf, prior = _filter_and_prior()

    def step(mean, covariance, measure):  # a tracker's step: predict, association cost, update
        state = kf.predict(GaussianState(mean, covariance))
        cost = kf.project(state).log_likelihood(measure)
        posterior = kf.update(state, measure)
        return posterior.mean, posterior.covariance, cost

    return step, (prior.mean, prior.covariance, _measures()[0]), {}


def call_filter_sequence():
    kf, prior = _filter_and_prior()

    def run(mean, covariance, measures):
        states = kf.filter(GaussianState(mean, covariance), measures, return_all=True)
        return states.mean, states.covariance

    return run, (prior.mean, prior.covariance, _measures()), {}


def call_rts_smooth():
    kf, prior = _filter_and_prior()

    def smooth(mean, covariance, measures):
        states = kf.filter(GaussianState(mean, covariance), measures, return_all=True)
        smoothed = kf.rts_smooth(states)
        return smoothed.mean, smoothed.covariance

    return smooth, (prior.mean, prior.covariance, _measures()), {}
