"""What the analysis knows about PyTorch and Python names, in one place.

Every set here was checked against TorchDynamo on torch 2.13 (see tests/test_dynamo_ground_truth.py).
"""

from __future__ import annotations

# Attributes of a tensor that are static under torch.compile (guarded, not traced as data).
STATIC_ATTRS = frozenset({
    "shape", "dtype", "device", "ndim", "is_cuda", "is_sparse", "is_quantized", "is_meta",
    "layout", "requires_grad", "is_leaf", "training", "names", "itemsize", "nbytes", "config",
    "is_nested", "is_mps", "is_cpu",
})
# Attributes that are tensors when their owner is.
TENSOR_ATTRS = frozenset({"T", "mT", "H", "mH", "real", "imag", "data", "grad"})

# Methods returning Python values that are static under compile (shapes, metadata).
STATIC_METHODS = frozenset({
    "size", "dim", "ndimension", "numel", "nelement", "stride", "storage_offset", "data_ptr",
    "element_size", "is_contiguous", "is_floating_point", "is_complex", "is_signed",
    "get_device", "__len__", "keys", "values", "items", "get", "format", "startswith",
    "endswith", "join", "split", "append", "extend", "pop", "register_buffer", "parameters",
    "named_parameters", "modules", "children", "lower", "upper", "strip", "replace",
})

# Methods that only tensors (or arrays) have, so the receiver is a tensor and so is the result.
TENSOR_METHODS = frozenset({
    "any", "all", "sum", "mean", "prod", "amax", "amin", "argmax", "argmin", "max", "min",
    "norm", "std", "var", "abs", "isnan", "isinf", "isfinite", "isneginf", "isposinf",
    "masked_fill", "float", "half", "bfloat16", "double", "long", "bool", "eq", "ne", "gt",
    "lt", "ge", "le", "logical_and", "logical_or", "logical_not", "logical_xor", "cumsum",
    "cumprod", "softmax", "log_softmax", "matmul", "view", "reshape", "unsqueeze", "squeeze",
    "transpose", "permute", "contiguous", "clamp", "clamp_min", "clamp_max", "exp", "sqrt",
    "rsqrt", "pow", "expand", "expand_as", "flatten", "detach", "clone", "type_as",
    "new_zeros", "new_ones", "new_full", "new_empty", "new_tensor", "sigmoid", "tanh", "relu",
    "round", "floor", "ceil", "sign", "count_nonzero", "isclose", "topk", "gather", "scatter",
    "index_select", "masked_scatter", "add", "sub", "mul", "div", "neg", "reciprocal",
    "square", "diff", "flip", "roll", "tril", "triu", "to", "cpu", "cuda", "int", "byte",
    "short", "char", "repeat", "tile", "narrow", "chunk", "unbind", "nan_to_num", "lerp",
})

# Calls whose Python result is a bool computed from tensor data (GB0033).
DATA_DEPENDENT_BOOL_OPS = frozenset({"equal", "allclose", "is_nonzero"})

# torch.* functions returning non-tensors.
TORCH_NON_TENSOR_FUNCS = frozenset({
    "is_tensor", "is_floating_point", "is_complex", "is_storage", "numel", "is_grad_enabled",
    "is_inference_mode_enabled", "is_autocast_enabled", "is_autocast_cpu_enabled",
    "get_autocast_gpu_dtype", "get_autocast_dtype", "get_default_dtype", "get_default_device",
    "finfo", "iinfo", "device", "dtype", "Size", "get_num_threads", "typename", "no_grad",
    "enable_grad", "inference_mode", "set_grad_enabled", "autocast", "manual_seed",
    "set_default_dtype", "Generator", "compile", "are_deterministic_algorithms_enabled",
    "use_deterministic_algorithms", "promote_types", "result_type", "can_cast",
    "broadcast_shapes", "_assert", "_assert_async", "save", "load", "set_printoptions",
    "is_same_size", "get_rng_state", "cond", "vmap",
})
# torch submodules whose functions do not return tensors (nn builds modules, cuda queries state).
TORCH_NON_TENSOR_SUBMODULES = frozenset({
    "nn", "cuda", "backends", "distributed", "jit", "compiler", "_dynamo", "fx", "_C",
    "overrides", "library", "hub", "onnx", "testing", "profiler", "amp", "optim", "cpu", "mps",
    "xpu", "version", "types", "utils", "_utils", "export", "_inductor", "_higher_order_ops",
    "_logging", "multiprocessing", "serialization", "random",
})
TORCH_TENSOR_SUBMODULES = ("nn.functional", "fft", "linalg", "special", "autograd.grad")

# Data-dependent output shapes (GB0036): torch.X(...) and x.X(...).
DYNAMIC_SHAPE_OPS = frozenset({
    "nonzero", "unique", "unique_consecutive", "masked_select", "argwhere", "nonzero_static_",
})
# Boolean-tensor producers, used to recognise mask indexing.
BOOL_PRODUCERS = frozenset({
    "isnan", "isinf", "isfinite", "isneginf", "isposinf", "logical_and", "logical_or",
    "logical_not", "logical_xor", "eq", "ne", "gt", "lt", "ge", "le", "bool", "isclose",
    "isin", "signbit",
})

# Calls that are True while TorchDynamo traces (the eager-only guards maintainers write).
COMPILE_GUARDS = frozenset({
    "is_compiling", "is_torchdynamo_compiling", "is_dynamo_compiling", "is_exporting",
})

LOG_METHODS = frozenset({
    "debug", "info", "warning", "warn", "error", "exception", "critical", "fatal", "log",
    "warning_once", "info_once", "warning_advice", "debug_once",
})
LOGGER_NAMES = frozenset({"logger", "_logger", "LOGGER", "log", "_log", "LOG"})
LOGGER_FACTORIES = ("getLogger", "get_logger")

# Builtins that return static Python values whatever their arguments.
STATIC_BUILTINS = frozenset({
    "len", "isinstance", "issubclass", "hasattr", "callable", "type", "id", "str", "repr",
    "range", "getattr", "setattr", "tuple", "list", "dict", "set", "frozenset", "sorted",
    "hash", "format", "super", "zip", "enumerate", "print", "open",
})
SCALAR_CASTS = frozenset({"int", "float", "bool", "complex"})
