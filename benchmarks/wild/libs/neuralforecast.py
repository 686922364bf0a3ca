"""neuralforecast (Nixtla): deep forecasting models (NHITS, PatchTST, TFT, TimesNet, ...).

Users compile a model's forward on a batch of windows (the dict the library's training step builds:
insample values and mask, historic, future and static exogenous variables) and the training step's
loss on it: NHITS with a multi-quantile loss, PatchTST, the Temporal Fusion Transformer with
exogenous variables of all three kinds, and TimesNet.
"""

from __future__ import annotations

import torch
from neuralforecast.losses.pytorch import MQLoss
from neuralforecast.models import NHITS, TFT, PatchTST, TimesNet

DISTRIBUTION = "neuralforecast"
PACKAGE = "neuralforecast"
WHY = "time series: forecasting models (MLP, transformer, CNN families) with probabilistic losses"

_B, _L, _H = 4, 24, 6
_QUIET = dict(max_steps=1, enable_progress_bar=False, logger=False, enable_model_summary=False)


def _windows(hist: int = 0, futr: int = 0, stat: int = 0) -> dict:
    torch.manual_seed(1)
    return dict(
        insample_y=torch.randn(_B, _L, 1),
        insample_mask=torch.ones(_B, _L, 1),
        futr_exog=torch.randn(_B, _L + _H, futr) if futr else None,
        hist_exog=torch.randn(_B, _L, hist) if hist else None,
        stat_exog=torch.randn(_B, stat) if stat else None,
    )


def call_nhits_mq_loss():
    model = NHITS(h=_H, input_size=_L, loss=MQLoss(level=[80]), **_QUIET).eval()
    torch.manual_seed(2)
    y, mask = torch.randn(_B, _H, 1), torch.ones(_B, _H, 1)

    def step(windows_batch, y, mask):  # training_step: forward, the loss's domain map, the loss
        output = model.loss.domain_map(model(windows_batch))
        return model.loss(y=y, y_hat=output, mask=mask)

    return step, (_windows(), y, mask), {}


def call_patchtst():
    model = PatchTST(h=_H, input_size=_L, hidden_size=16, n_heads=2, encoder_layers=1, patch_len=8,
                     stride=4, **_QUIET).eval()
    return model, (_windows(),), {}


def call_tft_exogenous():
    model = TFT(h=_H, input_size=_L, hidden_size=16, n_head=2, hist_exog_list=["h0", "h1"],
                futr_exog_list=["f0"], stat_exog_list=["s0", "s1"], **_QUIET).eval()
    return model, (_windows(hist=2, futr=1, stat=2),), {}


def call_timesnet():
    model = TimesNet(h=_H, input_size=_L, hidden_size=16, conv_hidden_size=16, encoder_layers=1, **_QUIET).eval()
    return model, (_windows(),), {}
