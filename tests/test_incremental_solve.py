"""The last solved result, reused after an edit it cannot see (analysis/incremental.py), is the
result a solve from scratch gives: for every edit in the table, finding for finding and error for
error. The table holds the edits the reuse must refuse (breaks added and removed across files,
signatures, renames, files added and removed, configuration) and the ones it takes, next to
their near misses (a new helper another file calls, an untraced caller passing a tensor, a
suppression on a row the solve read)."""

import json
import textwrap
from pathlib import Path

import pytest

from graphmend_bot.analysis.summary_cache import SummaryCache
from graphmend_bot.config import Config
from graphmend_bot.engine import Workspace, check

NET = """
    import torch
    from torch import nn

    from .flags import is_compiling
    from .utils import _planned, dispatch, helper, scaled, slow_path


    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.proj = nn.Linear(4, 4)

        def forward(self, x, limit: float = 1.0):
            y = helper(self.proj(x), limit)
            slow_path(y)  # a call of a disabled function: GM620 reads this row
            y = _planned(y, limit)  # no such function yet
            y = dispatch(y, "double")
            if not is_compiling():
                print("eager only")
            return scaled(y, 2)
"""

UTILS = """
    import torch


    def helper(x, limit):
        return x * 2


    def scaled(x, factor):
        if x.sum() > 0:
            x = x * factor
        return x


    @torch.compiler.disable
    def slow_path(x):
        return x



    def _unused(x):
        return x + 1


    HANDLERS = {"double": helper}


    def dispatch(x, name):
        return HANDLERS[name](x, 1.0)


    def _noisy(x, limit):
        if x.max() > limit:
            print("high")
        return x
"""

SCRIPT = """
    import json


    def convert(path):
        return json.load(open(path))
"""

STEPS = """
    import torch


    def _clip(x):
        return x


    @torch.compile
    def step(x, t: int):
        if t > 3:
            print("late")
        return _clip(x)
"""

FLAGS = """
    import torch


    def is_compiling():
        return torch.compiler.is_compiling()
"""

BLOCKS = """
    import torch
    from torch import nn

    from .utils import scaled


    class Solver:
        def __init__(self, y0):
            self.y0 = y0

        def integrate(self, t):
            y = self.y0 * t
            if y.sum() > 0:
                y = y - 1
            return y


    class Calm:
        def __init__(self, y0):
            self.y0 = y0

        def run(self, t):
            return self.y0 * t


    def shift(x, offset: int = 0):
        if offset > 2:  # GM101 once a caller passes a tensor
            print("far")
        return x + offset


    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.scale = nn.Parameter(torch.ones(4))
            self.steps = 2

        def forward(self, x, t):
            y = x * self.scale
            y = self._inner(y)
            y = Solver(y).integrate(t)  # GM605: a breaking call on an object built here
            y = Calm(y).run(t)  # GM605 once run breaks
            return scaled(shift(y), self.steps)

        def _inner(self, y):
            z = y.relu()
            print('inner')
            if z.max() > 1:
                z = z - 1
            return z * 2


    class Head(nn.Module):
        def forward(self, x):
            return x.softmax(-1)


    class Model(nn.Module):
        def __init__(self):
            super().__init__()
            self.head = Head()

        def forward(self, x):
            return self.head(x) + 1


    def _tail(x):
        return x
"""

CONTRACT = """
    from torch import nn


    class Base(nn.Module):
        def __init__(self, noise):
            super().__init__()
            self.noise = noise


    class WithMethods(Base):
        def __init__(self, noise):
            super().__init__(noise)
            self.step = {"diagonal": self.step_diagonal}.get(noise, self.zero)

        def step_diagonal(self, y):
            return y * 2

        def zero(self, y):
            return y * 0


    class Contract(nn.Module):
        def forward(self, x):
            y = x + 1
            if y.sum() > 0:
                y = y - 1
            sde = WithMethods("diagonal")  # a break after this makes the frame eager (held_objects.py)
            return sde.step(y)
"""

METACLASS = """
    import torch


    class Meta(type):
        def __call__(cls, *args, **kwargs):
            return super().__call__(*args, **kwargs)  # GM610: an eager frame builds Solver


    class Solver(metaclass=Meta):
        def __init__(self, y):
            self.y = y


    class Log:
        def __init__(self, *parts):
            print("parts", len(parts))
            self.parts = parts


    class Probe(torch.nn.Module):
        def forward(self, x):
            y = x + 1
            log = Log(*(y * s for s in (1.0, 2.0)))
            return Solver(y).y + log.parts[0]
"""

DROP = """
    import torch
    from torch import nn


    class Drop(nn.Module):
        def forward(self, x):
            skip = False
            if self.training:
                skip = torch.rand([]) < 0.5
            if not skip or self.synced(x):  # the solve finds a tensor in every mode: no mode named
                x = x + 1
            print("drop")
            return x

        def synced(self, x):
            return x.sum() > 0
"""

LOOPS = """
    import torch
    from torch import nn


    def _scale(x):
        return x * 2


    def _step(x):
        return _scale(x)


    def _last(x):
        return x + 1


    def _trim(x):
        if x[0] > 0:
            x = x - 1
        return x


    class Quiet(nn.Module):
        def __init__(self, scale):
            super().__init__()
            self.scale = scale * 2


    class Loop(nn.Module):
        def forward(self, x):
            quiet = Quiet(x)  # GM606 once Quiet.__init__ breaks
            order = [1.0, 2.0]
            for _ in range(2):
                x = _step(x)  # a break in _step skips this frame: GM611 below
            ys = [x * w for w in order]
            return _trim(_last(ys[0])) + quiet.scale
"""

POINTERS = """
    import torch
    from torch import nn


    class Pointers(nn.Module):
        def _pointers(self, x):
            tokens = []
            tokens.append(x * 2)
            return len(tokens), tokens

        def forward(self, x):
            count, tokens = self._pointers(x)
            if tokens:  # a returned list's length: no finding (Draft.length_tested)
                x = x + torch.stack(tokens).sum(0)
            return x
"""

MANAGERS = """
    from torch import nn


    class Chatty:
        def __init__(self, name, verbose=False):
            self.name = name
            if verbose:
                print("entering", name)

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            return False


    class Quietly(nn.Module):
        def forward(self, x):
            x = x * 2
            with Chatty("quiet"):  # breaks only once the constructor breaks outside `if verbose:` (GM684)
                x = x - 1
            return x * 3
"""

SEEDING = """
    import contextlib

    import torch
    from torch import nn


    @contextlib.contextmanager
    def seeded(seed):
        state = torch.random.get_rng_state()  # the generator's first break: it runs eagerly after it
        torch.manual_seed(seed)
        yield
        torch.random.set_rng_state(state)


    class Noisy(nn.Module):
        def forward(self, x):
            with seeded(3):
                x = x + torch.randn(3)
            return x


    def moments(x):
        yield x.sum().item()  # the generator's first break
        yield x.max().item()


    class Summed(nn.Module):
        def forward(self, x):
            total = 0.0
            for value in moments(x):
                total += value
            return x + total
"""

MAPS = """
    import torch.utils._pytree as pytree
    from torch import nn


    def flexi_map(f, tree, inplace=False):
        tm = pytree.tree_map_ if inplace else pytree.tree_map
        return tm(f, tree)


    class Mapper(nn.Module):
        def forward(self, x):
            def leaf(t):
                print("leaf")
                return t * 2

            return flexi_map(leaf, {"a": x})["a"]
"""

PROJECT = {"pkg/__init__.py": "", "pkg/maps.py": MAPS, "pkg/seeding.py": SEEDING, "pkg/managers.py": MANAGERS, "pkg/pointers.py": POINTERS, "pkg/loops.py": LOOPS, "pkg/drop.py": DROP, "pkg/contract.py": CONTRACT, "pkg/metaclass.py": METACLASS, "pkg/net.py": NET, "pkg/flags.py": FLAGS, "pkg/steps.py": STEPS, "pkg/utils.py": UTILS,
           "pkg/blocks.py": BLOCKS, "tools/convert.py": SCRIPT}

NEW_HELPER = """

def _fresh_helper(x, limit):
    if x.min() < -limit:
        print("out of range")
    return x
"""


def _append(text):
    return lambda old: old + textwrap.dedent(text)


def _replace(before, after):
    def edit(old):
        assert before in old
        return old.replace(before, after)
    return edit


# (name, {path: edit of the text, or None to delete}, config changes, taken incrementally)
EDITS = [
    ("a print beside a condition whose mode a local brings and another operand drops",
     {"pkg/drop.py": _replace('print("drop")', 'print("drop")\n        print("again")')}, {}, True),
    ("add a break in a helper another file calls (no pass asks whether it breaks: redraft.py)",
     {"pkg/utils.py": _replace("    return x * 2", "    if x.min() < -limit:\n        print('low')\n    return x * 2")},
     {}, True),
    ("remove a break", {"pkg/utils.py": _replace("    if x.sum() > 0:\n        x = x * factor\n", "")}, {}, False),
    ("change a signature", {"pkg/utils.py": _replace("def scaled(x, factor):", "def scaled(factor, x):")}, {}, False),
    ("rename a traced function", {"pkg/utils.py": _replace("def scaled(", "def rescaled(")}, {}, False),
    ("delete a traced function",
     {"pkg/utils.py": _replace("def helper(x, limit):\n    return x * 2\n", "")}, {}, False),
    ("rename an unused function", {"pkg/utils.py": _replace("def _unused(", "def _still_unused(")}, {}, True),
    ("delete an unused function above traced ones (their rows move)",
     {"pkg/utils.py": _replace("def _unused(x):\n    return x + 1\n", "")}, {}, True),
    ("add an unused helper above traced ones (their rows move)",
     {"pkg/utils.py": lambda old: NEW_HELPER + "\n\n" + old}, {}, True),
    ("delete the last function, unused",
     {"pkg/utils.py": lambda old: old[:old.index("def _noisy(")]}, {}, True),
    ("add an unused helper with a break", {"pkg/utils.py": _append(NEW_HELPER)}, {}, True),
    ("add a helper and call it from another file",
     {"pkg/utils.py": _append(NEW_HELPER),
      "pkg/net.py": _replace("        return scaled(y, 2)", "        from .utils import _fresh_helper\n"
                                                            "        return _fresh_helper(scaled(y, 2), limit)")},
     {}, False),
    ("add a helper a traced function of its file calls",
     {"pkg/utils.py": lambda old: _replace("    return x * 2", "    return _fresh_helper(x * 2, limit)")(
         _append(NEW_HELPER)(old))},
     {}, False),
    ("an untraced function passes a tensor to a hinted parameter",
     {"pkg/steps.py": _append("\n\ndef _drive(x):\n    return step(x, torch.ones(1))\n")}, {}, False),
    ("a new def shadows an import",
     {"pkg/net.py": _append("\n\ndef helper(x, limit):\n    if x.max() > limit:\n        print('high')\n    return x\n")},
     {}, False),
    ("add a compiled function",
     {"pkg/utils.py": _append("\n\n@torch.compile\ndef _compiled(x):\n    if x.sum() > 0:\n        print('+')\n    return x\n")},
     {}, False),
    ("add a function an entry point names",
     {"pkg/utils.py": _append(NEW_HELPER)}, {"entry_points": ["pkg.utils:_fresh*"]}, False),
    ("define a name another file imports and calls",
     {"pkg/utils.py": _append(NEW_HELPER.replace("def _fresh_helper(", "def _planned("))},
     {}, False),
    ("point an import at another function",
     {"pkg/net.py": _replace("dispatch, helper,", "dispatch, _noisy as helper,")}, {}, False),
    ("add a function to a registry a traced function calls through",
     {"pkg/utils.py": _replace('{"double": helper}', '{"double": helper, "noisy": _noisy}')}, {}, False),
    ("stop compiling a function", {"pkg/steps.py": _replace("@torch.compile\ndef step(", "def step(")}, {}, False),
    ("add a method", {"pkg/net.py": _append("\n    def extra(self, x):\n        return x.item()\n")}, {}, False),
    ("edit a file nothing imports", {"tools/convert.py": _append("\n\ndef other():\n    return 1\n")}, {}, True),
    # Whether every call passes a parameter a tensor decides the safety of its fixes (caller_arguments.py).
    ("an untraced function passes a numpy array to a traced helper's condition",
     {"pkg/utils.py": _replace("def _unused(x):\n    return x + 1\n", "def _unused(x):\n    return scaled(x.numpy(), 2)\n")},
     {}, False),
    ("a file nothing summarises imports a traced helper",
     {"tools/convert.py": lambda old: "from pkg.utils import scaled\n" + old}, {}, False),
    ("an unknown suppression code in an unused function",
     {"pkg/utils.py": _replace("    return x + 1", "    return x + 1  # graphmend: ignore[GM999]")}, {}, True),
    ("suppress GM620 on the row the solve read",
     {"pkg/net.py": _replace("slow_path(y)  # a call", "slow_path(y)  # graphmend: ignore[GM620] a call")}, {}, False),
    ("change a guard helper another module's summary judged",
     {"pkg/flags.py": _replace("return torch.compiler.is_compiling()", "return False")}, {}, False),
    ("add a nested function a traced call then finds first",
     {"pkg/steps.py": _replace("    return _clip(x)\n", "    return _clip(x)\n\n    def _clip(x):\n"
                                                        "        if x.max() > 0:\n            print('clipped')\n"
                                                        "        return x\n")},
     {}, False),
    ("add a file", {"pkg/extra.py": lambda old: "def more(x):\n    return x\n"}, {}, False),
    ("remove a file", {"tools/convert.py": None}, {}, False),
    ("change the config", {}, {"ignore": ["GM101"]}, False),
    # Edits of traced code (analysis/redraft.py): taken when only what its findings are changed.
    ("a print in a traced forward that breaks already",
     {"pkg/blocks.py": _replace("        y = x * self.scale\n", "        y = x * self.scale\n        print('scaled')\n")},
     {}, True),
    ("a new break in a traced method that breaks already",
     {"pkg/blocks.py": _replace("        return z * 2", "        n = z.sum().item()\n        return z * n")}, {}, True),
    ("rows moved above traced code",
     {"pkg/blocks.py": lambda old: "# a comment\n\n\n" + old}, {}, True),
    ("a comment inside traced code", {"pkg/blocks.py": _replace("        z = y.relu()", "        z = y.relu()  # why")},
     {}, True),
    ("a new local computation on no tensor in a traced method",
     {"pkg/blocks.py": _replace("        z = y.relu()\n", "        label = str(1 + 2)\n        z = y.relu()\n")},
     {}, True),
    ("a break removed from a method that still breaks",
     {"pkg/blocks.py": _replace("        print('inner')\n", "")}, {}, True),
    ("a print in traced code and a new unused helper in another file",
     {"pkg/blocks.py": _replace("        y = x * self.scale\n", "        y = x * self.scale\n        print('scaled')\n"),
      "pkg/utils.py": _append(NEW_HELPER)}, {}, True),
    ("a print in a forward that did not break (its caller now breaks through it, which no pass asks)",
     {"pkg/blocks.py": _replace("        return x.softmax(-1)", "        print('head')\n        return x.softmax(-1)")},
     {}, True),
    ("an .item() in a forward that did not break",
     {"pkg/blocks.py": _replace("        return x.softmax(-1)", "        n = x.sum().item()\n        return x.softmax(-1) * n")},
     {}, True),
    ("an .item() in a method that did not break, called on an object built in traced code (GM605)",
     {"pkg/blocks.py": _replace("        return self.y0 * t", "        n = self.y0.sum().item()\n        return self.y0 * t * n")},
     {}, False),
    ("an .item() in a helper called in a loop (the frame is skipped: GM611 on a later comprehension)",
     {"pkg/loops.py": _replace("    return _scale(x)", "    n = x.sum().item()\n    return _scale(x) * n")},
     {}, False),
    ("an .item() in a callee of a helper called in a loop (GM611)",
     {"pkg/loops.py": _replace("    return x * 2", "    n = x.sum().item()\n    return x * n")},
     {}, False),
    ("a print in the __init__ of a module built in traced code (GM606)",
     {"pkg/loops.py": _replace("        self.scale = scale * 2", "        print('built')\n        self.scale = scale * 2")},
     {}, False),
    ("an .item() in a helper called after the loop (no pass asks whether it breaks)",
     {"pkg/loops.py": _replace("    return x + 1", "    n = x.sum().item()\n    return x + n")},
     {}, True),
    ("the last own break of a helper removed (no pass asks whether it breaks)",
     {"pkg/loops.py": _replace("    if x[0] > 0:", "    if 0 > 0:")}, {}, True),
    ("the only own break of a method removed",
     {"pkg/blocks.py": _replace("        if y.sum() > 0:\n            y = y - 1\n", "")}, {}, False),
    ("a changed return tensor-ness",
     {"pkg/blocks.py": _replace("        return z * 2", "        return 2")}, {}, False),
    ("a new call from forward to a helper",
     {"pkg/blocks.py": _replace("        return scaled(shift(y), self.steps)", "        return scaled(_tail(y), self.steps)")},
     {}, False),
    ("an added self.attr write in traced code",
     {"pkg/blocks.py": _replace("        y = x * self.scale\n", "        y = x * self.scale\n        self.last = y\n")},
     {}, False),
    ("an edited decorator on a traced method",
     {"pkg/blocks.py": _replace("    def _inner(self, y):", "    @torch.no_grad()\n    def _inner(self, y):")},
     {}, False),
    ("a new nested def in traced code",
     {"pkg/blocks.py": _replace("        z = y.relu()\n", "        def twice(v):\n            return v * 2\n\n"
                                                           "        z = twice(y).relu()\n")},
     {}, False),
    ("a new break on module state the solve was not asked about",
     {"pkg/blocks.py": _replace("        z = y.relu()\n", "        if self.scale[0].item() > 0:\n            y = y + 1\n"
                                                           "        z = y.relu()\n")},
     {}, False),
    ("a print in a method that did not break (a call of it then cannot resume: GM605)",
     {"pkg/blocks.py": _replace("        return self.y0 * t", "        print('run')\n        return self.y0 * t")},
     {}, False),
    ("an untraced function passes a tensor to a traced function's hinted parameter",
     {"pkg/blocks.py": _replace("def _tail(x):\n    return x", "def _tail(x):\n    return shift(x, x.sum())")},
     {}, False),
    ("a break after building an object that holds its bound methods (its construction runs eagerly)",
     {"pkg/contract.py": _replace("        return sde.step(y)", "        print('late')\n        return sde.step(y)")},
     {}, False),
    ("a print in a traced function of a file whose findings include an untraced metaclass __call__'s",
     {"pkg/metaclass.py": _replace('        print("parts", len(parts))\n',
                                   '        print("parts", len(parts))\n        print("more")\n')},
     {}, True),
    ("a break before building that object (refused too: the rows of its breaks are read)",
     {"pkg/contract.py": _replace("        y = x + 1\n", "        y = x + 1\n        print('early')\n")},
     {}, False),
    ("a print in traced code of a file that tests a returned list's length (whose callees return collections is no fact kept)",
     {"pkg/pointers.py": _replace("        return x\n", "        print('pointers')\n        return x\n")},
     {}, False),
    ("a print after an `if verbose:` of a manager's constructor (GM684 reads the rows of its breaks)",
     {"pkg/managers.py": _replace('            print("entering", name)\n',
                                  '            print("entering", name)\n        print("built")\n')},
     {}, False),
    # forwarded_callbacks.py: what a helper hands on is a summary field, no text the solve reads
    ("an unused helper added to the module of a helper forwarding a closure to a pytree map",
     {"pkg/maps.py": _append(NEW_HELPER)}, {}, True),
    ("the helper stops forwarding its parameter (the closure is no longer traced)",
     {"pkg/maps.py": _replace("    return tm(f, tree)", "    return tree")}, {}, False),
    # generator_breaks.py: a generator's findings after its first break are dropped by the redraft too
    ("a second break in a generator's step after its first break (not reported)",
     {"pkg/seeding.py": _replace("    yield x.max().item()", "    yield x.max().item() + x.min().item()")}, {}, True),
    ("a generator's first break removed in place (the next one is reported)",
     {"pkg/seeding.py": _replace("    yield x.sum().item()", "    yield x.sum()")}, {}, True),
    ("a statement added to a generator (its steps move: a solve)",
     {"pkg/seeding.py": _replace("    yield\n", "    yield\n    print('restored')\n")}, {}, False),
    ("a print in traced code of a file whose row the solve read (GM620)",
     {"pkg/net.py": _replace("        y = dispatch(", "        print('net')\n        y = dispatch(")}, {}, False),
    ("a print in traced code, a break in a new untraced function of the same file",
     {"pkg/blocks.py": lambda old: _replace("        y = x * self.scale\n",
                                            "        y = x * self.scale\n        print('scaled')\n")(old)
      + "\n\ndef _loose(x):\n    return x.item()\n"},
     {}, True),
    ("a print in traced code, an unused function removed from the same file",
     {"pkg/blocks.py": lambda old: _replace("        y = x * self.scale\n",
                                            "        y = x * self.scale\n        print('scaled')\n")(old)
      .replace("def _tail(x):\n    return x\n", "")},
     {}, True),
    ("a print in traced code, a new function of the same file that traced code calls",
     {"pkg/blocks.py": lambda old: _replace("        y = self._inner(y)\n",
                                            "        print('scaled')\n        y = _loose(self._inner(y))\n")(old)
      + "\n\ndef _loose(x):\n    return x.item()\n"},
     {}, False),
    ("a print in traced code, a new function of the same file that another file calls",
     {"pkg/blocks.py": lambda old: _replace("        y = x * self.scale\n",
                                            "        y = x * self.scale\n        print('scaled')\n")(old)
      + "\n\ndef _planned(x, limit):\n    return x.item()\n",
      "pkg/net.py": _replace("from .utils import _planned, ", "from .blocks import _planned\nfrom .utils import ")},
     {}, False),
]


def _write(root, files):
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")


def _apply(root, edits):
    for name, edit in edits.items():
        path = root / name
        if edit is None:
            path.unlink()
        else:
            path.write_text(edit(path.read_text("utf-8") if path.exists() else ""), encoding="utf-8")


def _warm(root, config, cache):
    workspace = Workspace([str(root)], config, jobs=1, cache=cache, whole_result=True)
    return workspace.cached_check(), workspace.solved_by


def _facts(result):
    return ([(f.path, f.code, f.message, f.location, f.end_location, f.symbol, f.source_line, f.occurrence,
              f.frequency, f.unproven_parameters)
             for f in result.findings], result.errors, result.files_checked)


@pytest.mark.parametrize(("name", "edits", "settings", "incremental"), EDITS, ids=[edit[0] for edit in EDITS])
def test_warm_after_an_edit_equals_cold(tmp_path, name, edits, settings, incremental):
    root = tmp_path / "project"
    _write(root, PROJECT)
    cache = SummaryCache(tmp_path / "cache")
    before, how = _warm(root, Config(), cache)  # the solve that leaves its state
    assert how == "solve" and before.findings
    _apply(root, edits)
    config = Config(**settings)
    after, how = _warm(root, config, cache)
    assert _facts(after) == _facts(check([str(root)], config, jobs=1)), name
    assert (how == "incremental") == incremental, how
    assert _facts(_warm(root, config, cache)[0]) == _facts(after)  # and what it stored reads back


HEAD_ITEM = _replace("        return x.softmax(-1)", "        n = x.sum().item()\n        return x.softmax(-1) * n")
HEAD_PLAIN = _replace("        n = x.sum().item()\n        return x.softmax(-1) * n", "        return x.softmax(-1) * 2")
HEAD_ITEM_AGAIN = _replace("        return x.softmax(-1)", "        m = x.mean().item()\n        return x.softmax(-1) * m")


@pytest.mark.parametrize("steps", [
    # a function no pass asks about starts, stops and starts breaking again, each from the last state
    [({"pkg/blocks.py": HEAD_ITEM}, True), ({"pkg/blocks.py": HEAD_PLAIN}, True),
     ({"pkg/blocks.py": HEAD_ITEM_AGAIN}, True)],
    # after such an edit, one a pass asks about still means a solve
    [({"pkg/loops.py": _replace("    return x + 1", "    n = x.sum().item()\n    return x + n")}, True),
     ({"pkg/loops.py": _replace("    return _scale(x)", "    n = x.sum().item()\n    return _scale(x) * n")}, False)],
], ids=["start-stop-start", "then-asked"])
def test_edits_in_a_row_equal_cold(tmp_path, steps):
    """Each edit judged against the state the last run left (its facts are the last solve's)."""
    root = tmp_path / "project"
    _write(root, PROJECT)
    cache = SummaryCache(tmp_path / "cache")
    _warm(root, Config(), cache)
    for edits, incremental in steps:
        _apply(root, edits)
        after, how = _warm(root, Config(), cache)
        assert _facts(after) == _facts(check([str(root)], Config(), jobs=1))
        assert (how == "incremental") == incremental, how


def test_the_reused_result_is_the_edited_trees_own(tmp_path):
    """An unused helper with a break reports nothing (nothing traces it), and the suppression
    warning of an edited file is its new one."""
    root = tmp_path / "project"
    _write(root, PROJECT)
    cache = SummaryCache(tmp_path / "cache")
    _warm(root, Config(), cache)
    utils = root / "pkg/utils.py"
    utils.write_text(utils.read_text() + NEW_HELPER.replace("print(", "print(  # graphmend: ignore[GM998]\n        "))
    after, how = _warm(root, Config(), cache)
    assert how == "incremental"
    assert not any("_fresh_helper" in f.symbol for f in after.findings)
    row = next(n for n, line in enumerate(utils.read_text().splitlines(), 1) if "GM998" in line)
    assert [e.message.split(":")[0] for e in after.errors if e.path.endswith("utils.py")] == [f"line {row}"]
    assert _facts(after) == _facts(check([str(root)], Config(), jobs=1))


@pytest.mark.parametrize("damage", [b"", b"not json", b"[1]", "forged"])
def test_a_damaged_or_forged_state_means_a_solve(tmp_path, damage):
    root = tmp_path / "project"
    _write(root, PROJECT)
    cache = SummaryCache(tmp_path / "cache")
    _warm(root, Config(), cache)
    (state,) = (tmp_path / "cache" / "state").rglob("*.json")
    if damage == "forged":  # the right key, a wrong shape: the traced functions as a number
        entry = json.loads(state.read_text())
        entry["entry"]["value"][3] = 7
        damage = json.dumps(entry).encode()
    state.write_bytes(damage)
    _apply(root, {"pkg/utils.py": _append(NEW_HELPER)})
    after, how = _warm(root, Config(), cache)
    assert how == "solve"
    assert _facts(after) == _facts(check([str(root)], Config(), jobs=1))


def test_a_state_for_other_texts_is_not_used_for_them(tmp_path):
    """The state names the texts it was solved for: an edited file whose old summary is gone
    from the cache cannot be compared, and is solved."""
    root = tmp_path / "project"
    _write(root, PROJECT)
    cache = SummaryCache(tmp_path / "cache")
    _warm(root, Config(), cache)
    for entry in Path(tmp_path / "cache" / "summary").rglob("*.json"):
        entry.unlink()
    _apply(root, {"pkg/utils.py": _append(NEW_HELPER)})
    assert _warm(root, Config(), cache)[1] == "solve"


def test_a_state_reuses_only_the_result_of_the_texts_it_names(tmp_path):
    """The state names its result by key, and that key was not checked against the texts the state
    names: a state pointing at another tree's clean result (here another project's, in the same
    cache) made an unseen edit report that result: no findings, other files."""
    root, other = tmp_path / "project", tmp_path / "other"
    _write(root, PROJECT)
    _write(other, {"clean.py": "def nothing():\n    return 1\n"})
    cache = SummaryCache(tmp_path / "cache")
    _warm(root, Config(), cache)
    (state,) = (tmp_path / "cache" / "state").rglob("*.json")
    entry = json.loads(state.read_text())
    _warm(other, Config(), cache)
    (clean,) = [path.stem for path in (tmp_path / "cache" / "result").rglob("*.json")
                if path.stem != entry["entry"]["value"][0]]
    for number, result_key in enumerate((clean, "../" * 8 + "tmp/elsewhere")):
        entry["entry"]["value"][0] = result_key
        state.write_text(json.dumps(entry))
        _write(root, PROJECT)  # the texts the state names, then an edit no solve has seen yet
        _apply(root, {"pkg/utils.py": _append(NEW_HELPER.replace("_fresh_helper", f"_fresh_helper{number}"))})
        after, how = _warm(root, Config(), cache)
        assert how == "solve" and after.findings
        assert _facts(after) == _facts(check([str(root)], Config(), jobs=1))


def test_the_name_check_reads_a_function_naming_itself_on_every_row():
    """A function that names itself on each of its rows (a generated table, or a pull request
    wanting its review to time out): written only inside itself until a caller names it outside.
    Its cost once grew quadratically with such rows; benchmarks/name_check_scaling.py measures it."""
    from graphmend_bot.analysis.incremental import names_written_only_inside

    rows = "    helper_aa = helper_aa + helper_aa + helper_aa + helper_aa + helper_aa + helper_aa\n" * 2_000
    text = f"def helper_aa():\n    helper_aa = 1\n{rows}    return 0\n\n\nunrelated = 1\n"
    assert names_written_only_inside({"m.py": {"helper_aa"}}, {"m.py": text, "n.py": "x = 1\n"})
    assert not names_written_only_inside({"m.py": {"helper_aa"}}, {"m.py": text + "helper_aa()\n"})


@pytest.mark.parametrize("standing", [["callee_break_drafts", 99], ["drafts", 0], ["calls", 0]])
def test_facts_naming_no_draft_of_the_summary_mean_a_solve(tmp_path, standing):
    """A forged state's facts (redraft.py) name a consequence draft the edited summary does not have,
    or a list that holds none: the edited module is solved again, not indexed out of range."""
    root = tmp_path / "project"
    _write(root, PROJECT)
    cache = SummaryCache(tmp_path / "cache")
    _warm(root, Config(), cache)
    (state,) = (tmp_path / "cache" / "state").rglob("*.json")
    entry = json.loads(state.read_text())
    facts = dict(entry["entry"]["value"][6])
    functions = dict(facts["pkg.blocks"])
    functions["Block.forward"][1] = [standing]
    facts["pkg.blocks"] = list(functions.items())
    entry["entry"]["value"][6] = list(facts.items())
    state.write_text(json.dumps(entry))
    _apply(root, {"pkg/blocks.py": _replace("        y = x * self.scale\n", "        y = x * self.scale\n        print('s')\n")})
    after, how = _warm(root, Config(), cache)
    assert how == "solve"
    assert _facts(after) == _facts(check([str(root)], Config(), jobs=1))
