"""GM629 returned-unrebuildable-object: its documentation, in one place with how it is detected.

Found by the scope solver (analysis/returned_holders.py): a `return` of an object Dynamo cannot
rebuild, in a function that code running eagerly calls, so Dynamo compiles it as a frame of its own.
"""

from __future__ import annotations

from graphmend_bot.rules.detect import Detection
from graphmend_bot.rules.rule import Rule


def _message(rule: Rule) -> str:
    return (
        "Returns an object built in traced code that holds a function or bound method Dynamo "
        "cannot rebuild; this function is a frame of its own here, so Dynamo breaks at the `return`"
    )


RULE = Rule(
    code="GM629",
    name="returned-unrebuildable-object",
    family="not traceable",
    gb_id="GB0092",
    summary=(
        "Flags a `return` of an object built in traced code (there or in a helper it calls, or "
        "inside an object, tuple or dict built around it) whose `__init__` stored its own bound "
        "method or a function it got as a parameter's default (`self.reader = reader` for "
        "`reader=read_image`), in a function that a frame Dynamo gave up on calls (after a call it "
        "could not resume at, GM605): Dynamo compiles that function as a frame of its own."
    ),
    why=(
        "TorchDynamo hands a compiled frame's return value back by rebuilding it in bytecode. A "
        "function given as a parameter's default, or a bound method of the new object, has no source "
        'to rebuild it from (measured on torch 2.13: GB0092 "Reconstruction failure ... sourceless '
        'variable UserFunctionVariable"), so Dynamo gives up on the frame at its `return` and runs '
        "it eagerly; the functions it calls then become frames of their own, and break the same "
        "way when they return such an object. Inlined into a caller that does not return it, the "
        "same `return` traces."
    ),
    example=(
        "class Solver:\n"
        "    def __init__(self, y):\n"
        "        self.y = y\n"
        "        self.step = self.step_euler\n\n"
        "    def step_euler(self):\n"
        "        return self.y\n\n"
        "class Parser:\n"
        "    def __init__(self, data):\n"
        "        self.data = data\n\n"
        "    def parse(self):\n"
        "        scaled = torch.relu(self.data)\n"
        '        print("parsing")\n'
        "        return Solver(scaled * 2)\n\n"
        "solver = Parser(x).parse()\n"
        "y = solver.y"
    ),
    use_instead=(
        "class Solver:\n"
        "    def __init__(self, y):\n"
        "        self.y = y\n\n"
        "    def step(self):\n"
        "        return self.y\n\n"
        "class Parser:\n"
        "    def __init__(self, data):\n"
        "        self.data = data\n\n"
        "    def parse(self):\n"
        "        scaled = torch.relu(self.data)\n"
        '        print("parsing")\n'
        "        return Solver(scaled * 2)\n\n"
        "solver = Parser(x).parse()\n"
        "y = solver.y"
    ),
    fix_safety=(
        "No automatic fix. Remove the break that makes Dynamo give up on the calling frame (its own "
        "finding says how), or have the object look its function up by name (`self.reader = "
        "read_image`, a global Dynamo can rebuild) or dispatch in a method instead of storing a bound "
        "method."
    ),
    detection=Detection(returned_unrebuildable=_message),
    advice=(
        "`{code}` hands back an object holding a function or bound method Dynamo cannot rebuild, in a "
        "frame it compiles on its own: store a global function by name or dispatch in a method, or "
        "remove the break that makes the caller run eagerly"
    ),
)
