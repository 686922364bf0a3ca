"""A finding's parameter is unproven when a file the prefilter did not summarise may call its
function (caller_arguments.py): that file is found through an index of the unread files' imports,
not by scanning every unread file's imports once per finding (a tenth of the solve on
transformers 5.24, with a thousand unread files and over a thousand findings)."""

from __future__ import annotations

from graphmend_bot.analysis.prefilter import EVERYTHING
from graphmend_bot.analysis.scope import Program
from graphmend_bot.engine import Workspace

TREE = {
    "pkg/__init__.py": "",
    "pkg/layers/__init__.py": "",
    "pkg/layers/helpers.py": """
        def helper(x):
            if x.sum() > 0:
                return x * 2
            return x
    """,
    "pkg/net.py": """
        from torch import nn
        from pkg.layers.helpers import helper

        class Net(nn.Module):
            def forward(self, x):
                return helper(x)
    """,
}


class CountedNames(frozenset[str]):
    """The names an import uses, counting how often a name is looked up in them."""

    lookups = 0

    def __contains__(self, name: object) -> bool:
        CountedNames.lookups += 1
        return super().__contains__(name)


def unproven_after(write_tree, unread: list[tuple[str, tuple[tuple[str, frozenset[str]], ...]]]) -> dict:
    workspace = Workspace([str(write_tree(TREE))])
    program = Program(workspace.summaries.values(), unread_imports=unread)
    findings = program.traced_drafts()
    return program.unproven_parameters({(f.module.module, f.function.qualname) for f in findings})


def reason(unproven: dict) -> str:
    ((_, why),) = unproven[("pkg.layers.helpers", "helper")]
    return why


def test_each_way_of_importing_the_function_names_the_first_such_file(write_tree):
    unrelated = ("other.py", (("pkg.net", frozenset({"Net"})), ("pkg.layers", frozenset({"other"}))))
    ways = {
        "from the module": ("pkg.layers.helpers", frozenset({"helper"})),
        "everything of the module": ("pkg.layers.helpers", frozenset({EVERYTHING})),
        "the module from its package": ("pkg.layers", frozenset({"helpers"})),
        "a package above re-exporting it": ("pkg", frozenset({"helper"})),
    }
    for way, imported in ways.items():
        later = ("later.py", (("pkg.layers.helpers", frozenset({"helper"})),))
        unproven = unproven_after(write_tree, [unrelated, ("script.py", (imported,)), later])
        assert reason(unproven) == "script.py imports it and is not analysed (no entry point reaches it)", way
    assert not unproven_after(write_tree, [unrelated]).get(("pkg.layers.helpers", "helper"))


def test_the_unread_files_are_not_scanned_once_per_finding(write_tree):
    many = [(f"tool_{i}.py", tuple((f"elsewhere.mod_{i}_{j}", CountedNames({"helper"})) for j in range(5)))
            for i in range(400)]
    CountedNames.lookups = 0
    unproven = unproven_after(write_tree, many)
    assert not unproven.get(("pkg.layers.helpers", "helper"))
    assert CountedNames.lookups == 0  # the old scan looked the name up in all 2000 imports
