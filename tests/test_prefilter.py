"""The text prefilter may skip parsing a file only when the scope solver could never reach it."""

import re
import subprocess
from pathlib import Path

import pytest

import graphmend_bot
from graphmend_bot.analysis import prefilter
from graphmend_bot.analysis.files import discover
from graphmend_bot.analysis.prefilter import relevant_modules, scan_source
from graphmend_bot.analysis.scope import Program
from graphmend_bot.analysis.summary import summarize_module
from graphmend_bot.engine import Workspace, summarize_all


def test_scan_reads_every_import_form():
    scan = scan_source(
        "from .a import (x,\n    y as z)\nfrom ..b import *\nimport c.d, e as f\n"
        "from g import h, \\\n    i\nclass K: pass\nasync def forward(self): pass\n",
        "pkg.sub.mod",
        False,
    )
    assert set(scan.imports) == {
        ("pkg.sub.a", frozenset({"x", "y"})),
        ("c.d", frozenset({"*"})),
        ("c", frozenset({"d"})),
        ("e", frozenset({"*"})),
        ("g", frozenset({"h", "i"})),
    }
    assert scan.defines == {"K", "forward"} and scan.has_entry_text


def test_line_patterns_match_what_their_multiline_anchored_form_matches():
    """The scans look for "\n" + pattern in "\n" + source (fast); `^` with re.M is the definition.
    Lines after a match that ends on a newline (a backslash continuation before an empty line, a
    parenthesised clause), the first line, CRLF, indented and async forms must all agree."""
    tricky = (
        "import a\nfrom b import c \\\n\nfrom d import e\nfrom f import (g,\n h)\nimport i\r\n"
        "  from .j import k; import l\n\tasync  def m(): pass\nclass N(O):\n    def p(self): import q\n"
        "class P(Q.R,\n        metaclass=S):\n    pass\n"
        "x = 1 \\\nimport r\n# import s\n'''\nfrom t import u\n'''\nfrom v import w \\\n"
    )
    package = Path(graphmend_bot.__file__).parent
    sources = [tricky, tricky.replace("\n", "\r\n"), *(path.read_text() for path in package.rglob("*.py"))]
    for name in ("_FROM_IMPORT", "_DEFINITION", "_PLAIN_IMPORT", "_CLASS_BASES"):
        fast = getattr(prefilter, name)
        definition = re.compile("^" + fast.pattern.removeprefix(r"\n"), re.M)  # written raw
        assert len(definition.findall(tricky)) >= 2
        for source in sources:
            assert fast.findall("\n" + source) == definition.findall(source), (name, source[:80])


def test_relative_imports_in_a_package_init():
    scan = scan_source("from . import layers\nfrom .model import Net\n", "pkg", True)
    assert set(scan.imports) == {("pkg", frozenset({"layers"})), ("pkg.model", frozenset({"Net"}))}


def test_a_package_reexport_pulls_only_the_module_that_defines_the_name():
    scans = [
        scan_source("from pkg import helper\nclass M:\n    def forward(self, x):\n        return helper(x)\n", "model", False),
        scan_source("from .helpers import helper\nfrom .tokenizer import Tokenizer\n", "pkg", True),
        scan_source("def helper(x):\n    return x\n", "pkg.helpers", False),
        scan_source("class Tokenizer:\n    pass\n", "pkg.tokenizer", False),
        scan_source("import model\n", "scripts.convert", False),
    ]
    assert relevant_modules(scans) == {"model", "pkg", "pkg.helpers"}
    assert relevant_modules(scans, extra_roots=["scripts.convert"]) == {"model", "pkg", "pkg.helpers", "scripts.convert"}



def test_a_submodule_imported_from_a_package_needed_whole_is_relevant_in_any_order():
    """`from pkg import sub` needs pkg.sub even when pkg is already needed whole: the walk used to
    skip it then, so whether pkg.sub was parsed depended on set order (PYTHONHASHSEED)."""
    scans = [
        scan_source("import pkg\nfrom pkg import sub\nclass M:\n    def forward(self, x):\n        return x\n",
                    "model", False),
        scan_source("def helper(x):\n    return x\n", "pkg", True),
        scan_source("def tool(x):\n    return x\n", "pkg.sub", False),
    ]
    for ordered in (scans, scans[::-1]):
        assert relevant_modules(ordered) == {"model", "pkg", "pkg.sub"}
    # the same when the whole package is asked for after the name (the order the old walk got right)
    scans[0] = scan_source("from pkg import sub\nimport pkg\nclass M:\n    def forward(self, x):\n        return x\n",
                           "model", False)
    assert relevant_modules(scans) == {"model", "pkg", "pkg.sub"}

TREE = {
    "pkg/__init__.py": "from .helpers import guard\nfrom .layers import *\nfrom . import layers\n",
    "pkg/helpers.py": """
        import torch
        from pkg.deep.util import scale

        def guard(x):
            if torch.isnan(x).any():
                raise ValueError("nan")
            return scale(x)
    """,
    "pkg/deep/__init__.py": "",
    "pkg/deep/util.py": "def scale(x):\n    return x * x.max().item()\n",
    "pkg/layers.py": """
        import torch
        import pkg.deep.util
        from pkg import guard

        class Layer(torch.nn.Module):
            def forward(self, x):
                return guard(pkg.deep.util.scale(x))
    """,
    "pkg/tokenizer.py": "def tokenize(text):\n    print(text)\n",
    # a subclass overriding the hook its base's forward calls: no entry text, no root imports it
    "pkg/base.py": """
        import torch

        class Base(torch.nn.Module):
            def forward(self, x):
                return self.hook(x)

            def hook(self, x):
                return x
    """,
    "pkg/hooks.py": "from pkg.base import Base\n\nclass Positive(Base):\n    def hook(self, x):\n        return x[x > 0]\n",
    "tools/export.py": "import torch\n\ndef export(m):\n    return torch.compile(m)\n",
    "tools/__init__.py": "",
}


def test_prefiltered_workspace_finds_exactly_what_a_full_parse_finds(write_tree):
    root = write_tree(TREE)
    files, _ = discover([str(root)])
    full = Program([s for s in summarize_all(files) if not hasattr(s, "message")]).traced_drafts()
    workspace = Workspace([str(root)])
    pruned = Program(workspace.summaries.values()).traced_drafts()
    assert {(t.module.path, t.draft.row, t.draft.code) for t in pruned} == {
        (t.module.path, t.draft.row, t.draft.code) for t in full
    }
    assert len(full) == 3
    parsed = {path.rsplit("/", 1)[-1] for path in workspace.summaries}
    # tools/export.py compiles only a model it is handed: auto reads the tree's public modules to
    # learn whether it exports nn.Modules (the public-api scope) before it settles on the model scope
    assert {"helpers.py", "util.py", "layers.py", "export.py", "hooks.py", "tokenizer.py"} <= parsed


def test_subclasses_are_followed_from_files_with_a_forward_only():
    """A class whose file only mentions torch.compile (a comment makes a root) is no traced base:
    its subclasses' files (transformers' image processors) stay unparsed."""
    scans = [
        scan_source("import torch\nclass Base(torch.nn.Module):\n    def forward(self, x):\n        return self.hook(x)\n",
                    "pkg.base", False),
        scan_source("from .base import Base\nclass Hooked(Base):\n    def hook(self, x):\n        return x\n",
                    "pkg.hooked", False),
        scan_source("from pkg import hooked\nclass Deeper(hooked.Hooked):\n    pass\n", "pkg.deeper", False),
        scan_source("# works with torch.compile\nclass Backend:\n    pass\n", "pkg.backend", False),
        scan_source("from .backend import Backend\nclass Images(Backend):\n    pass\n", "pkg.images", False),
        scan_source("class Hooked:\n    pass\n", "other.unrelated", False),  # the name only, not imported
    ]
    assert scans[1].class_bases == {"Base"} and scans[2].class_bases == {"Hooked"}
    assert relevant_modules(scans) == {"pkg.base", "pkg.hooked", "pkg.deeper", "pkg.backend"}


# Every way the imports (summary.Imports) can name torch.compile other than `torch.compile`, as a
# call and as a decorator: review15's finding 4 found the first ones' files dropped unparsed.
ALIASED_COMPILES = {
    "call_through_torch_alias": "import torch as th\n\ndef f(x):\n    return x\n\nopt = th.compile(f)\n",
    "decorator_through_torch_alias": "import torch as th\n\n@th.compile\ndef f(x):\n    return x\n",
    "called_decorator_through_torch_alias": "import os, torch as th\n\n@th.compile(dynamic=True)\ndef f(x):\n    return x\n",
    "attribute_on_its_own_line": "import torch as th\n\ndef f(x):\n    return x\n\nopt = (th\n       .compile(f))\n",
    "imported_compile_decorator": "from torch import compile\n\n@compile\ndef f(x):\n    return x\n",
    "imported_compile_alias_decorator": "from torch import compile as tc\n\n@tc\ndef f(x):\n    return x\n",
    "imported_compile_alias_call": "from torch import (\n    compile as tc,\n)\n\ndef f(x):\n    return x\n\nopt = tc(f)\n",
    "aliased_inside_a_function": "def build(f):\n    import torch as th\n    return th.compile(f)\n\ndef f(x):\n    return x\n\nopt = build(f)\n",
}


@pytest.mark.parametrize("name", ALIASED_COMPILES)
def test_a_file_compiling_through_an_alias_of_torch_is_kept(name):
    """The rule above for aliases: a file whose summary holds a compiled function or a compile
    call has entry text, so the prefilter keeps it (and the summary looks for its compile calls)."""
    source = ALIASED_COMPILES[name]
    summary = summarize_module(source, f"{name}.py", name, False)
    assert summary.compile_targets or any(function.compiled for function in summary.functions.values())
    scan = scan_source(source, name, False)
    assert scan.has_entry_text and name in relevant_modules([scan])


def test_a_word_compile_without_torch_is_no_entry_text():
    """The widening needs both words: a tokenizer's `re.compile` in a file that never names the
    torch module stays unparsed (a name resolves to torch.compile only through an import of torch)."""
    assert not scan_source("import re\n\nPATTERN = re.compile(r'x')\n", "tok", False).has_entry_text
    assert not scan_source("from .utils import is_torch_available\nc = re.compile\n", "tok", False).has_entry_text


def test_the_cli_reports_breaks_in_files_compiled_through_an_alias(tmp_path, graphmend_cmd):
    """review15's repro 7: each file alone, with nothing else in the tree to make it a root."""
    for name, source in ALIASED_COMPILES.items():
        folder = tmp_path / name
        folder.mkdir()
        (folder / "m.py").write_text(source.replace("    return x\n", "    print(x)\n    return x\n", 1))
        result = subprocess.run([*graphmend_cmd, "check", "--no-cache", "m.py"], cwd=folder,
                                capture_output=True, text=True, timeout=120)
        assert result.returncode == 1 and "GM401" in result.stdout, (name, result.stdout, result.stderr)
