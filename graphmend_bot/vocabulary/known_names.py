"""What the analysis knows about PyTorch and Python names, in one place.

Every set here was checked against TorchDynamo on torch 2.13 (see tests/test_dynamo_ground_truth.py).
"""

from __future__ import annotations

import builtins
from dataclasses import dataclass

# Attributes of a tensor that are static under torch.compile (guarded, not traced as data).
STATIC_ATTRS = frozenset({
    "shape", "dtype", "device", "ndim", "is_cuda", "is_sparse", "is_quantized", "is_meta",
    "layout", "requires_grad", "is_leaf", "training", "names", "itemsize", "nbytes", "config",
    "is_nested", "is_mps", "is_cpu",
})
# Methods that put values into a list or deque in place (`extend`'s argument is the iterable; a
# set's `add` is also a tensor method, judged as one).
GROWING_METHODS = frozenset({"append", "appendleft", "extend", "extendleft", "insert"})
# nn.Parameter(t) / nn.Buffer(t) are tensors (the rest of torch.nn builds modules).
PARAMETER_CLASSES = frozenset({"nn.Parameter", "nn.parameter.Parameter", "nn.Buffer", "nn.parameter.Buffer"})
# Attributes that are tensors when their owner is.
TENSOR_ATTRS = frozenset({"T", "mT", "H", "mH", "real", "imag", "data", "grad"})
# Fields of the named tuples torch returns (`x.topk(k).indices`, `torch.max(x, 1).values`): tensors
# when the call, or the local bound to it, is one.
RESULT_FIELDS = frozenset({"values", "indices"})

# Methods returning Python values that are static under compile (shapes, metadata).
STATIC_METHODS = frozenset({
    "size", "dim", "ndimension", "numel", "nelement", "stride", "data_ptr", "const_data_ptr",
    "element_size", "is_contiguous", "is_floating_point", "is_complex",
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
    "as_subclass",  # torch.Tensor only: `self.as_subclass(Tensor)` in a subclass unwraps one (GM641)
})

# Every public attribute of torch.Tensor (dir(torch.Tensor) on torch 2.13.0, 604 names). A method
# call whose name is not here cannot be a tensor method: its receiver is some other object (a
# cache, a config, a list), so its result is not a tensor either.
TENSOR_API = frozenset({
    'H', 'T', 'abs', 'abs_', 'absolute', 'absolute_', 'acos', 'acos_', 'acosh', 'acosh_', 'add',
    'add_', 'addbmm', 'addbmm_', 'addcdiv', 'addcdiv_', 'addcmul', 'addcmul_', 'addmm', 'addmm_',
    'addmv', 'addmv_', 'addr', 'addr_', 'adjoint', 'all', 'allclose', 'amax', 'amin', 'aminmax',
    'angle', 'any', 'apply_', 'arccos', 'arccos_', 'arccosh', 'arccosh_', 'arcsin', 'arcsin_',
    'arcsinh', 'arcsinh_', 'arctan', 'arctan2', 'arctan2_', 'arctan_', 'arctanh', 'arctanh_',
    'argmax', 'argmin', 'argsort', 'argwhere', 'as_strided', 'as_strided_', 'as_strided_scatter',
    'as_subclass', 'asin', 'asin_', 'asinh', 'asinh_', 'atan', 'atan2', 'atan2_', 'atan_', 'atanh',
    'atanh_', 'backward', 'baddbmm', 'baddbmm_', 'bernoulli', 'bernoulli_', 'bfloat16', 'bincount',
    'bitwise_and', 'bitwise_and_', 'bitwise_left_shift', 'bitwise_left_shift_', 'bitwise_not',
    'bitwise_not_', 'bitwise_or', 'bitwise_or_', 'bitwise_right_shift', 'bitwise_right_shift_',
    'bitwise_xor', 'bitwise_xor_', 'bmm', 'bool', 'broadcast_to', 'byte', 'cauchy_', 'ccol_indices',
    'cdouble', 'ceil', 'ceil_', 'cfloat', 'chalf', 'char', 'cholesky', 'cholesky_inverse',
    'cholesky_solve', 'chunk', 'clamp', 'clamp_', 'clamp_max', 'clamp_max_', 'clamp_min',
    'clamp_min_', 'clip', 'clip_', 'clone', 'coalesce', 'col_indices', 'conj', 'conj_physical',
    'conj_physical_', 'const_data_ptr', 'contiguous', 'copy_', 'copysign', 'copysign_', 'corrcoef',
    'cos', 'cos_', 'cosh', 'cosh_', 'count_nonzero', 'cov', 'cpu', 'cross', 'crow_indices', 'cuda',
    'cummax', 'cummin', 'cumprod', 'cumprod_', 'cumsum', 'cumsum_', 'data', 'data_ptr', 'deg2rad',
    'deg2rad_', 'dense_dim', 'dequantize', 'det', 'detach', 'detach_', 'device', 'diag',
    'diag_embed', 'diagflat', 'diagonal', 'diagonal_scatter', 'diff', 'digamma', 'digamma_', 'dim',
    'dim_order', 'dist', 'div', 'div_', 'divide', 'divide_', 'dot', 'double', 'dsplit', 'dtype',
    'eig', 'element_size', 'eq', 'eq_', 'equal', 'erf', 'erf_', 'erfc', 'erfc_', 'erfinv',
    'erfinv_', 'exp', 'exp2', 'exp2_', 'exp_', 'expand', 'expand_as', 'expm1', 'expm1_',
    'exponential_', 'fill_', 'fill_diagonal_', 'fix', 'fix_', 'flatten', 'flip', 'fliplr', 'flipud',
    'float', 'float_power', 'float_power_', 'floor', 'floor_', 'floor_divide', 'floor_divide_',
    'fmax', 'fmin', 'fmod', 'fmod_', 'frac', 'frac_', 'frexp', 'gather', 'gcd', 'gcd_', 'ge', 'ge_',
    'geometric_', 'geqrf', 'ger', 'get_device', 'grad', 'grad_dtype', 'grad_fn', 'greater',
    'greater_', 'greater_equal', 'greater_equal_', 'gt', 'gt_', 'half', 'hardshrink', 'hash_tensor',
    'heaviside', 'heaviside_', 'histc', 'histogram', 'hsplit', 'hypot', 'hypot_', 'i0', 'i0_',
    'igamma', 'igamma_', 'igammac', 'igammac_', 'imag', 'index', 'index_add', 'index_add_',
    'index_copy', 'index_copy_', 'index_fill', 'index_fill_', 'index_put', 'index_put_',
    'index_reduce', 'index_reduce_', 'index_select', 'indices', 'inner', 'int', 'int_repr',
    'inverse', 'ipu', 'is_coalesced', 'is_complex', 'is_conj', 'is_contiguous', 'is_cpu', 'is_cuda',
    'is_distributed', 'is_floating_point', 'is_inference', 'is_ipu', 'is_leaf', 'is_maia',
    'is_meta', 'is_mkldnn', 'is_mps', 'is_mtia', 'is_neg', 'is_nested', 'is_nonzero', 'is_pinned',
    'is_quantized', 'is_same_size', 'is_set_to', 'is_shared', 'is_signed', 'is_sparse',
    'is_sparse_csr', 'is_vulkan', 'is_xla', 'is_xpu', 'isclose', 'isfinite', 'isinf', 'isnan',
    'isneginf', 'isposinf', 'isreal', 'istft', 'item', 'itemsize', 'kron', 'kthvalue', 'layout',
    'lcm', 'lcm_', 'ldexp', 'ldexp_', 'le', 'le_', 'lerp', 'lerp_', 'less', 'less_', 'less_equal',
    'less_equal_', 'lgamma', 'lgamma_', 'log', 'log10', 'log10_', 'log1p', 'log1p_', 'log2',
    'log2_', 'log_', 'log_normal_', 'log_softmax', 'logaddexp', 'logaddexp2', 'logcumsumexp',
    'logdet', 'logical_and', 'logical_and_', 'logical_not', 'logical_not_', 'logical_or',
    'logical_or_', 'logical_xor', 'logical_xor_', 'logit', 'logit_', 'logsumexp', 'long', 'lstsq',
    'lt', 'lt_', 'lu', 'lu_solve', 'mH', 'mT', 'map2_', 'map_', 'masked_fill', 'masked_fill_',
    'masked_scatter', 'masked_scatter_', 'masked_select', 'matmul', 'matrix_exp', 'matrix_power',
    'max', 'maximum', 'mean', 'median', 'min', 'minimum', 'mm', 'mode', 'module_load', 'moveaxis',
    'movedim', 'msort', 'mtia', 'mul', 'mul_', 'multinomial', 'multiply', 'multiply_', 'mv',
    'mvlgamma', 'mvlgamma_', 'name', 'nan_to_num', 'nan_to_num_', 'nanmean', 'nanmedian',
    'nanquantile', 'nansum', 'narrow', 'narrow_copy', 'nbytes', 'ndim', 'ndimension', 'ne', 'ne_',
    'neg', 'neg_', 'negative', 'negative_', 'nelement', 'new', 'new_empty', 'new_empty_strided',
    'new_full', 'new_ones', 'new_tensor', 'new_zeros', 'nextafter', 'nextafter_', 'nonzero',
    'nonzero_static', 'norm', 'normal_', 'not_equal', 'not_equal_', 'numel', 'numpy', 'orgqr',
    'ormqr', 'outer', 'output_nr', 'permute', 'pin_memory', 'pinverse', 'polygamma', 'polygamma_',
    'positive', 'pow', 'pow_', 'prelu', 'prod', 'put', 'put_', 'q_per_channel_axis',
    'q_per_channel_scales', 'q_per_channel_zero_points', 'q_scale', 'q_zero_point', 'qr', 'qscheme',
    'quantile', 'rad2deg', 'rad2deg_', 'random_', 'ravel', 'real', 'reciprocal', 'reciprocal_',
    'record_stream', 'register_hook', 'register_post_accumulate_grad_hook', 'reinforce', 'relu',
    'relu_', 'remainder', 'remainder_', 'renorm', 'renorm_', 'repeat', 'repeat_interleave',
    'requires_grad', 'requires_grad_', 'reshape', 'reshape_as', 'resize', 'resize_', 'resize_as',
    'resize_as_', 'resize_as_sparse_', 'resolve_conj', 'resolve_neg', 'retain_grad', 'retains_grad',
    'roll', 'rot90', 'round', 'round_', 'row_indices', 'rsqrt', 'rsqrt_', 'scatter', 'scatter_',
    'scatter_add', 'scatter_add_', 'scatter_reduce', 'scatter_reduce_', 'select', 'select_scatter',
    'set_', 'sgn', 'sgn_', 'shape', 'share_memory_', 'short', 'sigmoid', 'sigmoid_', 'sign',
    'sign_', 'signbit', 'sin', 'sin_', 'sinc', 'sinc_', 'sinh', 'sinh_', 'size', 'slice_inverse',
    'slice_scatter', 'slogdet', 'smm', 'softmax', 'solve', 'sort', 'sparse_dim', 'sparse_mask',
    'sparse_resize_', 'sparse_resize_and_clear_', 'split', 'split_with_sizes', 'sqrt', 'sqrt_',
    'square', 'square_', 'squeeze', 'squeeze_', 'sspaddmm', 'std', 'stft', 'storage',
    'storage_offset', 'storage_type', 'stride', 'sub', 'sub_', 'subtract', 'subtract_', 'sum',
    'sum_to_size', 'svd', 'swapaxes', 'swapaxes_', 'swapdims', 'swapdims_', 'symeig', 't', 't_',
    'take', 'take_along_dim', 'tan', 'tan_', 'tanh', 'tanh_', 'tensor_split', 'tile', 'to',
    'to_dense', 'to_mkldnn', 'to_padded_tensor', 'to_sparse', 'to_sparse_bsc', 'to_sparse_bsr',
    'to_sparse_coo', 'to_sparse_csc', 'to_sparse_csr', 'tolist', 'topk', 'trace', 'transpose',
    'transpose_', 'triangular_solve', 'tril', 'tril_', 'triu', 'triu_', 'true_divide',
    'true_divide_', 'trunc', 'trunc_', 'type', 'type_as', 'unbind', 'unflatten', 'unfold',
    'uniform_', 'unique', 'unique_consecutive', 'unsafe_chunk', 'unsafe_split',
    'unsafe_split_with_sizes', 'unsqueeze', 'unsqueeze_', 'untyped_storage', 'values', 'var',
    'vdot', 'view', 'view_as', 'volatile', 'vsplit', 'where', 'xlogy', 'xlogy_', 'xpu', 'zero_'
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

# The legacy typed constructors build a tensor like `torch.empty`/`torch.tensor` (`torch.FloatTensor(1)`,
# torchio's `sample_uniform`): a capitalised name, but not a class whose instances are objects
# (measured: `.item()` on one breaks, GB0124, tests/fixtures/rules/GM301_tensor_item.py).
LEGACY_TENSOR_TYPES = frozenset({
    "Tensor", "FloatTensor", "DoubleTensor", "HalfTensor", "BFloat16Tensor", "LongTensor", "IntTensor",
    "ShortTensor", "CharTensor", "ByteTensor",
})  # fmt: skip

# Boolean-tensor producers, used to recognise mask indexing.
BOOL_PRODUCERS = frozenset({
    "isnan", "isinf", "isfinite", "isneginf", "isposinf", "logical_and", "logical_or",
    "logical_not", "logical_xor", "eq", "ne", "gt", "lt", "ge", "le", "bool", "isclose",
    "isin", "signbit", "all", "any",
})

# torch factories whose positional arguments (linspace/logspace: `steps`; full: the size) must be
# Python ints: a 0-d tensor there is read back with .item() (measured: GB0124 on 2.13, randint
# and randperm included). Shared by detection (GM302) and the sizes rewrite.
SIZE_FACTORIES = frozenset({
    "arange", "linspace", "logspace", "zeros", "ones", "empty", "rand", "randn", "randint",
    "randperm", "eye", "full",
})
# torch.fft's sample frequencies: `n` and the spacing `d` are Python numbers (a tensor in either is
# read back: measured on torch 2.13, GB0033, tests/test_fft_frequencies.py).
FFT_FREQUENCIES = frozenset({"fft.fftfreq", "fft.rfftfreq"})
# Tensor methods whose arguments are sizes.
SIZE_METHODS = frozenset({
    "view", "reshape", "expand", "repeat", "tile", "new_zeros", "new_ones", "new_empty", "unflatten",
    "narrow",
})
# Tensor methods whose arguments (sizes, dims, counts) must be Python ints: a 0-d tensor computed
# from tensor values there is read back (measured on torch 2.13 with `n = (x > 0).sum() // 3`:
# GB0033, each of these; GM302).
INT_ARGUMENT_METHODS = SIZE_METHODS | {
    "chunk", "roll", "topk", "unfold", "transpose", "unsqueeze", "flatten", "softmax",
    # and the dims, indices and sizes of these (`x.sum(d)`, `x.select(0, i)`, `x.new_full(size, t)`'s
    # fill value too; measured on torch 2.13 with `n = (x > 0).sum()`, tests/test_int_arguments.py)
    "select", "split", "flip", "cumsum", "cumprod", "sum", "mean", "prod", "std", "var", "amax", "amin",
    "argmax", "argmin", "logsumexp", "log_softmax", "movedim", "squeeze", "diagonal", "unbind", "kthvalue",
    "sort", "argsort", "tril", "triu", "new_full",
    # the dims of `swapaxes`/`swapdims` (tests/test_zero_d_spellings.py); not `permute`, which breaks
    # the same but is on nearly every attention layer's path: asking of each call costs more than it finds
    "swapaxes", "swapdims",
}
# torch functions whose arguments past the input (dims, counts, sizes) must be Python ints: the same
# read-back (measured on torch 2.13, each; not `torch.max`/`min`, whose second tensor is `other`).
INT_ARGUMENT_FUNCTIONS = frozenset({
    "sum", "mean", "prod", "std", "var", "amax", "amin", "argmax", "argmin", "logsumexp", "cumsum", "cumprod",
    "cummax", "cummin", "flip", "select", "movedim", "squeeze", "unsqueeze", "unbind", "argsort", "sort",
    "transpose", "flatten", "softmax", "log_softmax", "nn.functional.softmax", "nn.functional.log_softmax",
    "kthvalue", "diagonal", "reshape", "cat", "concat", "concatenate", "stack", "multinomial",
    "full_like",  # its fill value (`torch.full` decomposes a tensor one: Dynamo's handle_full)
    "tile", "swapaxes", "swapdims",  # tests/test_zero_d_spellings.py
})
# torch functions that build a tensor from Python values (sizes, fill values, data): what they make is
# no result computed from a tensor argument (kind.computed_from), `torch.tensor([factor])` included.
BUILT_FROM_VALUES = SIZE_FACTORIES | {"tensor", "as_tensor", "asarray", "scalar_tensor"}
# Size factories whose start/end/step are Scalars: a float there is a value, not an error.
VALUE_FACTORIES = frozenset({"linspace", "logspace", "arange"})


@dataclass(frozen=True)
class SkippedCall:
    """A callee TorchDynamo breaks on: the graph-break id it reported, on which torch version."""

    gb_id: str
    torch: str = "2.13.0"
    # Breaks only when an argument is a tensor (`copy.deepcopy` of plain Python data traces).
    tensor_argument: bool = False
    # Traces on a tuple (`copy.copy` of a list, dict, tensor or `**kwargs` breaks; of a tuple it
    # traces): not reported where the argument is a tuple by its syntax.
    tuple_traces: bool = False


_SKIPPED = SkippedCall("GB0007")  # "Attempted to call function marked as skipped"
_NUMPY_UNSUPPORTED = SkippedCall("GB0294")  # "attempted to trace numpy function unsupported by PyTorch"

# Calls Dynamo cannot trace, by resolved dotted name, each measured on the torch version it names
# (tests/test_skipped_calls.py re-measures every entry). Measured as fine on 2.13, so absent:
# `random.randint`/`uniform`, `numpy.random.seed`, the draws `numpy.random.rand`/`randn`/`normal`/
# `uniform`/`random`/`randint` of an array (traced through torch._numpy; of one number they break:
# numpy_draws.py), `copy.deepcopy` of Python data.
UNTRACEABLE_CALLS: dict[str, SkippedCall] = {
    # time.time() is fine alone, but breaks with a tensor op before it (DESIGN.md's table differs).
    **dict.fromkeys((
        "time.time", "time.perf_counter", "time.monotonic", "time.process_time", "time.time_ns",
        "time.perf_counter_ns", "time.monotonic_ns", "time.sleep",
    ), _SKIPPED),
    **dict.fromkeys((
        "bisect.bisect", "bisect.bisect_left", "bisect.bisect_right", "bisect.insort",
        "bisect.insort_left", "bisect.insort_right",
    ), _SKIPPED),
    "pickle.dumps": _SKIPPED,
    "pickle.loads": _SKIPPED,
    "pickle.dump": SkippedCall("GB0156"),  # "Unsupported method call" on the file object
    "pickle.load": SkippedCall("GB0156"),
    "copy.copy": SkippedCall("GB0007", tuple_traces=True),
    "copy.deepcopy": SkippedCall("GB4198", tensor_argument=True),  # "Attempted to copy.deepcopy a tensor"
    "random.random": _SKIPPED,
    "random.shuffle": _SKIPPED,
    "random.choice": _SKIPPED,
    "random.seed": _SKIPPED,
    "numpy.random.SeedSequence": SkippedCall("GB0156"),  # generate_state is an unsupported method
    # A method of the object built by an entry above, judged through the local holding it.
    "numpy.random.SeedSequence.generate_state": SkippedCall("GB0008"),  # "inline function marked as skipped"
    "numpy.random.default_rng": _NUMPY_UNSUPPORTED,
    "numpy.random.permutation": _NUMPY_UNSUPPORTED,
    # `randint` and the other draws break only when they draw one number (numpy_draws.py)
    "numpy.random.choice": SkippedCall("GB0033"),  # "Data dependent operator", with a size too
    **dict.fromkeys((
        "numpy.load", "numpy.save", "numpy.savez", "numpy.loadtxt", "numpy.savetxt",
    ), _NUMPY_UNSUPPORTED),
    "torch.Generator": SkippedCall("GB0363"),  # "An opaque object was created in the middle of the program"
    # Its stateful methods, on one built in the function (`g = torch.Generator()`) or chained on
    # the construction (`torch.Generator().manual_seed(s)`, which then breaks only here).
    **dict.fromkeys((
        "torch.Generator.manual_seed", "torch.Generator.seed", "torch.Generator.initial_seed",
        "torch.Generator.get_state", "torch.Generator.set_state", "torch.Generator.clone_state",
        # and on torch's default generator, by its module path (`seed()` too, left out: re-measuring it
        # would reseed the test process's global RNG at random)
        "torch.default_generator.manual_seed", "torch.default_generator.initial_seed",
        "torch.default_generator.get_state", "torch.default_generator.set_state",
    ), SkippedCall("GB7650")),  # "torch.Generator method"
    "os.getpid": _SKIPPED,
    # Frame introspection: Dynamo cannot hand a frame of its own tracing to Python code.
    "sys._getframe": _SKIPPED,
    "inspect.currentframe": _SKIPPED,
    "inspect.stack": _SKIPPED,
    "uuid.uuid4": _SKIPPED,
    # A namespace object built in traced code: "Unsupported function call" (Dynamo has no model of
    # the type's constructor); one built in `__init__` and read in forward traces.
    "types.SimpleNamespace": SkippedCall("GB0147"),
    # torch functions returning a Python value Dynamo neither folds to a constant nor puts in the
    # graph: "torch.* op returned non-Tensor" (torchkbnufft's `torch.get_num_threads()`), measured on
    # the CPU build; `torch.get_default_dtype`, `is_grad_enabled`, `are_deterministic_algorithms_enabled`,
    # `cuda.is_available`, `numel`, `is_tensor`, `is_floating_point` and `promote_types` trace.
    **dict.fromkeys((
        "torch.get_num_threads", "torch.get_num_interop_threads", "torch.initial_seed",
        "torch.get_float32_matmul_precision", "torch.get_deterministic_debug_mode",
        "torch.is_deterministic_algorithms_warn_only_enabled", "torch.is_anomaly_enabled",
        "torch.is_warn_always_enabled", "torch.get_default_device", "torch.result_type", "torch.can_cast",
        "torch.is_conj", "torch.is_same_size", "torch.is_signed", "torch.is_inference", "torch.get_device",
        "torch.cuda.device_count", "torch.cuda.is_bf16_supported", "torch.backends.cudnn.is_available",
        "torch.backends.mps.is_available", "torch.cpu.is_available",
    ), SkippedCall("GB0208")),
    # torch functions Dynamo skips (global state, files)
    **dict.fromkeys((
        "torch.set_num_threads", "torch.manual_seed", "torch.get_rng_state", "torch.typename",
        "torch.utils.data.get_worker_info", "torch.hub.get_dir", "torch.backends.mkldnn.is_available",
    ), _SKIPPED),
    # the deprecated wrapper, a no-op since torch 0.4 (older libraries' `Variable(torch.zeros(n))`)
    "torch.autograd.Variable": _SKIPPED,
    # torch functions trace_rules' manual map marks SkipFunctionVariable, whatever their arguments:
    # packing variable-length batches for an RNN (`pad_sequence` traces), TorchScript's refined
    # isinstance (`torch.jit.is_scripting` traces), and reseeding or restoring the global RNGs.
    **dict.fromkeys((
        "torch.nn.utils.rnn.pack_padded_sequence", "torch.nn.utils.rnn.pad_packed_sequence",
        "torch.jit.isinstance", "torch.jit.fork", "torch.jit.wait",
        "torch.random.manual_seed", "torch.random.get_rng_state", "torch.random.set_rng_state", "torch.set_rng_state",
        "torch.cuda.manual_seed", "torch.cuda.manual_seed_all",
    ), _SKIPPED),
}

# Builtins Dynamo does not trace whatever their arguments: "Failed to trace builtin operator"
# (GB0059), measured on torch 2.13 (tests/test_skipped_calls.py). `eval`, `vars` and `id` trace.
UNTRACEABLE_BUILTINS = frozenset({"globals", "dir", "exec", "compile", "memoryview", "bytes", "bytearray"})

# Tensor methods returning a Python value that Dynamo cannot put in the graph: "torch.* op
# returned non-Tensor" (GB0208), measured on torch 2.13.0 on a tensor the graph computed
# (tests/test_skipped_calls.py sweeps every `is_*` method). Their result is a Python value. `size`,
# `stride`, `element_size`, `is_contiguous`, `is_floating_point`, `is_complex` and `get_device`
# trace (STATIC_METHODS); `is_inference` breaks with its own id (GM621); `data_ptr` fails
# differently (an exception on the fake tensor) and is left out until measured in a library.
UNTRACEABLE_TENSOR_METHODS: dict[str, SkippedCall] = dict.fromkeys(
    ("is_signed", "storage_offset", "is_pinned", "is_neg", "is_conj", "is_shared", "is_distributed"),
    SkippedCall("GB0208"),
)

# Names of compile-state predicates (torch's and the helpers wrapping them): they return a Python
# bool, never a tensor. What each is worth under torch.compile: analysis/guards.py.
COMPILE_GUARDS = frozenset({
    "is_compiling", "is_torchdynamo_compiling", "is_dynamo_compiling", "is_exporting",
})

LOG_METHODS = frozenset({
    "debug", "info", "warning", "warn", "error", "exception", "critical", "fatal", "log",
    "warning_once", "info_once", "warning_advice", "debug_once",
})
# The other methods of logging.Logger: Dynamo refuses every method of a Logger (GB0291, GM694), not
# only those that emit a record (`filter` and `handle` left out: named like other objects' methods).
LOGGER_QUERIES = frozenset({
    "isEnabledFor", "getEffectiveLevel", "hasHandlers", "getChild", "setLevel", "addHandler", "removeHandler",
    "addFilter", "removeFilter", "makeRecord", "findCaller", "callHandlers",
})
LOGGER_METHODS = LOG_METHODS | LOGGER_QUERIES  # one lookup per method call of traced code
LOGGER_NAMES = frozenset({"logger", "_logger", "LOGGER", "log", "_log", "LOG"})
LOGGER_FACTORIES = ("getLogger", "get_logger")

# Builtins that return static Python values whatever their arguments.
# Calls whose value is one of their arguments' (its position): progress bars that yield the items of
# the iterable they wrap (`tqdm(timesteps)` iterates tensors), `typing.cast(T, v)`, which is `v`, and
# einops' operations, which return an array of the type they are given (einops/einops.py: the
# backend of the first tensor computes the result): a tensor in, a tensor out.
PASSED_THROUGH = {
    "tqdm.tqdm": 0, "tqdm.auto.tqdm": 0, "tqdm.std.tqdm": 0, "tqdm.notebook.tqdm": 0, "typing.cast": 1,
    **{f"{module}.{name}": 0 for module in ("einops", "einops.einops")
       for name in ("rearrange", "repeat", "reduce", "einsum")},
    # `pack(tensors, pattern)`: (a tensor, its shapes), elements told apart by unpacked_values.py;
    # `unpack(tensor, shapes, pattern)`: a list of tensors (einops/packing.py)
    **{f"{module}.{name}": 0 for module in ("einops", "einops.packing") for name in ("pack", "unpack")},
}

STATIC_BUILTINS = frozenset({
    "len", "isinstance", "issubclass", "hasattr", "callable", "type", "id", "str", "repr",
    "range", "getattr", "setattr", "tuple", "list", "dict", "set", "frozenset", "sorted",
    "hash", "format", "super", "zip", "enumerate", "print", "open",
})
SCALAR_CASTS = frozenset({"int", "float", "bool", "complex"})
# `math` functions, which convert a tensor argument to a Python number (measured on torch 2.13 with a
# 0-d tensor computed in the frame: GB0033, each). Not `math.prod` nor `math.radians`, which Dynamo
# runs as Python code over the tensor (they trace), nor `math.trunc` (a tensor has no `__trunc__`).
MATH_VALUE_FUNCTIONS = frozenset(f"math.{name}" for name in (
    "acos", "acosh", "asin", "asinh", "atan", "atan2", "atanh", "cbrt", "ceil", "comb", "copysign", "cos", "cosh",
    "degrees", "dist", "erf", "erfc", "exp", "exp2", "expm1", "fabs", "factorial", "floor", "fmod", "frexp", "fsum",
    "gamma", "gcd", "hypot", "isclose", "isfinite", "isinf", "isnan", "isqrt", "lcm", "ldexp", "lgamma", "log",
    "log10", "log1p", "log2", "modf", "nextafter", "perm", "pow", "remainder", "sin", "sinh", "sqrt", "tan",
    "tanh", "ulp",
))
# NumPy functions whose output shape depends on array values: Dynamo traces NumPy through
# torch._numpy (`trace_numpy`, the default) and breaks at each with "Dynamic shape operator" (GB0036),
# on an array made from a tensor, on a tensor and on a Python list alike (measured on torch 2.13,
# benchmarks/spellings/dd_numpy_dynamic_shapes.py). `numpy.where` of one argument and `numpy.repeat`
# by an array are GM501's own checks.
NUMPY_DYNAMIC_SHAPE_FUNCTIONS = frozenset(
    f"numpy.{name}" for name in ("nonzero", "argwhere", "flatnonzero", "unique", "bincount")
)

# `super().NAME` read, not called (a draft's method is SUPER_READ + NAME): when the class after it binds
# NAME with @property, Dynamo reads the property object and its first use raises, "Observed exception".
SUPER_READ = "@"
SUPER_PROPERTY_READ = "GB0088"
# `object`'s methods Dynamo cannot call through `super()` (GB0006, measured on torch 2.13,
# tests/coverage_probes/gb0006_super_object_method.py, gb0006_super_rich_comparison.py): slot wrappers
# and method descriptors it has no rule for (`__init__`, `__new__`, `__setattr__`, `__delattr__` and
# `__getattribute__` it models), the rich comparisons among them.
OBJECT_METHODS_NOT_VIA_SUPER = frozenset({
    "__eq__", "__ne__", "__lt__", "__le__", "__gt__", "__ge__", "__hash__", "__repr__", "__str__", "__format__",
    "__dir__",
})
# torch.Tensor's methods that, reached through `super()` in a tensor subclass, change what Dynamo
# refuses to change on a graph input: `super().requires_grad_(mode)` breaks with GB0125 when it flips
# the flag of a compiled call's argument (measured on torch 2.13: tests/test_super_requires_grad.py).
TENSOR_METHODS_REFUSED_VIA_SUPER = frozenset({"requires_grad_"})
# The ones of them torch.nn.Module defines itself, as Python functions Dynamo inlines.
NN_MODULE_OBJECT_METHODS = frozenset({"__repr__", "__dir__"})
# Python's builtin exception classes (`Exception`, `ValueError`, ...). Through `super()` from a
# subclass, Dynamo cannot call BaseException's `__init__` (a C slot: GB0006, measured on torch 2.13,
# tests/coverage_probes/gb0006_exception_super_init.py), nor `object`'s methods BaseException leaves
# to it; its own `__str__` and `__repr__` it models (they trace).
BUILTIN_EXCEPTIONS = frozenset(
    name for name, value in vars(builtins).items() if isinstance(value, type) and issubclass(value, BaseException)
)
EXCEPTION_METHODS_NOT_VIA_SUPER = frozenset({"__init__"}) | (OBJECT_METHODS_NOT_VIA_SUPER - {"__str__", "__repr__"})
SUPER_METHODS_NOT_CALLABLE = OBJECT_METHODS_NOT_VIA_SUPER | EXCEPTION_METHODS_NOT_VIA_SUPER
# `super().__init__()` outside `__init__` (a `reset()` method) reaching torch.nn.Module's: Dynamo runs
# nn.Module.__init__ only on a module it is building, never again on a built one (GB0162, measured on
# torch 2.13, tests/coverage_probes/gb0162_module_reinit_through_super.py). A key of the drafts
# super_calls.py judges, beside the method names above.
MODULE_REINIT = "nn.Module.__init__ again"
# The builtin exceptions whose constructors take keyword arguments (`AttributeError(msg, name=n)`):
# Dynamo models an exception built in traced code by its type and positional arguments, and breaks
# on keywords (GB0273, measured on torch 2.13, tests/coverage_probes/gb0273_exception_keyword_arguments.py).
# The others raise TypeError on any keyword, in eager too.
EXCEPTION_KEYWORDS: dict[str, frozenset[str]] = {
    "AttributeError": frozenset({"name", "obj"}),
    "NameError": frozenset({"name"}),
    "UnboundLocalError": frozenset({"name"}),
    "ImportError": frozenset({"name", "path"}),
    "ModuleNotFoundError": frozenset({"name", "path"}),
}

# Standard-library context managers whose `__enter__` returns the manager itself: `with
# contextlib.ExitStack() as stack:` binds the ExitStack, and Dynamo refuses `stack.enter_context(cm)`
# as on one built in the frame (GB0007, measured: benchmarks/spellings/cm_variants2.py).
ENTER_RETURNS_SELF = frozenset({"contextlib.ExitStack", "contextlib.AsyncExitStack"})
