"""Write graphmend_bot/vocabulary/data_dependent_ops.py: the torch operators that read tensor
values into Python while Dynamo traces them ("Data dependent operator", GB0033) or whose output
shape depends on tensor values ("Dynamic shape operator", GB0036), derived from torch's own
operator database and aten's operator tags.

    python benchmarks/data_dependent_ops.py           # (re)write the table (about a minute)
    python benchmarks/data_dependent_ops.py --check   # exit 1 when the table is out of date

Every OpInfo of torch's `op_db` (torch/testing/_internal/common_methods_invocations.py) is run on
its own float32 (else int64) CPU sample inputs under a `FakeTensorMode` without a shape
environment, which is how Dynamo runs an op while tracing with its default config
(`capture_scalar_outputs` and `capture_dynamic_output_shape_ops` off): the fake implementation of
an aten operator tagged `data_dependent_output` (`aten.item`, `aten.equal`, ...) raises
`DataDependentOutputException`, one tagged `dynamic_output_shape` (`aten.nonzero`,
`aten.masked_select`, `aten._unique2`, ...) `DynamicOutputShapeException`, and Dynamo turns these
into GB0033 and GB0036 (torch/_dynamo/utils.py, run_node's callers). An op whose every sample
raises, directly or through its decomposition, breaks whatever its arguments are: it enters the
table under the names code calls it by (`torch.X`, `torch.linalg.X`, `torch.nn.functional.X`, and
the Tensor method when there is one). An op that raises on some samples only (`narrow` given a
tensor start, `repeat_interleave` given tensor repeats) depends on its arguments: it is listed
apart, and tests/test_data_dependent_ops.py names the rule that reads those arguments and measures
both calls with Dynamo, as it measures every entry.

Code also calls the aten operators themselves (`torch.ops.aten.nonzero.default(x)`,
`torch.ops.aten._local_scalar_dense(x)`): each aten operator that raised on every sample of an op
above, and each one tagged `data_dependent_output` (whose fake implementation always raises),
enters by those spellings, the overload's and, when the operator has no other overload than it and
its `out` variants, the packet's (which dispatches to it).
"""

from __future__ import annotations

import functools
import sys
import types
import warnings
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "benchmarks"))

from generated_table import write_or_check  # noqa: E402

TABLE = REPO / "graphmend_bot" / "vocabulary" / "data_dependent_ops.py"
SAMPLES_PER_OP = 16  # `__getitem__`'s boolean mask is its fifteenth sample


def _op_db() -> list[Any]:
    if "expecttest" not in sys.modules:
        try:
            import expecttest  # noqa: F401
        except ImportError:  # op_db's module only subclasses its TestCase: a stand-in does
            import unittest

            sys.modules["expecttest"] = types.SimpleNamespace(TestCase=unittest.TestCase)  # type: ignore[assignment]
    from torch.testing._internal.common_methods_invocations import op_db

    return list(op_db)


def _faked(mode: Any, value: Any) -> Any:
    import torch

    return mode.from_tensor(value) if isinstance(value, torch.Tensor) else value


def _reader(op: Any) -> tuple[str, str, bool] | None:
    """How `op` leaves Dynamo's graph on its samples: the exception's kind ("value" for a read of
    tensor values, "shape" for a data-dependent output shape), the aten operator that raised it,
    and whether every sample raised; None when no sample did or the samples say nothing."""
    import torch
    from torch._subclasses.fake_tensor import (
        DataDependentOutputException,
        DynamicOutputShapeException,
        FakeTensorMode,
    )

    dtype = next((d for d in (torch.float32, torch.int64) if d in op.supported_dtypes("cpu")), None)
    if dtype is None:  # integer ops (`bincount`, `one_hot`) run on int64 samples
        return None
    try:
        samples = list(op.sample_inputs("cpu", dtype, requires_grad=False))[:SAMPLES_PER_OP]
    except Exception:  # an OpInfo without float32 CPU samples says nothing here
        return None
    readers: set[tuple[str, str]] = set()
    traced = 0
    for sample in samples:
        mode = FakeTensorMode()  # no shape environment: Dynamo's default config, neither capture flag set
        fake = functools.partial(_faked, mode)
        try:
            with mode:
                op.op(*map(fake, (sample.input, *sample.args)), **{k: fake(v) for k, v in sample.kwargs.items()})
        except DataDependentOutputException as error:
            readers.add(("value", str(error.func)))
            continue
        except DynamicOutputShapeException as error:
            readers.add(("shape", str(error.func)))
            continue
        except Exception:  # a sample fake mode cannot run is not evidence either way
            continue
        traced += 1
    if not readers:
        return None
    kind, reader = min(readers)
    return kind, reader, traced == 0


Table = dict[str, dict[str, str]]


def _public_name(torch: Any, op: Any) -> str | None:
    """The name after `torch.` code calls `op` by (`nonzero`, `linalg.lstsq`,
    `nn.functional.one_hot`), or None for an OpInfo of no public function."""
    for name in (op.name, getattr(op.op, "__name__", op.name)):  # a jiterator function has no name
        target = torch
        for part in name.split("."):
            target = getattr(target, part, None)
        if target is op.op or (name.startswith("nn.") and name == op.name):
            return name
    return None


def table_keys(op: Any) -> set[str]:
    """The names `op` can enter the tables under: its OpInfo name (the some-arguments tables), the
    public function's and the Tensor method's."""
    import torch

    keys = {op.name}
    name = _public_name(torch, op)
    if name is not None:
        keys.add(name)
    if op.method_variant is not None:
        keys.add(op.method_variant.__name__)
    return keys


def ops_deciding(keys: set[str]) -> list[Any]:
    """Every OpInfo that can write one of `keys`, in op_db's order: building the tables from these
    alone gives those keys the entries a full build gives them (tests/test_data_dependent_ops.py
    checks a sample this way; the full check is `--check`)."""
    return [op for op in _op_db() if table_keys(op) & keys]


def build(ops: list[Any] | None = None) -> tuple[str, Table, Table, Table]:
    """The torch version; by exception kind, the functions and the Tensor methods that raise on
    every sample; and the operators that raise on some samples only (their arguments decide).
    From every OpInfo of op_db, or from `ops`."""
    import torch

    functions: Table = {"value": {}, "shape": {}}
    methods: Table = {"value": {}, "shape": {}}
    some_arguments: Table = {"value": {}, "shape": {}}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for op in _op_db() if ops is None else ops:
            found = _reader(op)
            if found is None:
                continue
            kind, reader, always = found
            if not always:
                some_arguments[kind][op.name] = reader
                continue
            name = _public_name(torch, op)
            if name is not None:
                functions[kind][name] = reader
            if op.method_variant is not None:
                methods[kind][op.method_variant.__name__] = reader
    return torch.__version__.split("+")[0], functions, methods, some_arguments


def aten_spellings(functions: Table, methods: Table) -> Table:
    """By exception kind, `torch.ops.aten.<op>[.<overload>]` -> the aten operator it calls, for the
    operators that raised on every sample and those tagged `data_dependent_output`."""
    import torch

    raising = {reader: kind for kind in ("value", "shape") for table in (functions, methods) for reader in table[kind].values()}
    for name in dir(torch.ops.aten):
        packet = getattr(torch.ops.aten, name, None)
        for overload in getattr(packet, "overloads", list)():
            if torch.Tag.data_dependent_output in getattr(packet, overload).tags:
                raising.setdefault(f"aten.{name}.{overload}", "value")
    spellings: Table = {"value": {}, "shape": {}}
    for operator, kind in raising.items():
        _, name, overload = operator.split(".")
        spellings[kind][f"torch.ops.aten.{name}.{overload}"] = operator
        others = [o for o in getattr(torch.ops.aten, name).overloads() if o != overload and not (o == "out" or o.endswith("_out"))]
        if not others:
            spellings[kind][f"torch.ops.aten.{name}"] = operator
    return spellings


def render(version: str, functions: Table, methods: Table, some_arguments: Table) -> str:
    aten = aten_spellings(functions, methods)

    def rows(table: dict[str, str]) -> str:
        return "".join(f'    "{name}": "{reader}",\n' for name, reader in sorted(table.items()))

    return f'''"""Generated by benchmarks/data_dependent_ops.py from torch {version}'s operator database; do not edit.

Operators whose every OpInfo sample, run under fake tensors as Dynamo runs it by default, reads
tensor values into Python ("Data dependent operator", GB0033) or gives an output whose shape
depends on tensor values ("Dynamic shape operator", GB0036), each with the aten operator that
raised; and the operators that raise on some samples only, where the arguments decide.
"""

TORCH_VERSION = "{version}"

# By name after `torch.` (`torch.cov`, `torch.nn.functional.gaussian_nll_loss`).
DATA_DEPENDENT_FUNCTIONS: dict[str, str] = {{
{rows(functions["value"])}}}

# By Tensor method name (`x.cov()`).
DATA_DEPENDENT_METHODS: dict[str, str] = {{
{rows(methods["value"])}}}

# GB0036, by name after `torch.` (`torch.nonzero`).
DYNAMIC_SHAPE_FUNCTIONS: dict[str, str] = {{
{rows(functions["shape"])}}}

# GB0036, by Tensor method name (`x.nonzero()`).
DYNAMIC_SHAPE_METHODS: dict[str, str] = {{
{rows(methods["shape"])}}}

# Operators that break on some samples only, by OpInfo name: their arguments decide, and a rule
# that reads the arguments reports them (tests/test_data_dependent_ops.py names it for each).
VALUE_READ_FOR_SOME_ARGUMENTS: dict[str, str] = {{
{rows(some_arguments["value"])}}}
SHAPE_FROM_DATA_FOR_SOME_ARGUMENTS: dict[str, str] = {{
{rows(some_arguments["shape"])}}}

# The aten operators themselves, by dotted name (`torch.ops.aten.equal.default`): GB0033 ...
DATA_DEPENDENT_ATEN_CALLS: dict[str, str] = {{
{rows(aten["value"])}}}
# ... and GB0036 (`torch.ops.aten.nonzero`).
DYNAMIC_SHAPE_ATEN_CALLS: dict[str, str] = {{
{rows(aten["shape"])}}}
'''


def main() -> int:
    return write_or_check(__doc__.splitlines()[0], TABLE, lambda: render(*build()))


if __name__ == "__main__":
    sys.exit(main())
