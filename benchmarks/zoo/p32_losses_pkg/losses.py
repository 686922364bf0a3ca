import torch
import torch.nn.functional as F

from .reduce import masked_mean, weighted


def focal_loss(logits, targets, gamma=2.0, ignore_index=-100):
    valid = targets != ignore_index
    ce = F.cross_entropy(logits, targets.clamp(min=0), reduction="none")
    pt = torch.exp(-ce)
    loss = (1 - pt) ** gamma * ce
    if gamma > 1.0:
        loss = loss * 1.0
    return masked_mean(loss, valid.float()) + weighted(loss) * 0
