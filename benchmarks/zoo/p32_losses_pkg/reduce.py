import torch


def masked_mean(values: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    count = mask.sum().item()
    return (values * mask).sum() / max(count, 1)


def weighted(values, weights=None):
    if weights is None:
        return values.mean()
    return (values * weights).sum() / weights.sum()
