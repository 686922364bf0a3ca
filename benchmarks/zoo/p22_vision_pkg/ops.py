import torch
import torch.nn.functional as F

from .utils import pad_amount


def pad_to_multiple(x: torch.Tensor, multiple: int) -> torch.Tensor:
    pad_h = pad_amount(x.shape[-2], multiple)
    pad_w = pad_amount(x.shape[-1], multiple)
    if pad_h or pad_w:
        x = F.pad(x, (0, pad_w, 0, pad_h))
    return x


def safe_normalize(features, eps=1e-6):
    norm = features.norm(dim=-1, keepdim=True)
    if (norm < eps).any():
        norm = norm.clamp_min(eps)
    return features / norm


def confidence(logits):
    probs = logits.softmax(-1)
    return probs.max().item()
