"""Which graph breaks Dynamo logs at the start of a frame (skipK, session 14): prints a table.

    PYTHONPATH=$PWD .venv/bin/python benchmarks/frame_start_breaks.py /tmp/frame_start

Part 1: each break kind first in the compiled function and first in a callee it inlines, with 0,
1, 2 tensor operations before it (or a shape read): on torch 2.13 every one is logged at its line
(skipped call, disabled function, print, `.item()`, data-dependent `if`, a lock's `with`,
`zero_grad`, `step`, `graph_break()`): no break is lost for coming before any tensor operation.
Part 2: a break after an earlier break of a frame whose resume frame holds no tensor (no live
tensor local, no `torch` module named, `self` no nn.Module) is not logged: convert_frame's
`has_tensor_in_frame` skips that frame (analysis/tensorless_frames.py).
"""

from __future__ import annotations

import pathlib
import sys
import textwrap
import types

from graphmend_bot.census.dynamo import Tree, explain_breaks

HEAD = """import os, time, threading, torch
LOCK = threading.Lock()
P = torch.nn.Parameter(torch.ones(2))
OPT = torch.optim.SGD([P], lr=0.1)
@torch._dynamo.disable
def disabled(x):
    return x
"""
FIRST = {
    "skipped call os.getcwd()": "os.getcwd()",
    "time.strftime()": "time.strftime('%H')",
    "disabled function": "disabled(x)",
    "print": "print('', end='')",
    "x.item()": "v = x.item()",
    "if x: (data-dependent)": "if x:\n    pass",
    "with lock: (GB0142)": "with LOCK:\n    pass",
    "OPT.zero_grad()": "OPT.zero_grad()",
    "OPT.step()": "OPT.step()",
    "graph_break()": "torch._dynamo.graph_break()",
}
BEFORE = {"0": "", "read": "n = x.shape[0]\n", "1": "x = x * 2\n", "2": "x = x * 2\nx = x + 1\n"}

HOLDER = """import torch
from torch import nn
class Holder:
    def __init__(self):
        self.params = [nn.Parameter(torch.ones(2))]
        self.opt = torch.optim.SGD(self.params, lr=0.1)
"""
ROOT = "def entry():\n    h = Holder()\n    return h.run, (False,)\n"
CALLEE = ("class M(nn.Module):\n    def __init__(self):\n        super().__init__()\n        self.h = Holder()\n"
          "    def forward(self, x):\n        y = x * 2\n        self.h.run(False)\n        return y + 1\n"
          "def entry():\n    return M(), (torch.ones(2),)\n")
PRINT = "        print('', end='')\n"
ZERO = "        self.opt.zero_grad(flag)\n"
RESUMED = {  # (entry, body of Holder.run(self, flag))
    "root, zero_grad first": (ROOT, ZERO),
    "root, print then zero_grad": (ROOT, PRINT + ZERO),
    "root, names torch, print then zero_grad": (ROOT, PRINT + ZERO + "        return torch.float32\n"),
    "root, live tensor local": (ROOT, "        t = self.params[0] * 2\n" + PRINT + ZERO + "        return t\n"),
    "root, dead tensor local": (ROOT, "        t = self.params[0] * 2\n" + PRINT + ZERO),
    "callee, zero_grad first": (CALLEE, ZERO),
    "callee, print then zero_grad": (CALLEE, PRINT + ZERO),
    "callee, print then step": (CALLEE, PRINT + "        self.opt.step()\n"),
}


def breaks(folder: pathlib.Path, source: str) -> tuple[list[tuple[int, str, str]], int]:
    path = folder / "sample.py"
    path.write_text(source)
    module = types.ModuleType("sample")
    sys.modules["sample"] = module
    exec(compile(source, str(path), "exec"), module.__dict__)
    fn, args = module.entry()
    lines = source.splitlines()
    explained = explain_breaks(fn, args, {}, Tree([str(folder)]))
    found = {(b.location[1], lines[b.location[1] - 1].strip()[:24], b.gb_id) for b in explained.breaks if b.location}
    return sorted(found), explained.graph_count


def main(folder: pathlib.Path) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    print("| construct | frame | before | breaks logged (line, text, id) | graphs |\n|---|---|---|---|---|")
    for name, statement in FIRST.items():
        for where in ("top", "callee"):
            for before, pre in BEFORE.items():
                body = textwrap.indent(pre + statement + "\nreturn x + 1\n", "    ")
                if where == "top":
                    source = HEAD + f"def f(x):\n{body}"
                else:
                    source = HEAD + f"def helper(x):\n{body}\ndef f(x):\n    y = helper(x)\n    return y * 3\n"
                found, graphs = breaks(folder, source + "def entry():\n    return f, (torch.ones(1),)\n")
                print(f"| {name} | {where} | {before} | {found} | {graphs} |", flush=True)
    print("\n| resumed frame | breaks logged (line, text, id) | graphs |\n|---|---|---|")
    for name, (entry, body) in RESUMED.items():
        found, graphs = breaks(folder, HOLDER + "    def run(self, flag):\n" + body + entry)
        print(f"| {name} | {found} | {graphs} |", flush=True)


if __name__ == "__main__":
    main(pathlib.Path(sys.argv[1]))
