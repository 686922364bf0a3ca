"""The literal-anchored entry-text search answers exactly what its regular expressions answer."""

import ast

import pytest

from graphmend_bot.analysis.entry_text import (
    COMPILE_WORD,
    DEFINES_FORWARD,
    MENTIONS_COMPILE,
    TORCH_WORD,
    compile_rows,
    defines_forward,
    has_entry_text,
    mentions_compile,
)

TEXTS = [
    "",
    "compile",
    "compile(",
    "compile(model)",
    "x = compile(model)",
    "x = re.compile(r'a')",  # `.compile(` with an argument: not a model compile
    "model.compile()",
    "model.compile( )",
    "model.compile(mode='max-autotune')",
    "model.compile(backend = 'eager')",
    "model.compile(fn)",
    "recompile(x)",  # a longer name ending in compile
    "_compile(x)",
    "torch.compile",
    "torch.compiler.is_compiling()",
    "ctorch.compile",
    "is_torchdynamo_compiling()",
    "compilecompile(",
    "a.compilecompile()",
    "def forward(self, x):",
    "    def  forward(self):",
    "async def\tforward(self):",
    "undef forward(self)",  # no word boundary before `def`
    "_def forward(x)",
    "def forwarder(self)",  # no word boundary after `forward`
    "def forward_hook(self)",
    "# def forward(self)",
    "x=def forward",
    "def\nforward",
    "forward def forward",
    "défforward def forward(",
    "édef forward(",  # a Unicode letter before `def` is a word character
    "import torch as th\nth.compile(f)",  # torch.compile through an alias of torch
    "import torch as th\n@th.compile\ndef f(x):",
    "from torch import compile as tc\n@tc\ndef f(x):",
    "from torch import compile\n@compile\ndef f(x):",
    "import torch\nopt = (torch\n       .compile(f))",
    "import torch\nPATTERN = re.compile(r'x')",  # both words: kept, though re.compile is no entry
    "import re\nPATTERN = re.compile(r'x')",  # no torch: not kept
    "import torchvision\nc = x.compile",  # `torchvision` is no `torch`
    "import torch_utils as th\nth.compile",
    "from foo.torch import compile as tc",  # `foo.torch` is not the module torch
    "import torch\nrecompile(x)\ncompiled = 1",  # `compile` inside longer names
    "torch\ncompile",
    "compiletorch compile",
]


@pytest.mark.parametrize("text", TEXTS)
def test_same_answer_as_the_regular_expressions(text):
    assert mentions_compile(text) == (
        MENTIONS_COMPILE.search(text) is not None
        or (COMPILE_WORD.search(text) is not None and TORCH_WORD.search(text) is not None)
    )
    assert defines_forward(text) == (DEFINES_FORWARD.search(text) is not None)
    assert has_entry_text(text) == (mentions_compile(text) or defines_forward(text))


def test_the_examples_mean_what_they_say():
    assert mentions_compile("model.compile()") and mentions_compile("torch.compile(f)")
    assert not mentions_compile("pattern = re.compile(r'x')") and not mentions_compile("recompile(x)")
    assert mentions_compile("import torch as th\nopt = th.compile(f)") and mentions_compile(
        "from torch import compile"
    )
    assert not mentions_compile("import torchvision\nmodel.compile") and not mentions_compile(
        "import foo.torch\n.compile"
    )
    assert defines_forward("class M:\n    def forward(self, x):\n") and not defines_forward("undef forward(")


def test_compile_rows_are_the_rows_the_parser_gives_each_line():
    source = "a = 1\r\nb = re.compile('x'); c = torch.compile(f)\rd = 2\n\x0ce = 3\n\nmodel.compile()\n"
    rows = {
        node.lineno
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.Attribute) and node.attr == "compile"
    }
    assert compile_rows(source) == sorted(rows) == [2, 6]
    assert compile_rows("nothing here") == []
