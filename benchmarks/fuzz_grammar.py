"""The grammar of differential_fuzz.py: constructs (the registry's user-source families and the
near misses Dynamo traces that look like them) composed with contexts (where the construct runs,
where its values come from) into small probe modules, each `class Probe(nn.Module)` + `inputs()`.

A construct works on `y` (a float tensor, shape (4, 4) or a row of it) and `n` (a Python int, 3)
and leaves `y` a tensor of the same shape. `lines` are statements (a body line starts with four
spaces); `expr`, when given, is the construct as one tensor-valued expression, which the contexts
that need an expression (lambda, comprehension) use. Nothing here says whether Dynamo breaks: the
oracle does.
"""

from __future__ import annotations

import random
from dataclasses import dataclass


@dataclass(frozen=True)
class Construct:
    name: str
    family: str
    lines: tuple[str, ...]
    expr: str | None = None


def _c(name: str, family: str, *lines: str) -> Construct:
    return Construct(name, family, tuple(lines))


def _e(name: str, family: str, expr: str) -> Construct:
    return Construct(name, family, (f"y = {expr}",), expr)


def _if(name: str, family: str, condition: str) -> Construct:
    return Construct(name, family, (f"if {condition}:", "    y = y + 1"), f"(y + 1 if {condition} else y)")


CONSTRUCTS: tuple[Construct, ...] = (
    # tensor conditions
    _if("if_tensor_cmp", "cond", "y.sum() > 0"),
    _if("if_tensor_method", "cond", "y.any()"),
    _if("if_torch_any", "cond", "torch.any(y > 0)"),
    _if("if_not_all", "cond", "not (y > 0).all()"),
    _if("if_and_tensor", "cond", "n > 0 and y.min() < 0"),
    _if("if_tensor_eq_scalar", "cond", "y[0].sum() == 0"),
    _if("if_item_cond", "cond", "y.sum().item() > 0"),
    _c("while_tensor", "cond", "while y.max() > 100:", "    y = y / 2"),
    _e("ternary_tensor", "cond", "(y + 1 if y.mean() > 0 else y - 1)"),
    _e("or_tensor", "cond", "y * ((y.sum() > 0) or 2)"),
    _c("assert_tensor", "cond", "assert y.abs().sum() >= 0"),
    _c("assert_all", "cond", "assert torch.all(y == y)"),
    # near misses of the conditions
    _if("if_shape", "cond-near", "y.shape[0] > 2"),
    _if("if_dim", "cond-near", "y.dim() > 1"),
    _if("if_numel", "cond-near", "y.numel() > 0"),
    _if("if_dtype", "cond-near", "y.dtype == torch.float32"),
    _if("if_ndim", "cond-near", "y.ndim >= 1"),
    _if("if_device", "cond-near", "y.device.type == 'cpu'"),
    _if("if_requires_grad", "cond-near", "y.requires_grad"),
    _if("if_is_cuda", "cond-near", "not y.is_cuda"),
    _if("if_is_floating", "cond-near", "y.is_floating_point()"),
    _if("if_len", "cond-near", "len(y) > 1"),
    _if("if_isinstance", "cond-near", "isinstance(y, torch.Tensor)"),
    _if("if_is_tensor", "cond-near", "torch.is_tensor(y)"),
    _if("if_not_none", "cond-near", "y is not None"),
    _if("if_python", "cond-near", "n > 2"),
    _if("if_size_call", "cond-near", "y.size(-1) == 4"),
    _if("if_hasattr", "cond-near", "hasattr(y, 'shape')"),
    _if("if_type_name", "cond-near", "type(y).__name__ == 'Tensor'"),
    _if("if_is_scripting", "cond-near", "not torch.jit.is_scripting()"),
    _if("if_is_compiling", "cond-near", "torch.compiler.is_compiling()"),
    _c("assert_shape", "cond-near", "assert y.shape[-1] == 4"),
    _c("assert_isinstance", "cond-near", "assert isinstance(y, torch.Tensor)"),
    _c("assert_python", "cond-near", "assert n > 0"),
    _c("assert_message", "cond-near", "assert y.dim() >= 1, f'bad rank {y.dim()}'"),
    # conditions whose tensor operand runs only in a mode the probe may not be in
    _c("layerdrop", "mode", "skip = self.training and torch.rand([]) < 0.5", "if not skip:", "    y = y + 1"),
    _if("if_half_and_tensor", "mode", "y.dtype == torch.float16 and not torch.isfinite(y).all()"),
    _if("if_python_and_tensor", "mode", "n > 5 and torch.isnan(y).any()"),
    _if("if_flag_and_tensor", "mode", "not self.flag and torch.isnan(y).any()"),
    _if("if_grad_and_tensor", "mode", "y.requires_grad and y.sum() > 0"),
    _c("optional_mask", "mode", "mask = None", "if mask is not None and mask.any():", "    y = y + 1"),
    _c("optional_ternary", "mode", "mask = None", "y = y if mask is None else y * mask.any()"),
    # Python values read off tensors and torch (near misses of the tensor conditions)
    _if("if_finfo", "query-near", "torch.finfo(y.dtype).eps < 1e-3"),
    _if("if_is_contiguous", "query-near", "y.is_contiguous()"),
    _if("if_is_complex", "query-near", "not y.is_complex()"),
    _if("if_is_sparse", "query-near", "not y.is_sparse"),
    _if("if_layout", "query-near", "y.layout == torch.strided"),
    _if("if_grad_none", "query-near", "y.grad is None"),
    _if("if_is_leaf", "query-near", "y.is_leaf"),
    _if("if_element_size", "query-near", "y.element_size() == 4"),
    _if("if_nelement", "query-near", "y.nelement() > 1"),
    _if("if_shape_eq_tuple", "query-near", "y.shape == (4, 4)"),
    _if("if_shape_list", "query-near", "list(y.shape)[-1] == 4"),
    _if("if_len_shape", "query-near", "len(y.shape) >= 1"),
    _if("if_any_shape", "query-near", "any(s > 1 for s in y.shape)"),
    _if("if_max_shape", "query-near", "max(y.shape) > 2"),
    _if("if_grad_enabled", "query-near", "not torch.is_grad_enabled()"),
    _if("if_torch_is_floating", "query-near", "torch.is_floating_point(y)"),
    _if("if_torch_numel", "query-near", "torch.numel(y) > 1"),
    _if("if_dtype_in", "query-near", "y.dtype in (torch.float32, torch.float64)"),
    _if("if_dtype_is_floating", "query-near", "y.dtype.is_floating_point"),
    _if("if_is_tracing", "query-near", "not torch.jit.is_tracing()"),
    _if("if_autocast", "query-near", "not torch.is_autocast_enabled()"),
    _if("if_default_dtype", "query-near", "torch.get_default_dtype() == torch.float32"),
    _if("if_is_inference", "query-near", "not y.is_inference()"),
    _if("if_list_of_tensors", "query-near", "[y, y]"),
    _if("if_tuple_len", "query-near", "len((y, y)) == 2"),
    _if("if_stride", "query-near", "y.stride()[-1] == 1"),
    _if("if_storage_offset", "query-near", "y.storage_offset() == 0"),
    _if("if_identity", "query-near", "y is not n"),
    _c("unpacked_shape", "query-near", "a, b = y.shape[-2:] if y.dim() > 1 else (1, y.shape[-1])", "if a <= b:",
       "    y = y + 1"),
    _c("half_width", "query-near", "h = y.shape[-1] // 2", "if h:", "    y = y + 1"),
    _c("size_tuple", "query-near", "s = y.size()", "if s[-1] > 1:", "    y = y + 1"),
    _c("tolist_then_if", "query-near", "vals = [n, n]", "if vals[0] > 0:", "    y = y + 1"),
    _c("float_attr_if", "query-near", "eps = 1e-6 * n", "if eps > 0:", "    y = y + eps"),
    _c("assert_shape_eq", "query-near", "assert y.shape == y.shape"),
    _c("assert_dtype_in", "query-near", "assert y.dtype in (torch.float32, torch.float64)"),
    _c("assert_finite_python", "query-near", "assert math.isfinite(float(n))"),
    _e("int_of_size", "query-near", "y * int(y.size(-1))"),
    _e("int_of_numel", "query-near", "y * int(torch.numel(y))"),
    _e("float_finfo", "query-near", "y * float(torch.finfo(y.dtype).eps)"),
    _e("int_of_dim", "query-near", "y * int(y.dim())"),
    _e("int_math_prod", "query-near", "y * int(math.prod(y.shape))"),
    _e("slice_by_shape", "query-near", "y + y[..., : y.shape[-1] // 2].sum()"),
    _e("slice_by_python", "query-near", "y + y[..., : int(n)].sum()"),
    _e("slice_by_tensor", "scalar", "y + y[..., : y.shape[-1] - (y[0, 0] < 0).long()].sum()"),
    _e("float_element_size", "query-near", "y * float(y.element_size())"),
    _e("requires_grad_fresh", "query-near", "y + torch.zeros_like(y).requires_grad_()"),
    _e("detach_requires_grad", "query-near", "y + y.detach().requires_grad_(False)"),
    # containers of tensors tested for truth (their length), helpers returning Python values, identity
    _if("if_tuple_of_tensors", "query-near", "(y, y)"),
    _if("if_chunks", "query-near", "y.chunk(2)"),
    _if("if_torch_split", "query-near", "torch.split(y, 2)"),
    _if("if_comprehension", "query-near", "[t for t in y]"),
    _if("if_helper_size", "query-near", "size_of(y) > 2"),
    _if("if_helper_predicate", "query-near", "is_big(y)"),
    _if("if_helper_tensor_predicate", "cond", "has_nan(y)"),
    _if("if_np_prod", "query-near", "np.prod(y.shape) > 1"),
    _if("if_shape_mod", "query-near", "y.shape[-1] % 2 == 0"),
    _if("if_in_shape", "query-near", "4 in y.shape"),
    _if("if_dim_and_shape", "query-near", "y.dim() == 2 and y.shape[1] > 1"),
    _if("if_getattr_flag", "query-near", "getattr(y, 'is_sparse', False)"),
    _if("if_type_is", "query-near", "type(y) is torch.Tensor"),
    _if("if_class_is", "query-near", "y.__class__ is torch.Tensor"),
    _if("if_device_eq", "query-near", "y.device == torch.device('cpu')"),
    _if("if_str_dtype", "query-near", "str(y.dtype) == 'torch.float32'"),
    _if("if_is_nested", "query-near", "not y.is_nested"),
    _if("if_is_tensor_and", "query-near", "torch.is_tensor(n) and n.sum() > 0"),
    _if("if_not_isinstance_or", "cond", "not isinstance(y, torch.Tensor) or y.sum() > 0"),
    _if("if_torch_equal", "cond", "torch.equal(y, y)"),
    _if("if_allclose", "cond", "torch.allclose(y, y)"),
    _if("if_eq_all", "cond", "y.eq(y).all()"),
    _if("if_max_item", "cond", "y.max().item() > 0"),
    _if("if_dict_tensor", "cond", "{'y': y}['y'].sum() > 0"),
    _if("if_grad_fn_none", "query-near", "y.grad_fn is None"),
    _if("if_is_input", "query-near", "y is not n"),
    _c("range_shape", "query-near", "for i in range(y.shape[0]):", "    y = y + i"),
    _c("range_len", "query-near", "for i in range(len(y)):", "    y = y + i"),
    _c("while_python", "query-near", "k = n", "while k > 0:", "    k -= 1", "    y = y + 1"),
    # tensors turned into Python values
    _e("item", "scalar", "y + y.sum().item()"),
    _e("tolist", "scalar", "y + len(y.tolist())"),
    _c("tolist_loop", "scalar", "for v in y.flatten().tolist()[:2]:", "    y = y + v"),
    _e("int_tensor", "scalar", "y * int(y.max())"),
    _e("float_tensor", "scalar", "y * float(y.mean())"),
    _e("bool_tensor", "scalar", "y * bool(y.sum() > 0)"),
    _c("range_tensor", "scalar", "for i in range(int(y.max()) % 3):", "    y = y + i"),
    _e("math_of_tensor", "scalar", "y * math.sqrt(y.abs().sum())"),
    _e("numpy_float", "scalar", "y + float(y.detach().numpy().sum())"),
    # near misses: the same calls on Python values and static sizes
    _e("int_python", "scalar-near", "y * int(n)"),
    _e("float_python", "scalar-near", "y * float(n)"),
    _e("bool_python", "scalar-near", "y * bool(n)"),
    _e("int_shape", "scalar-near", "y * int(y.shape[0])"),
    _e("float_numel", "scalar-near", "y / float(y.numel())"),
    _e("math_python", "scalar-near", "y * math.sqrt(n)"),
    _e("size_call", "scalar-near", "y * y.size(-1)"),
    _e("len_tensor", "scalar-near", "y * len(y)"),
    _e("len_list", "scalar-near", "y * len([n, n])"),
    _e("min_python", "scalar-near", "y * min(n, 2)"),
    _e("sum_list", "scalar-near", "y + sum([n, 1])"),
    _e("max_tensors", "scalar-near", "y + max(y.sum(), y.mean())"),
    _e("round_python", "scalar-near", "y + round(n / 2)"),
    # data-dependent output shapes
    _e("nonzero", "dynamic", "y + y.nonzero().sum()"),
    _e("unique", "dynamic", "y + torch.unique(y).sum()"),
    _e("mask_index", "dynamic", "y + y[y > 0].sum()"),
    _e("masked_select", "dynamic", "y + torch.masked_select(y, y > 0).sum()"),
    _e("where_one_arg", "dynamic", "y + torch.where(y > 0)[0].sum()"),
    _e("bincount", "dynamic", "y + torch.bincount(y.abs().long().flatten()).sum()"),
    _c("mask_assign", "dynamic", "y = y.clone()", "y[y > 0] = 0"),
    _e("where_three_args", "dynamic-near", "torch.where(y > 0, y, -y)"),
    _e("masked_fill", "dynamic-near", "y.masked_fill(y > 0, 0.0)"),
    _e("argmax", "dynamic-near", "y + y.argmax()"),
    _e("topk", "dynamic-near", "y + y.flatten().topk(2).values.sum()"),
    _e("mask_multiply", "dynamic-near", "y * (y > 0)"),
    _e("index_int", "dynamic-near", "y + y[..., 0:1]"),
    # Python machinery
    _c("print", "machinery", "print('probe', n)"),
    _c("print_shape", "machinery", "print(y.shape)"),
    _c("logger_info", "machinery", "logger.info('probe %s', n)"),
    _c("logger_debug", "machinery", "logger.debug('probe %s', n)"),
    _c("logger_warning", "machinery", "logger.warning('probe %s', n)"),
    _c("logging_info", "machinery", "logging.info('probe')"),
    _c("warnings_warn", "machinery", "warnings.warn('probe')"),
    _e("deepcopy_tensor", "machinery", "copy.deepcopy(y)"),
    _c("deepcopy_dict", "machinery", "d = copy.deepcopy({'a': n})", "y = y * d['a']"),
    _c("copy_dict", "machinery", "d = copy.copy({'a': n})", "y = y * d['a']"),
    _if("inspect_isclass", "machinery", "inspect.isclass(type(y))"),
    _c("inspect_signature", "machinery", "k = len(inspect.signature(torch.nn.functional.relu).parameters)",
       "y = y * k"),
    _c("time_time", "machinery", "t0 = time.time()"),
    _c("perf_counter", "machinery", "t0 = time.perf_counter()"),
    _e("random_random", "machinery", "y * random.random()"),
    _if("os_environ_get", "machinery", "os.environ.get('GM_FUZZ_FLAG')"),
    _c("fstring_tensor", "machinery", "s = f'{y.sum()}'"),
    _c("fstring_shape", "machinery", "s = f'{y.shape}'"),
    _c("str_tensor", "machinery", "s = str(y)"),
    _c("json_dumps", "machinery", "s = json.dumps({'n': n})"),
    _c("graph_break", "machinery", "torch._dynamo.graph_break()"),
    _c("data_ptr", "machinery", "p = y.data_ptr()"),
    _if("id_compare", "machinery", "id(y) > 0"),
    _c("sorted_python", "machinery", "ks = sorted([n, 1, 2])", "y = y + ks[0]"),
    _c("dict_loop", "machinery", "for key, v in {'a': n}.items():", "    y = y + v"),
    _e("getattr_name", "machinery", "getattr(y, 'relu')()"),
    _c("math_floor", "machinery", "y = y * math.floor(n / 2)"),
)

# The families the wild corpus' test half misses without a rule (by Dynamo's break type), each
# beside its near misses; their own block, so the value-source block can grow beside it.
WILD_CONSTRUCTS: tuple[Construct, ...] = (
    # a 0-d tensor used where an int is taken (indexing, slicing, index assignment)
    _e("index_argmax", "w-index", "y + y.flatten()[y.argmax()]"),
    _e("index_argmax_row", "w-index", "y + y[y.argmax() // 4]"),
    _e("index_count", "w-index", "y + y[(y > 0).sum() % 4]"),
    _c("index_bucketize", "w-index", "idx = torch.bucketize(y[0, 0], torch.tensor([-10.0, 0.0, 10.0]))",
       "y = y + y[idx + 1]"),
    _c("index_searchsorted", "w-index", "idx = torch.searchsorted(y[0], y[0, 1:2]).squeeze()", "y = y + y[idx]"),
    _c("setitem_argmax", "w-index", "y = y.clone()", "y[..., y.argmax() % 4] = 0"),
    _c("setitem_count", "w-index", "i = (y > 0).sum() % 4", "y = y.clone()", "y[i] = 0"),
    _e("slice_count", "w-index", "y + y[: (y > 0).sum() % 4 + 1].sum()"),
    _e("narrow_tensor_start", "w-index", "y + y.narrow(0, y.argmax() % 2, 2).sum()"),
    _e("index_1d_tensor", "w-index-near", "y + y[y.argmax(dim=0) % 4].sum()"),
    _e("index_select_tensor", "w-index-near", "y + y.index_select(0, (y.argmax() % 4).view(1)).sum()"),
    _e("gather_tensor", "w-index-near", "y.gather(-1, y.argsort(-1))"),
    _e("index_python", "w-index-near", "y + y[n]"),
    _e("index_shape", "w-index-near", "y + y[y.shape[0] - 1]"),
    _e("take_tensor", "w-index-near", "y + torch.take(y, y.argmax())"),
    _c("setitem_python", "w-index-near", "y = y.clone()", "y[..., n] = 0"),
    _c("setitem_mask_where", "w-index-near", "y = torch.where(y > 0, torch.zeros_like(y), y)"),
    # `.item()` on receivers a reader must follow to know they are tensors
    _e("item_buffer", "w-item", "y + self.scale.item()"),
    _e("item_parameter", "w-item", "y * self.weight.item()"),
    _e("item_plain_attr", "w-item", "y * self.t.item()"),
    _e("item_getattr", "w-item", "y + getattr(self, 'scale').item()"),
    _c("item_list_element", "w-item", "vals = [y.sum(), y.mean()]", "y = y + vals[0].item()"),
    _c("item_dict_element", "w-item", "d = {'s': y.sum()}", "y = y + d['s'].item()"),
    _c("item_loop_var", "w-item", "for v in (y.sum(), y.max()):", "    y = y + v.item()"),
    _c("item_unbind_loop", "w-item", "for v in y[0].unbind(0)[:2]:", "    y = y + v.item()"),
    _e("item_helper_return", "w-item", "y + total(y).item()"),
    _c("item_tuple_unpack", "w-item", "a, b = y.sum(), y.max()", "y = y + b.item()"),
    _e("item_numpy_scalar", "w-item-near", "y * np.float32(n).item()"),
    _e("item_python_number", "w-item-near", "y * (1.5).__float__()"),
    # calls into C builtins and the stdlib files Dynamo skips
    _c("thread_ident", "w-skip", "tid = threading.get_ident()"),
    _c("c_thread_ident", "w-skip", "tid = _thread.get_ident()"),
    _c("lock_built", "w-skip", "lock = threading.Lock()"),
    _c("time_monotonic", "w-skip", "t0 = time.monotonic()"),
    _c("os_getpid", "w-skip", "pid = os.getpid()"),
    _c("datetime_now", "w-skip", "stamp = datetime.datetime.now()"),
    _e("numpy_random", "w-skip", "y * float(np.random.rand())"),
    _c("re_sub", "w-skip", "s = re.sub('a', 'b', 'aa')"),
    _c("os_path_join", "w-skip", "s = os.path.join('a', 'b')"),
    _c("traceback_stack", "w-skip", "tb = traceback.format_stack()"),
    _c("weakref_self", "w-skip", "r = weakref.ref(self)"),
    _c("namespace_built", "w-skip", "ns = types.SimpleNamespace(a=n)", "y = y * ns.a"),
    _c("functools_reduce", "w-skip-near", "y = functools.reduce(torch.add, [y, y])"),
    _e("itertools_islice", "w-skip-near", "y + sum(itertools.islice(y.unbind(0), 2))"),
    _e("operator_mul", "w-skip-near", "operator.mul(y, n)"),
    _e("math_isclose", "w-skip-near", "y * math.isclose(n, 3)"),
    _c("partial_call", "w-skip-near", "f = functools.partial(torch.add, alpha=2)", "y = f(y, y)"),
    # context managers
    _c("with_lock", "w-ctx", "with LOCK:", "    y = y + 1"),
    _c("with_rlock", "w-ctx", "with RLOCK:", "    y = y + 1"),
    _c("with_suppress", "w-ctx", "with contextlib.suppress(ValueError):", "    y = y + 1"),
    _c("with_catch_warnings", "w-ctx", "with warnings.catch_warnings():", "    y = y + 1"),
    _c("with_user_manager", "w-ctx", "with Manager():", "    y = y + 1"),
    _c("with_generator_manager", "w-ctx", "with scope():", "    y = y + 1"),
    _c("with_record_function", "w-ctx-near", "with torch.autograd.profiler.record_function('probe'):",
       "    y = y + 1"),
    _c("with_enable_grad", "w-ctx-near", "with torch.enable_grad():", "    y = y + 1"),
    _c("with_autocast_off", "w-ctx-near", "with torch.autocast('cpu', enabled=False):", "    y = y + 1"),
    # values Dynamo must rebuild at a break (generators, iterators, closures live across it)
    _c("generator_across_break", "w-recon", "g = (t * 2 for t in y.unbind(0))", "print('probe')",
       "y = torch.stack(list(g))"),
    _c("iterator_across_break", "w-recon", "it = iter(y.unbind(0))", "print('probe')", "y = y + next(it)"),
    _c("map_across_break", "w-recon", "m = map(torch.relu, y.unbind(0))", "print('probe')",
       "y = torch.stack(list(m))"),
    _c("zip_across_break", "w-recon", "z = zip(y.unbind(0), y.unbind(1))", "print('probe')",
       "y = y + torch.stack([a + b for a, b in z]).sum()"),
    _c("closure_across_break", "w-recon", "def scale(t):", "    return t * n", "print('probe')", "y = scale(y)"),
    _c("object_across_break", "w-recon", "box = Box(y)", "print('probe')", "y = box.t + 1"),
    _c("generator_no_break", "w-recon-near", "g = (t * 2 for t in y.unbind(0))", "y = torch.stack(list(g))"),
    # `next()` on iterators of builtin containers
    _c("next_in_comprehension", "w-iter", "it = iter(y.unbind(0))", "y = torch.stack([next(it) for _ in range(4)])"),
    _c("next_list_iterator", "w-iter", "it = iter([y, y + 1])", "y = next(it)"),
    _c("next_dict_iterator", "w-iter", "k = next(iter({'a': n}))", "y = y * len(k)"),
    _c("next_set_iterator", "w-iter", "k = next(iter({n}))", "y = y * k"),
    _c("next_generator", "w-iter-near", "y = next(t + 1 for t in [y])"),
    # NumPy array attributes
    _c("ndarray_flags", "w-ndarray", "a = y.detach().numpy()", "y = y * a.flags['C_CONTIGUOUS']"),
    _c("ndarray_strides", "w-ndarray", "a = y.detach().numpy()", "y = y * a.strides[0]"),
    _c("ndarray_nbytes", "w-ndarray", "a = y.detach().numpy()", "y = y * a.nbytes"),
    _c("ndarray_itemsize", "w-ndarray", "a = y.detach().numpy()", "y = y * a.itemsize"),
    _c("ndarray_base", "w-ndarray", "a = y.detach().numpy()", "y = y * (a.base is None)"),
    _c("ndarray_shape", "w-ndarray-near", "a = y.detach().numpy()", "y = y * a.shape[0]"),
    _c("ndarray_ndim", "w-ndarray-near", "a = y.detach().numpy()", "y = y * a.ndim"),
    _c("ndarray_size", "w-ndarray-near", "a = y.detach().numpy()", "y = y * a.size"),
    # builtin operators and arguments Dynamo cannot put in a graph
    _c("dict_union", "w-op", "d = {'a': 1} | {'b': n}", "y = y * d['b']"),
    _c("set_difference", "w-op", "s = {1, 2, n} - {1}", "y = y * len(s)"),
    _e("hash_python", "w-op", "y + hash(n) % 2"),
    _e("complex_python", "w-op", "y * complex(n).real"),
    _e("reshape_numpy_sizes", "w-proxy", "y.reshape(tuple(np.array([4, 4])))"),
    _e("sum_dim_numpy", "w-proxy", "y.sum(dim=np.int64(0)) + y"),
    _e("getattr_item_near", "w-item-near", "y * getattr(self, 'n')"),
    _e("tensor_of_tensors", "w-proxy", "y + torch.tensor([y.sum(), y.mean()]).sum()"),
)

# dict views built at module level, iterated in traced code (GM676: `values()`/`items()` break, `keys()` traces)
VIEW_CONSTRUCTS: tuple[Construct, ...] = (
    _c("held_view_values_for", "w-view", "for v in HELD_VALUES:", "    y = y + v"),
    _c("held_view_items_genexp", "w-view", "y = y + sum(v for _, v in HELD_ITEMS)"),
    _c("held_view_values_zip", "w-view", "for t, v in zip(y.unbind(0), HELD_VALUES):", "    y = y + t * v"),
    _c("held_view_values_list", "w-view", "y = y * len(list(HELD_VALUES))"),
    _c("held_view_keys_near", "w-view-near", "for k in HELD_KEYS:", "    y = y + len(k)"),
    _c("held_view_built_near", "w-view-near", "for v in {'a': n}.values():", "    y = y + v"),
)

# `.item()` / `.tolist()` on values from outside the tree (itemX: value_sources.opaque_source),
# beside NumPy values of constants (folded) and objects of the tree's classes.
OPAQUE_CONSTRUCTS: tuple[Construct, ...] = (
    _e("opaque_reduce_item", "o-item", "y + functools.reduce(operator.add, [y.sum(), y.mean()]).item()"),
    _e("opaque_getattr_torch_item", "o-item", "y * getattr(torch, 'sum')(y).item()"),
    _e("opaque_max_item", "o-item", "y * max(y.sum(), y.mean()).item()"),
    _e("opaque_operator_item", "o-item", "y * operator.mul(y.sum(), 2).item()"),
    _e("opaque_reduce_tolist", "o-item", "y * functools.reduce(operator.add, [y, y]).tolist()[0][0]"),
    _e("opaque_numpy_of_tensor_item", "o-item", "y * np.mean(y.detach().numpy()).item()"),
    _e("opaque_distribution_item", "o-item", "y * torch.distributions.Normal(y.mean(), 1.0).loc.item()"),
    _c("opaque_partial_item", "o-item", "f = functools.partial(torch.sum, dim=0)", "y = y * f(y)[0].item()"),
    _e("opaque_numpy_array_item", "o-item-near", "y * np.array([2.0]).item()"),
    _e("opaque_numpy_sqrt_item", "o-item-near", "y * np.sqrt(2.0).item()"),
    _e("opaque_numpy_float_item", "o-item-near", "y * np.float32(n).item()"),
    _e("opaque_box_attr_near", "o-item-near", "y * Box(n).t"),
)

# Constructs rules already know, spelled through indirection (an alias, `getattr`, an unbound or
# dunder method, a lambda or partial, an attribute or container holding the tensor, the `out=` form),
# beside the same spellings on Python values or ops that trace (`--only spell_`).
SPELL_CONSTRUCTS: tuple[Construct, ...] = (
    # data-dependent shapes
    _c("spell_nonzero_alias", "s-dynamic", "nz = torch.nonzero", "y = y + nz(y).sum()"),
    _e("spell_nonzero_getattr", "s-dynamic", "y + getattr(torch, 'nonzero')(y).sum()"),
    _e("spell_nonzero_unbound", "s-dynamic", "y + torch.Tensor.nonzero(y).sum()"),
    _e("spell_nonzero_as_tuple", "s-dynamic", "y + (y > 0).nonzero(as_tuple=True)[0].sum()"),
    _e("spell_argwhere", "s-dynamic", "y + torch.argwhere(y).sum()"),
    _e("spell_unique_method", "s-dynamic", "y + y.unique().sum()"),
    _e("spell_unique_consecutive", "s-dynamic", "y + torch.unique_consecutive(y).sum()"),
    _e("spell_masked_select_method", "s-dynamic", "y + y.masked_select(y > 0).sum()"),
    _c("spell_nonzero_partial", "s-dynamic", "f = functools.partial(torch.nonzero, as_tuple=False)",
       "y = y + f(y).sum()"),
    _c("spell_nonzero_lambda", "s-dynamic", "f = lambda t: t.nonzero()", "y = y + f(y).sum()"),
    _c("spell_nonzero_attr", "s-dynamic", "box = Box(y)", "y = y + box.t.nonzero().sum()"),
    _c("spell_nonzero_element", "s-dynamic", "ts = [y, y]", "y = y + ts[0].nonzero().sum()"),
    _e("spell_nonzero_helper", "s-dynamic", "y + make_y(y).nonzero().sum()"),
    _e("spell_mask_index_helper", "s-dynamic", "y + y[make_y(y) > 0].sum()"),
    _e("spell_nonzero_static_near", "s-dynamic-near", "y + torch.nonzero_static(y, size=4).sum()"),
    _e("spell_where_getattr_near", "s-dynamic-near", "getattr(torch, 'where')(y > 0, y, -y)"),
    _c("spell_where_alias_near", "s-dynamic-near", "wh = torch.where", "y = wh(y > 0, y, -y)"),
    # tensors turned into Python values
    _e("spell_item_unbound", "s-scalar", "y + torch.Tensor.item(y.sum())"),
    _c("spell_item_bound_alias", "s-scalar", "get = y.sum().item", "y = y + get()"),
    _e("spell_item_getattr", "s-scalar", "y + getattr(y.sum(), 'item')()"),
    _e("spell_tolist_unbound", "s-scalar", "y + len(torch.Tensor.tolist(y))"),
    _e("spell_int_dunder", "s-scalar", "y * y.max().__int__()"),
    _e("spell_float_dunder", "s-scalar", "y * y.mean().__float__()"),
    _e("spell_operator_index", "s-scalar", "y * operator.index(y.argmax())"),
    _c("spell_item_lambda", "s-scalar", "g = lambda t: t.item()", "y = y + g(y.sum())"),
    _c("spell_item_partial", "s-scalar", "g = functools.partial(torch.Tensor.item)", "y = y + g(y.sum())"),
    _c("spell_item_attr", "s-scalar", "box = Box(y.sum())", "y = y + box.t.item()"),
    _e("spell_item_comprehension", "s-scalar", "y + sum([t.item() for t in y.sum(0)])"),
    _c("spell_item_map", "s-scalar", "vals = list(map(float, y.sum(0)))", "y = y + vals[0]"),
    _e("spell_int_dunder_near", "s-scalar-near", "y * (3).__int__()"),
    _e("spell_operator_index_near", "s-scalar-near", "y * operator.index(n)"),
    _e("spell_size_unbound_near", "s-scalar-near", "y * torch.Tensor.size(y, -1)"),
    _e("spell_dim_getattr_near", "s-scalar-near", "y * getattr(y, 'dim')()"),
    # tensor conditions
    _if("spell_bool_dunder", "s-cond", "y.sum().__bool__()"),
    _if("spell_operator_truth", "s-cond", "operator.truth(y.sum() > 0)"),
    _if("spell_operator_gt", "s-cond", "operator.gt(y.sum(), 0)"),
    _if("spell_any_getattr", "s-cond", "getattr(y, 'any')()"),
    _if("spell_any_unbound", "s-cond", "torch.Tensor.any(y)"),
    _if("spell_cond_buffer", "s-cond", "self.buf.sum() > 0"),
    _if("spell_cond_attr", "s-cond", "Box(y).t.sum() > 0"),
    _if("spell_cond_element", "s-cond", "[y.sum(), n][0] > 0"),
    _if("spell_cond_builtin_any", "s-cond", "any([(t > 0).all() for t in y])"),
    _c("spell_cond_lambda", "s-cond", "pos = lambda t: t.sum() > 0", "if pos(y):", "    y = y + 1"),
    _c("spell_cond_alias", "s-cond", "anyf = torch.any", "if anyf(y > 0):", "    y = y + 1"),
    _if("spell_bool_dunder_near", "s-cond-near", "(n > 0).__bool__()"),
    _if("spell_operator_truth_near", "s-cond-near", "operator.truth(n)"),
    _if("spell_operator_gt_near", "s-cond-near", "operator.gt(y.shape[0], 0)"),
    _c("spell_cond_lambda_near", "s-cond-near", "big = lambda t: t.dim() > 1", "if big(y):", "    y = y + 1"),
    # sorting by a tensor (GM618)
    _c("spell_sorted_alias", "s-sort", "s2 = sorted", "ks = s2([y.sum(), y.mean()])", "y = y + ks[0]"),
    _c("spell_sorted_builtins", "s-sort", "ks = builtins.sorted([y.sum(), y.mean()])", "y = y + ks[0]"),
    _c("spell_sort_method", "s-sort", "ks = [y.sum(), y.mean()]", "ks.sort()", "y = y + ks[0]"),
    _c("spell_sorted_key_getattr", "s-sort", "ks = sorted(y.unbind(0), key=lambda t: getattr(t, 'sum')())",
       "y = y + ks[0]"),
    _c("spell_sorted_alias_near", "s-sort-near", "s2 = sorted", "ks = s2([n, 1])", "y = y + ks[0]"),
    _c("spell_sorted_shape_near", "s-sort-near", "ks = sorted(y.unbind(0), key=lambda t: t.shape[0])",
       "y = y + ks[0]"),
)

# precision: what real libraries write around tensor conditions and value copies (config dicts
# holding NumPy scalars, Optional attributes left None, Python operands that short-circuit `and`/`or`,
# compile guards, flags on self); most are near misses, the rest say which spelling still breaks.
PRECISION_CONSTRUCTS: tuple[Construct, ...] = (
    _e("prec_cfg_get_item", "p-item-near", "y * self.cfg.get('scale').item()"),
    _e("prec_cfg_index_item", "p-item-near", "y * self.cfg['scale'].item()"),
    _c("prec_cfg_local_item", "p-item-near", "s = self.cfg['scale']", "y = y * s.item()"),
    _e("prec_cfg_float", "p-item-near", "y * float(self.cfg['scale'])"),
    _e("prec_np_local_item", "p-item-near", "y * np.float64(n).item()"),
    _c("prec_np_sum_item", "p-item-near", "a = np.ones(3)", "y = y * a.sum().item()"),
    _if("prec_np_cond", "p-cond-near", "np.ones(3).sum() > 1"),
    _if("prec_cfg_cond", "p-cond-near", "self.cfg.get('eps', 0.0) > 0"),
    _if("prec_or_flag_first", "p-cond-near", "self.flag or y.sum() > 0"),
    _if("prec_or_kept_none", "p-cond-near", "self.kept is None or self.kept.sum() > 0"),
    _if("prec_and_kept_none", "p-cond-near", "self.kept is not None and self.kept.sum() > 0"),
    _if("prec_and_kept_truth", "p-cond-near", "self.kept and self.kept.any()"),
    _if("prec_scripting_or", "p-cond-near", "not torch.jit.is_scripting() or y.sum() > 0"),
    _if("prec_compiling_or", "p-cond-near", "torch.compiler.is_compiling() or y.sum() > 0"),
    _if("prec_dynamo_compiling_or", "p-cond-near", "torch._dynamo.is_compiling() or y.sum() > 0"),
    _if("prec_isinstance_and", "p-cond-near", "isinstance(y, torch.Tensor) and y.dim() > 1"),
    _if("prec_shape_and_dtype", "p-cond-near", "y.shape[0] == y.shape[1] and y.dtype == torch.float32"),
    _if("prec_flag_and_shape", "p-cond-near", "self.flag and y.numel() > 1"),
    _if("prec_training_and_grad", "p-cond-near", "self.training and y.requires_grad"),
    _if("prec_none_default_and", "p-cond-near", "getattr(self, 'missing', None) is not None and y.sum() > 0"),
    _if("prec_and_flag_tensor", "cond", "self.flag and y.sum() > 0"),
    _if("prec_scripting_and_tensor", "cond", "not torch.jit.is_scripting() and y.sum() > 0"),
    _if("prec_or_not_flag_tensor", "cond", "not self.flag or y.sum() > 0"),
    _e("prec_arange_shape", "p-size-near", "y + torch.arange(y.shape[-1])"),
    _e("prec_arange_len", "p-size-near", "y + torch.arange(len(y))"),
    _e("prec_zeros_numel", "p-size-near", "y + torch.zeros(y.numel()).reshape(4, -1)[: y.shape[0]]"),
    _e("prec_slice_dim", "p-size-near", "y[..., : y.dim() * 2]"),
    _e("prec_slice_len", "p-size-near", "y[: len(y)]"),
    _e("prec_float_math", "p-item-near", "y * float(math.log(n + 1))"),
)

CONSTRUCTS = (
    CONSTRUCTS + WILD_CONSTRUCTS + VIEW_CONSTRUCTS + OPAQUE_CONSTRUCTS + SPELL_CONSTRUCTS + PRECISION_CONSTRUCTS
)
BY_NAME = {c.name: c for c in CONSTRUCTS}

# where the construct runs
PLACES = (
    "forward", "helper", "method", "staticmethod", "property", "nested", "lambda", "loop",
    "comprehension", "if_flag", "if_flag_unrun", "if_training", "if_not_training", "try", "with",
    "with_nullcontext", "after_break",
)
# where `n` and `y` come from (a value passed as a parameter is the helper places' own)
N_SOURCES = ("local", "self_attr", "module_constant", "helper_return", "shape")
Y_SOURCES = ("input", "buffer", "helper_return")
# Value sources (kind inference): `y` reaches the construct through an attribute, a container, a
# helper's tuple or `*args`, a record's field, a loop variable or a tensor call; each keeps the
# input's values (`x * 2`, as "input" does) except getattr, which reads the buffer. `KIND_Y_LINES`
# is the statement binding `y`; `--y-sources kinds` (differential_fuzz.py) draws only these.
KIND_Y_LINES = {
    "param_attr": "self.stash(x)\ny = self.kept",
    "self_dict": "self.cache['k'] = x * 2\ny = self.cache['k']",
    "local_dict": "d = {'k': x * 2, 'n': 1}\ny = d['k']",
    "list_element": "outs = [x, x * 2]\ny = outs[1]",
    "tuple_unpack": "_, y = pair_of(x)",
    "loop_var": "for t in [x * 2]:\n    y = t",
    "varargs": "y = first_of(x * 2, x)",
    "kwargs": "y = pick(t=x * 2)",
    "getattr_buffer": "y = getattr(self, 'buf') * 2",
    "as_tensor": "y = torch.as_tensor(x * 2)",
    "data_attr": "y = (x * 2).data",
    "namedtuple_field": "y = Pair(x * 2, 1).t",
    "dataclass_field": "y = Record(x * 2, 1).v",
    "returned_record": "y = make_record(x).v",
}
KIND_Y_SOURCES = tuple(KIND_Y_LINES)

HEADER = """\
import _thread
import builtins
import contextlib
import copy
import datetime
import functools
import dataclasses
import inspect
import itertools
import json
import logging
import math
import operator
import os
import random
import re
import threading
import time
import traceback
import types
import typing
import warnings
import weakref

import numpy as np
import torch
from torch import nn

logger = logging.getLogger(__name__)
N = 3
HELD_VALUES = {"a": 1, "b": 2}.values()
HELD_ITEMS = {"a": 1, "b": 2}.items()
HELD_KEYS = {"a": 1, "b": 2}.keys()


def make_n():
    return 3


def make_y(x):
    return x * 2


def size_of(t):
    return t.shape[-1]


def is_big(t):
    return t.numel() > 10


def has_nan(t):
    return torch.isnan(t).any()


def total(t):
    return t.sum()


LOCK = threading.Lock()
RLOCK = threading.RLock()


class Manager:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


@contextlib.contextmanager
def scope():
    yield


class Box:
    def __init__(self, t):
        self.t = t
def pair_of(x):
    return x, x * 2


def first_of(*ts):
    return ts[0]


def pick(**kw):
    return kw["t"]


class Pair(typing.NamedTuple):
    t: torch.Tensor
    k: int


@dataclasses.dataclass
class Record:
    v: torch.Tensor
    m: int


def make_record(x):
    return Record(x * 2, 1)
"""

FOOTER = """

def inputs():
    return (torch.arange(16.0).reshape(4, 4) - 5.0,)
"""


@dataclass(frozen=True)
class Program:
    construct: Construct
    place: str
    n_source: str
    y_source: str
    mode: str  # "train" (nn.Module's default) or "eval": the probe's own training flag when called
    source: str
    construct_lines: tuple[int, ...]  # lines of the module the construct's statements are on

    @property
    def context(self) -> str:
        extra = [s for s, default in ((self.n_source, "local"), (self.y_source, "input"), (self.mode, "train"))
                 if s != default]
        return "+".join([self.place, *extra])


def _indent(lines: list[str], by: int) -> list[str]:
    return [" " * by + line for line in lines]


def _body(construct: Construct, place: str) -> tuple[list[str], list[str], list[str]]:
    """(module-level defs, class methods, forward statements) for the construct in `place`."""
    lines = list(construct.lines)
    if place == "forward":
        return [], [], lines
    if place == "helper":
        return ["", "", "def helper(y, n):", *_indent(lines, 4), "    return y"], [], ["y = helper(y, n)"]
    if place == "method":
        return [], ["def step(self, y, n):", *_indent(lines, 4), "    return y"], ["y = self.step(y, n)"]
    if place == "staticmethod":
        return [], ["@staticmethod", "def step(y, n):", *_indent(lines, 4), "    return y"], ["y = self.step(y, n)"]
    if place == "property":
        method = ["@property", "def extra(self):", "    y = self.buf * 1", "    n = 3", *_indent(lines, 4), "    return y"]
        return [], method, ["y = y + self.extra"]
    if place == "nested":
        return [], [], ["def inner(y):", *_indent(lines, 4), "    return y", "y = inner(y)"]
    if place == "lambda":
        return [], [], [f"f = lambda y: {construct.expr}", "y = f(y)"]
    if place == "comprehension":
        return [], [], [f"y = torch.stack([{construct.expr} for y in y.unbind(0)])"]
    if place == "loop":
        return [], [], ["for _ in range(2):", *_indent(lines, 4)]
    headers = {
        "if_flag": "if self.flag:", "if_flag_unrun": "if not self.flag:", "if_training": "if self.training:",
        "if_not_training": "if not self.training:", "with": "with torch.no_grad():",
        "with_nullcontext": "with contextlib.nullcontext():",
    }
    if place in headers:
        return [], [], [headers[place], *_indent(lines, 4)]
    if place == "try":
        return [], [], ["try:", *_indent(lines, 4), "except RuntimeError:", "    raise"]
    if place == "after_break":
        return [], [], ["torch._dynamo.graph_break()", *lines]
    raise ValueError(place)


def places_for(construct: Construct) -> tuple[str, ...]:
    """The places the construct fits: an expression's own, and none without `self` if it reads it."""
    places = PLACES if construct.expr is not None else tuple(p for p in PLACES if p not in ("lambda", "comprehension"))
    if any("self." in line for line in construct.lines):
        places = tuple(p for p in places if p not in ("helper", "staticmethod"))
    return places


def build(construct: Construct, place: str, n_source: str, y_source: str, mode: str = "train") -> Program:
    defs, methods, statements = _body(construct, place)
    n_line = {
        "local": "n = 3", "self_attr": "n = self.n", "module_constant": "n = N", "helper_return": "n = make_n()",
        "shape": "n = x.shape[0] - 1",
    }[n_source]
    y_lines = {"input": "y = x * 2", "buffer": "y = self.buf + x", "helper_return": "y = make_y(x)",
               **KIND_Y_LINES}[y_source].split("\n")
    init = [
        "def __init__(self):", "    super().__init__()", "    self.flag = True", "    self.n = 3",
        "    self.register_buffer('buf', torch.ones(4, 4))",
        "    self.register_buffer('scale', torch.tensor(2.0))", "    self.weight = nn.Parameter(torch.tensor(0.5))",
        "    self.t = torch.tensor(1.5)",
        "    self.cache = {}", "    self.kept = None",
        "    self.cfg = {'scale': np.float64(2.0), 'eps': 1e-5}",
    ] + (["    self.train(False)"] if mode == "eval" else [])
    if y_source == "param_attr":
        methods = [*methods, *([""] if methods else []), "def stash(self, x):", "    self.kept = x * 2"]
    forward = ["def forward(self, x):", *_indent([n_line, *y_lines, *statements, "return y"], 4)]
    class_lines = ["", "", "class Probe(nn.Module):", *_indent(init, 4)]
    for method in (methods, forward):
        if method:
            class_lines += ["", *_indent(method, 4)]
    text = "\n".join([HEADER.rstrip("\n"), *defs, *class_lines]) + "\n" + FOOTER
    # the construct's own lines: each of its statements as written (stripped) in the module
    wanted = {line.strip() for line in construct.lines} | ({construct.expr} if construct.expr else set())
    rows = tuple(
        i for i, line in enumerate(text.splitlines(), 1)
        if line.strip() in wanted or (construct.expr is not None and construct.expr in line)
    )
    return Program(construct, place, n_source, y_source, mode, text, rows)


def generate(seed: int, count: int, y_sources: tuple[str, ...] = Y_SOURCES + KIND_Y_SOURCES,
             y_rate: float = 0.3) -> list[Program]:
    """`count` programs drawn from the grammar by a generator seeded with `seed` (the same seed
    gives the same programs): a construct, a place, half the time a non-default source of `n`,
    `y_rate` of the time one of `y_sources`, and now and then the probe in eval mode."""
    rng = random.Random(seed)
    programs = []
    for _ in range(count):
        construct = rng.choice(CONSTRUCTS)
        place = rng.choice(places_for(construct))
        n_source = rng.choice(N_SOURCES) if rng.random() < 0.5 else "local"
        y_source = rng.choice(y_sources) if rng.random() < y_rate else "input"
        mode = "eval" if rng.random() < 0.3 else "train"
        if place == "property":  # the property reads its own values
            n_source, y_source = "local", "input"
        programs.append(build(construct, place, n_source, y_source, mode))
    return programs
