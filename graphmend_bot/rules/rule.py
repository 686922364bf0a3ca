"""What a rule is: its code, PyTorch graph-break id, documentation and fix strategies."""

from __future__ import annotations

from dataclasses import dataclass, field

from graphmend_bot.fences import code_block
from graphmend_bot.findings import Finding
from graphmend_bot.rules.advice import AdviceCase, advice_text
from graphmend_bot.rules.detect import Detection

GB_SITE = "https://meta-pytorch.github.io/compile-graph-break-site/gb/{}.html"

# The "why" shared by the branch family (GM1xx) and validation guards (GM201).
BRANCH_WHY = (
    "Converting a tensor to a Python bool forces TorchDynamo to know the tensor's value while "
    "tracing. It cannot, so it ends the graph, runs the branch eagerly (a device-to-host sync) "
    "and starts a new graph after it."
)

# The fix offered for a call Dynamo cannot trace inside a cached loader (GM601, GM602, GM604).
CACHED_LOADER_FIX = (
    "Inside a module-level function cached with `functools.lru_cache`/`cache` and called with Python "
    "values (a loader), `--unsafe-fixes` adds `@torch.compiler.assume_constant_result` under the "
    "cache: torch.compile calls the function while tracing and keeps its result, as the cache does. "
    "It assumes no caller passes a tensor or changes the result in place, and that what the function "
    "reads does not change while the process runs. "
)


@dataclass(frozen=True, kw_only=True)
class Rule:
    """One rule: everything `graphmend rule CODE` prints, where it looks, and what can fix it.

    `example` must be reported with this rule and `use_instead` must not be (the test suite runs
    both through the detector). `advice` is the `help:` line of a finding no fix is offered for.
    `fixes` names the fix strategies to try, in order, as modules of `graphmend_bot.rewrite` by
    family (`"branches.cond"`), a function of one (`"python_io.io:build_print_fix"`), or
    `graphmend_bot.rules.gm123_x:build_fix` for a fix in the rule's own module; the first that
    returns a Fix wins.
    """

    code: str
    name: str
    family: str
    gb_id: str
    summary: str  # "What it does"
    why: str  # "Why is this bad"
    example: str
    use_instead: str
    fix_safety: str
    # The one-line `help:` for a finding without a fix; `{code}` is the flagged text (rules/advice.py).
    advice: str
    # Findings that need other words than `advice` (the first case that applies wins).
    advice_cases: tuple[AdviceCase, ...] = field(default=(), compare=False)
    # Where the traversal asks this rule (hooks: not part of what makes two rules equal or hashable).
    detection: Detection = field(default_factory=Detection, compare=False)
    fixes: tuple[str, ...] = ()
    # The id Dynamo reports instead when the condition is a Python bool computed from tensor
    # values (`if torch.equal(a, b)`: GB0033, not GB0170).
    python_bool_gb_id: str | None = None
    # The other ids its findings carry, each measured on torch 2.13 (GM604: the callee's own id).
    # docs/coverage.md lists every id of torch's registry with the rules that report it.
    other_gb_ids: tuple[str, ...] = ()
    # With no `gb_id`: the reason Dynamo records at the finding's line when it is no registry id
    # (GM660's "step_unsupported", a compile reason), named by the documentation.
    break_reason: str = ""

    @property
    def gb_ids(self) -> tuple[str, ...]:
        """Every id a finding of this rule can carry."""
        ids = (self.gb_id, self.python_bool_gb_id or "", *self.other_gb_ids)
        return tuple(dict.fromkeys(gb for gb in ids if gb))

    @property
    def url(self) -> str:
        return gb_url(self.gb_id)

    def graph_break_id(self, python_bool: bool) -> str:
        """The id of the break this rule's finding causes; `python_bool`: see python_bool_gb_id."""
        return self.python_bool_gb_id if python_bool and self.python_bool_gb_id else self.gb_id

    def advice_for(self, finding: Finding) -> str:
        """The advice for one of this rule's findings, quoting the code it flags."""
        return advice_text(self.advice, self.advice_cases, finding)

    def documentation(self) -> str:
        return (
            f"# {self.name} ({self.code})\n\n"
            f"Family: {self.family}. "
            + (f"PyTorch graph break {self.gb_id}: {self.url}\n\n" if self.gb_id else
               f"PyTorch graph break: Dynamo's compile reason \"{self.break_reason}\", which has no id in the "
               f"registry ({self.url})\n\n" if self.break_reason else
               f"PyTorch graph break: the id Dynamo reports for each one ({self.url})\n\n")
            +
            f"## What it does\n{self.summary}\n\n"
            f"## Why is this bad\n{self.why}\n\n"
            f"## Example\n{code_block(self.example.strip(), 'python')}\n\n"
            f"## Use instead\n{code_block(self.use_instead.strip(), 'python')}\n\n"
            f"## Fix safety\n{self.fix_safety}\n"
        )


def gb_url(gb_id: str) -> str:
    """The id's page; the site's index for a break Dynamo gave no id."""
    return GB_SITE.format(gb_id.lower()) if gb_id else GB_SITE.rsplit("/gb/", 1)[0] + "/"
