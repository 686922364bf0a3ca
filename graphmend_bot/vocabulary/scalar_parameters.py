"""The parameters of torch functions typed as Python numbers, whose tensor argument Dynamo reads
back to Python (GM305 reports such tensors; the analysis takes a None-defaulted parameter passed
there as an optional number). Measured on torch 2.13: see rules/gm305_tensor_as_scalar_argument.py.
"""

from __future__ import annotations

# (positional index, or None when keyword-only; parameter name) per function after `torch.`.
_F = "nn.functional."
SCALAR_PARAMETERS: dict[str, tuple[tuple[int | None, str], ...]] = {
    "add": ((None, "alpha"),), "sub": ((None, "alpha"),), "rsub": ((None, "alpha"),),
    "addcmul": ((None, "value"),),
    "addmm": ((None, "beta"), (None, "alpha")), "baddbmm": ((None, "alpha"),),
    "norm": ((1, "p"),), "nan_to_num": ((1, "nan"),), "logit": ((1, "eps"),), "renorm": ((3, "maxnorm"),),
    _F + "leaky_relu": ((1, "negative_slope"),), _F + "elu": ((1, "alpha"),), _F + "celu": ((1, "alpha"),),
    _F + "softplus": ((1, "beta"), (2, "threshold")), _F + "threshold": ((1, "threshold"),),
    _F + "hardtanh": ((1, "min_val"),), _F + "hardshrink": ((1, "lambd"),), _F + "softshrink": ((1, "lambd"),),
    _F + "rrelu": ((1, "lower"),), _F + "dropout": ((1, "p"),), _F + "normalize": ((1, "p"),),
    _F + "layer_norm": ((4, "eps"),), _F + "group_norm": ((4, "eps"),), _F + "batch_norm": ((6, "momentum"),),
    _F + "cosine_similarity": ((3, "eps"),), _F + "pairwise_distance": ((2, "p"),),
    _F + "smooth_l1_loss": ((5, "beta"),), _F + "huber_loss": ((3, "delta"),),
    _F + "scaled_dot_product_attention": ((None, "scale"),),
    # A histogram's range (`torch.histc(x, bins, min=x.min(), max=x.max())`, as calibration observers
    # write it), a Bernoulli probability, a distance's `p`, a fill value of `F.pad`, rounding digits.
    "histc": ((1, "bins"), (2, "min"), (3, "max")), "bernoulli": ((1, "p"),), "cdist": ((2, "p"),),
    "round": ((None, "decimals"),), "diff": ((1, "n"),),
    # Python ints: sizes, counts, offsets (measured with `n = (x > 0).sum()` and `n = x.argmax()`).
    _F + "pad": ((1, "pad"), (3, "value")), _F + "interpolate": ((1, "size"),), _F + "one_hot": ((1, "num_classes"),),
    "chunk": ((1, "chunks"),), "split": ((1, "split_size_or_sections"),), "roll": ((1, "shifts"),),
    "diag": ((1, "diagonal"),), "tril": ((1, "diagonal"),), "triu": ((1, "diagonal"),),
    "narrow": ((2, "start"), (3, "length")), "topk": ((1, "k"),),
    # Split points given as a tensor are read back as ints whatever made them (a `torch.tensor([1, 2])`
    # constant too, measured): `aten.tensor_split.tensor_indices_or_sections` (benchmarks/data_dependent_ops.py
    # lists it among the operators that read values for some arguments only).
    "tensor_split": ((1, "tensor_indices_or_sections"),),
}
