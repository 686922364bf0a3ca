"""torch-pruning (Torch-Pruning): structural (channel) pruning through dependency graphs.

The pruned model is a plain torch model; what the library itself runs in a user's hot loop is the
sparse training that precedes pruning, where every step, after `loss.backward()`, the pruner's
`regularize(model)` adds the group-sparsity (or BN-scale L1) gradient, and the importance criteria
(`Importance.__call__` on a dependency group: magnitude, Taylor, ...) that score every group at each
iterative pruning step. Users compile those. The dependency graph is traced once, at build time.
"""

from __future__ import annotations

import torch
import torch_pruning as tp

DISTRIBUTION = "torch-pruning"
PACKAGE = "torch_pruning"
WHY = "efficiency: structural pruning via dependency graphs, group importance criteria, sparse training regularizers"


def _cnn() -> torch.nn.Sequential:
    return torch.nn.Sequential(
        torch.nn.Conv2d(3, 8, 3, padding=1),
        torch.nn.BatchNorm2d(8),
        torch.nn.ReLU(),
        torch.nn.Conv2d(8, 16, 3, padding=1),
        torch.nn.BatchNorm2d(16),
        torch.nn.ReLU(),
        torch.nn.AdaptiveAvgPool2d(1),
        torch.nn.Flatten(),
        torch.nn.Linear(16, 10),
    )


def _trained_step(model: torch.nn.Module) -> torch.Tensor:
    # One backward pass so that every weight has a .grad, as after `loss.backward()` in training.
    x = torch.randn(4, 3, 8, 8)
    loss = torch.nn.functional.cross_entropy(model(x), torch.randint(0, 10, (4,)))
    loss.backward()
    return x


def _pruner(cls, importance, **kwargs):
    torch.manual_seed(0)
    model = _cnn()
    example = torch.randn(1, 3, 8, 8)
    pruner = cls(model, example, importance=importance, pruning_ratio=0.5, ignored_layers=[model[-1]], **kwargs)
    pruner.update_regularizer()
    _trained_step(model)
    return model, pruner


def call_group_norm_regularize():
    # Group-norm sparse training (the DepGraph paper's "GroupNormPruner"): regularize after backward.
    model, pruner = _pruner(tp.pruner.GroupNormPruner, tp.importance.GroupMagnitudeImportance(p=2), reg=1e-4)
    return pruner.regularize, (model,), {}


def call_bn_scale_regularize():
    # Network slimming: L1 on the BatchNorm scales, added to their gradients after backward.
    model, pruner = _pruner(tp.pruner.BNScalePruner, tp.importance.BNScaleImportance(), reg=1e-5)
    return pruner.regularize, (model,), {}


def call_group_magnitude_importance():
    # What every pruning step computes first: an importance score per channel of each group.
    model, pruner = _pruner(tp.pruner.MetaPruner, tp.importance.GroupMagnitudeImportance(p=2))
    groups = list(pruner.DG.get_all_groups(root_module_types=pruner.root_module_types, ignored_layers=pruner.ignored_layers))
    imp = tp.importance.GroupMagnitudeImportance(p=2, group_reduction="mean", normalizer="mean")

    def score(weight):  # the argument only gives the call a tensor input
        return [imp(g) for g in groups]

    return score, (model[0].weight,), {}


def call_group_taylor_importance():
    # First-order Taylor importance (weight * grad) of one group, after a backward pass.
    model, pruner = _pruner(tp.pruner.MetaPruner, tp.importance.GroupTaylorImportance())
    group = pruner.DG.get_pruning_group(model[0], tp.prune_conv_out_channels, idxs=list(range(8)))
    imp = tp.importance.GroupTaylorImportance()
    return imp, (group,), {}
