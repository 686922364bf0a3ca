"""efficientnet_pytorch: EfficientNet image classifiers (static same-padding convs, memory-efficient swish).

Users compile the model's forward for inference or training, and `extract_features` /
`extract_endpoints` when the network is a backbone. Built with `from_name` (no weights).
"""

from __future__ import annotations

import torch
from efficientnet_pytorch import EfficientNet

DISTRIBUTION = "efficientnet_pytorch"
PACKAGE = "efficientnet_pytorch"
WHY = "vision: EfficientNet classifiers and backbones"


def _model(**overrides: object) -> EfficientNet:
    torch.manual_seed(0)
    return EfficientNet.from_name("efficientnet-b0", image_size=64, num_classes=10, **overrides)


def _images() -> torch.Tensor:
    return torch.randn(2, 3, 64, 64)


def call_b0_eval_forward():
    return _model().eval(), (_images(),), {}


def call_b0_train_forward():
    return _model().train(), (_images(),), {}


def call_b0_extract_endpoints():
    return _model().eval().extract_endpoints, (_images(),), {}


def call_b0_exportable_features():
    model = _model().eval()
    model.set_swish(memory_efficient=False)  # the library's documented switch before export/tracing
    return model.extract_features, (_images(),), {}
