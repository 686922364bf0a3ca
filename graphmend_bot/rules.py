"""The rule registry: stable codes, their PyTorch graph-break ids and their documentation.

Codes are grouped by family like ruff's: GM1xx branches, GM2xx validation guards, GM3xx scalar
extraction, GM4xx Python I/O, GM5xx data-dependent shapes, GM6xx code Dynamo cannot trace.
Graph-break ids come from torch/_dynamo/graph_break_registry.json and were measured on torch 2.13.
"""

from __future__ import annotations

from dataclasses import dataclass

GB_SITE = "https://meta-pytorch.github.io/compile-graph-break-site/gb/{}.html"


@dataclass(frozen=True)
class Rule:
    code: str
    name: str
    family: str
    gb_id: str
    summary: str
    why: str
    example: str
    use_instead: str
    fix_safety: str

    @property
    def url(self) -> str:
        return gb_url(self.gb_id)

    def documentation(self) -> str:
        return (
            f"# {self.name} ({self.code})\n\n"
            f"Family: {self.family}. PyTorch graph break {self.gb_id}: {self.url}\n\n"
            f"## What it does\n{self.summary}\n\n"
            f"## Why is this bad\n{self.why}\n\n"
            f"## Example\n```python\n{self.example.strip()}\n```\n\n"
            f"## Use instead\n```python\n{self.use_instead.strip()}\n```\n\n"
            f"## Fix safety\n{self.fix_safety}\n"
        )


def gb_url(gb_id: str) -> str:
    return GB_SITE.format(gb_id.lower())


_BRANCH_WHY = (
    "Converting a tensor to a Python bool forces TorchDynamo to know the tensor's value while "
    "tracing. It cannot, so it ends the graph, runs the branch eagerly (a device-to-host sync) "
    "and starts a new graph after it."
)

RULES: tuple[Rule, ...] = (
    Rule(
        "GM101", "data-dependent-if", "data-dependent branch", "GB0170",
        "Flags an `if`/`elif` (or comprehension filter) whose condition depends on a tensor's "
        "values, such as `x.sum() > 0` or `torch.isnan(x).any()`.",
        _BRANCH_WHY,
        """
def forward(self, x):
    if x.sum() > 0:
        x = x * 2
    return x
""",
        """
def forward(self, x):
    x = torch.where(x.sum() > 0, x * 2, x)
    return x
""",
        "`torch.where` evaluates both arms. The fix is safe when both arms are pure elementwise "
        "expressions of the same tensors (so shape and dtype provably match) and none uses an "
        "operator whose backward can be inf/NaN (sqrt, log, division by a tensor, non-integer "
        "powers, exp overflow): the unselected arm's gradient would be 0 * inf = NaN, so such "
        "fixes are unsafe rather than masked with a second `torch.where`. Fixes that rely on an "
        "assumption (dtypes, hoisted preparation as in the LongRoPE fix) are unsafe and say which. "
        "Arms that call modules become `torch.cond`, always unsafe.",
    ),
    Rule(
        "GM102", "data-dependent-ternary", "data-dependent branch", "GB0170",
        "Flags a conditional expression `a if cond else b` whose condition depends on a tensor's "
        "values.",
        _BRANCH_WHY,
        "y = x + 1 if x.mean() > 0 else x - 1",
        "y = torch.where(x.mean() > 0, x + 1, x - 1)",
        "Same as GM101: `torch.where` evaluates both arms, so it is safe only for pure arms.",
    ),
    Rule(
        "GM103", "data-dependent-bool-op", "data-dependent branch", "GB0170",
        "Flags `and`, `or` and `not` applied to a tensor outside an `if` test: each converts "
        "the tensor to a Python bool.",
        _BRANCH_WHY,
        "keep = (x > 0).any() and flag",
        "keep = torch.logical_and((x > 0).any(), flag)",
        "Lowering to `torch.logical_*` is safe when every operand is a tensor or a Python bool.",
    ),
    Rule(
        "GM104", "data-dependent-while", "data-dependent branch", "GB0170",
        "Flags a `while` loop whose condition depends on a tensor's values.",
        _BRANCH_WHY + " A loop breaks the graph on every iteration.",
        """
while x.norm() > 1:
    x = x / 2
""",
        """
# Compute the trip count without a data-dependent loop, or move the loop out of the
# compiled region; torch._higher_order_ops.while_loop covers loops with static shapes.
""",
        "No automatic fix: a loop's trip count changes what it computes.",
    ),
    Rule(
        "GM105", "data-dependent-operator", "data-dependent branch", "GB0033",
        "Flags operators whose Python result depends on tensor values, such as `torch.equal` "
        "and `torch.allclose`.",
        "These return a Python bool computed from the data, which TorchDynamo cannot trace.",
        "if torch.equal(a, b): ...",
        "same = (a == b).all()  # stays a tensor",
        "No automatic fix outside validation guards (GM201).",
    ),
    Rule(
        "GM201", "tensor-validation-guard", "validation guard", "GB0170",
        "Flags `if <tensor condition>: raise ...`, a value check that aborts on bad data.",
        _BRANCH_WHY + " Validation guards are common at the top of `forward`, so one check can "
        "split every call of the model.",
        """
if torch.isnan(x).any():
    raise ValueError("NaN in input")
""",
        """
torch._assert_async(~torch.isnan(x).any(), "NaN in input")
""",
        "`torch._assert_async` keeps the check and its message (prefixed with the original "
        "exception type's name) but raises RuntimeError instead of that type: synchronously on "
        "CPU, at the next synchronisation on CUDA. Always unsafe: callers catching the original "
        "exception no longer catch it. `torch.equal` guards keep a static shape check that still "
        "raises the original type.",
    ),
    Rule(
        "GM301", "tensor-item", "scalar extraction", "GB0124",
        "Flags `Tensor.item()` in traced code.",
        "`.item()` copies a value to the host. Without `capture_scalar_outputs` TorchDynamo "
        "breaks the graph to run it eagerly.",
        "scale = x.abs().max().item()\ny = x / scale",
        "scale = x.abs().max()\ny = x / scale",
        "Keeping the value a tensor is safe when it only feeds tensor arithmetic and type "
        "promotion is unchanged; otherwise set `torch._dynamo.config.capture_scalar_outputs`.",
    ),
    Rule(
        "GM302", "tensor-to-python-scalar", "scalar extraction", "GB0124",
        "Flags `int(t)`, `float(t)` and `bool(t)` on a tensor in traced code, and tensors used "
        "where Python ints are needed: sizes (`torch.linspace(0, 1, n)`, `x.view(b, h, w)`) and "
        "slice bounds.",
        "These call `.item()` under the hood, with the same graph break.",
        "n = int(lengths.max())",
        "n = lengths.max()  # keep it a tensor while it only feeds tensor arithmetic",
        "`int(t)`/`float(t)`: as GM301. Sizes read by iterating a tensor built from a Python list "
        "(`torch.as_tensor(shapes_list)`): the caller passes the list instead, when the list "
        "provably holds those ints and the sizes are used only where a Python int and a 0-d "
        "tensor give the same result. Unsafe: a subclass may override the method with one that "
        "needs the tensor; the message states this and any other assumption.",
    ),
    Rule(
        "GM303", "tensor-tolist", "scalar extraction", "GB0109",
        "Flags `Tensor.tolist()` in traced code.",
        "A Python list of a tensor's values cannot exist in a graph, so TorchDynamo breaks.",
        "for n in lengths.tolist(): ...",
        "# Keep the values in a tensor, or move the loop out of the compiled region.",
        "No automatic fix.",
    ),
    Rule(
        "GM401", "print-in-traced-code", "Python I/O", "GB0059",
        "Flags `print(...)` in traced code.",
        "`print` is a Python side effect; TorchDynamo breaks the graph to run it (GB0296 when an "
        "argument is not a tensor, constant or format string).",
        "print('shape', x.shape)",
        "if not torch.compiler.is_compiling():\n    print('shape', x.shape)",
        "Guarding with `torch.compiler.is_compiling()` keeps eager behaviour and skips the message "
        "under compile; deferring keeps the message and prints it after the graph. Both are safe.",
    ),
    Rule(
        "GM402", "logger-in-traced-code", "Python I/O", "GB0291",
        "Flags logger calls (`logger.warning`, `logger.info`, `logger.warning_once`, "
        "`logging.warning`, ...) in traced code.",
        "Bound `logging.Logger` methods are not traceable; TorchDynamo breaks the graph for each.",
        "logger.warning('falling back to eager attention')",
        "if not torch.compiler.is_compiling():\n    logger.warning('falling back to eager attention')",
        "Same as GM401.",
    ),
    Rule(
        "GM403", "warnings-warn-in-traced-code", "Python I/O", "GB0007",
        "Flags `warnings.warn(...)` in traced code.",
        "`warnings.warn` is marked as skipped by TorchDynamo, which breaks the graph to call it.",
        "warnings.warn('deprecated argument')",
        "if not torch.compiler.is_compiling():\n    warnings.warn('deprecated argument')",
        "Same as GM401.",
    ),
    Rule(
        "GM501", "dynamic-shape-operator", "data-dependent shape", "GB0036",
        "Flags operators whose output shape depends on tensor values: `nonzero`, one-argument "
        "`torch.where`, `unique`, `masked_select`, `argwhere`.",
        "Without `capture_dynamic_output_shape_ops` TorchDynamo cannot give the output a shape "
        "and breaks the graph.",
        "idx = torch.nonzero(mask)",
        "# Keep a dense formulation: torch.where(mask, x, 0), or set\n"
        "# torch._dynamo.config.capture_dynamic_output_shape_ops = True",
        "No automatic fix: a dense formulation changes shapes downstream.",
    ),
    Rule(
        "GM502", "boolean-mask-indexing", "data-dependent shape", "GB0036",
        "Flags indexing a tensor with a boolean mask, `x[mask]`.",
        "The result's length is the number of True values, known only at run time.",
        "y = x[x > 0]",
        "y = torch.where(x > 0, x, 0)  # same shape; or reduce with a masked sum",
        "No automatic fix.",
    ),
    Rule(
        "GM503", "data-dependent-repeat", "data-dependent shape", "GB0036",
        "Flags `repeat_interleave` with tensor repeats.",
        "The output length is the sum of the repeats, a value known only at run time.",
        "y = x.repeat_interleave(counts)",
        "y = x.repeat_interleave(counts, output_size=total)  # when the total is static",
        "No automatic fix.",
    ),
    Rule(
        "GM601", "serialization-in-traced-code", "not traceable", "GB0156",
        "Flags `torch.save` and `torch.load` in traced code.",
        "Serialization does file I/O that TorchDynamo cannot trace.",
        "torch.save(activations, 'debug.pt')",
        "# Split the compiled region: return the tensor and save it outside torch.compile.",
        "No automatic fix.",
    ),
    Rule(
        "GM602", "file-io-in-traced-code", "not traceable", "GB0059",
        "Flags `open(...)` in traced code.",
        "File I/O is a Python side effect TorchDynamo cannot trace.",
        "with open('log.txt', 'a') as f: f.write(str(loss))",
        "# Move the I/O outside the compiled function.",
        "No automatic fix.",
    ),
    Rule(
        "GM603", "explicit-graph-break", "not traceable", "GB0025",
        "Flags `torch._dynamo.graph_break()`.",
        "It asks for a graph break; usually a leftover from debugging.",
        "torch._dynamo.graph_break()",
        "# Remove the call.",
        "No automatic fix: the break may be intentional.",
    ),
    Rule(
        "GM604", "untraceable-call", "not traceable", "GB0007",
        "Flags calls TorchDynamo skips, such as `time.time()` / `time.perf_counter()`, in traced code.",
        "Dynamo cannot trace these C functions: it ends the graph, calls them eagerly and starts a new graph (measured on torch 2.13).",
        "start = time.perf_counter()\ny = model(x)",
        "# Time outside the compiled region, or guard it:\nif not torch.compiler.is_compiling():\n    start = time.perf_counter()",
        "No automatic fix.",
    ),
)

RULES_BY_CODE: dict[str, Rule] = {rule.code: rule for rule in RULES}


def rule_for(code: str) -> Rule:
    return RULES_BY_CODE[code]


def select_codes(select: list[str] | None, ignore: list[str] | None) -> frozenset[str]:
    """Codes enabled by ruff-style prefixes: `GM1` selects the family, `GM101` one rule."""
    chosen = {
        rule.code
        for rule in RULES
        if not select or any(rule.code.startswith(prefix) for prefix in select)
    }
    for prefix in ignore or []:
        chosen = {code for code in chosen if not code.startswith(prefix)}
    return frozenset(chosen)
