"""The persistent summary cache (analysis/summary_cache.py): same output with and without it, and a
cache is data: entries that are damaged, forged or pickled are ignored, never run."""

import json
import os
import pickle
import subprocess
from pathlib import Path

import pytest
from test_project_scope import PROJECT, git_project, run

from graphmend_bot.analysis.files import SourceFile, text_digest
from graphmend_bot.analysis.model import ModuleSummary
from graphmend_bot.analysis.summary_cache import SummaryCache
from graphmend_bot.engine import summarize_source

MORE = {
    "pkg/blocks.py": """
        import torch
        from torch import nn

        class Block(nn.Module):
            def forward(self, x, mask=None):
                if mask is not None and mask.any():
                    x = x.masked_fill(mask, 0.0)
                n = int(x.sum())
                return x.item() + n
    """,
}


def outputs(graphmend_cmd, root, *flags):
    texts = []
    for args in (["pkg/utils.py"], ["."], ["--output-format", "json", "pkg"]):
        done = run(graphmend_cmd, root, "check", *flags, *args)
        assert done.returncode == 1 and done.stderr == "", done.stderr
        texts.append(done.stdout)
    return texts


def entries(root):
    return sorted((root / ".graphmend_cache").rglob("*.json"))


def test_output_is_byte_identical_cold_warm_and_without_cache(write_tree, graphmend_cmd):
    root = git_project(write_tree, {**PROJECT, **MORE})
    without = outputs(graphmend_cmd, root, "--no-cache")
    assert not (root / ".graphmend_cache").exists()  # --no-cache writes nothing
    assert outputs(graphmend_cmd, root) == without  # cold: computes and stores
    assert entries(root)
    assert outputs(graphmend_cmd, root) == without  # warm: read back
    # one file changed: its summary is recomputed, the others come from the cache
    net = root / "pkg/net.py"
    net.write_text(net.read_text().replace("x * 2", "x * 3"))
    assert outputs(graphmend_cmd, root) == outputs(graphmend_cmd, root, "--no-cache")


def test_a_cached_result_keeps_each_errors_severity(write_tree, graphmend_cmd):
    """A syntax error fails the run and an unknown suppression code is a warning, read back from
    the cached result as when computed (it once came back as notices: exit 0, a warning as error)."""
    uses_bad = ("from torch import nn\nfrom .bad import f  # graphmend: ignore[XX999]\n\n\n"
                "class M(nn.Module):\n    def forward(self, x):\n        return f(x)\n")
    root = git_project(write_tree, {**PROJECT, "pkg/uses_bad.py": uses_bad, "pkg/bad.py": "def f(x:\n"})
    cold = run(graphmend_cmd, root, "check", ".")
    warm = run(graphmend_cmd, root, "check", ".")
    assert "pkg/bad.py: error: syntax error" in cold.stdout and "pkg/uses_bad.py: warning: line 2" in cold.stdout
    assert (warm.returncode, warm.stdout, warm.stderr) == (cold.returncode, cold.stdout, cold.stderr)
    assert cold.returncode == 1


def test_a_summary_is_remade_when_a_guard_helper_it_judged_elsewhere_changes(write_tree, graphmend_cmd):
    """net.py's summary judges `is_compiling` by its body in flags.py (analysis/guards.py): keyed by
    net.py's text alone, the cached summary once outlived an edit of flags.py."""
    guarded = {
        "pkg/flags.py": "import torch\n\n\ndef is_compiling():\n    return torch.compiler.is_compiling()\n",
        "pkg/guarded.py": ("from torch import nn\n\nfrom .flags import is_compiling\n\n\nclass Guarded(nn.Module):\n"
                           "    def forward(self, x):\n        if not is_compiling():\n            print('eager')\n"
                           "        return x\n"),
    }
    root = git_project(write_tree, {**PROJECT, **guarded})
    assert "pkg/guarded.py" not in run(graphmend_cmd, root, "check", ".").stdout  # eager-only: no break
    flags = root / "pkg/flags.py"
    flags.write_text(flags.read_text().replace("torch.compiler.is_compiling()", "False"))
    warm = run(graphmend_cmd, root, "check", ".")
    assert "pkg/guarded.py:9:13: GM401" in warm.stdout
    assert warm.stdout == run(graphmend_cmd, root, "check", "--no-cache", ".").stdout


def test_cache_folder_is_tagged_and_ignored_by_git(write_tree, graphmend_cmd):
    root = git_project(write_tree)
    run(graphmend_cmd, root, "check", "pkg/utils.py")
    folder = root / ".graphmend_cache"
    assert (folder / "CACHEDIR.TAG").read_text().startswith("Signature: 8a477f597d28d172789f06886806bc55")
    assert "*" in (folder / ".gitignore").read_text().splitlines()
    status = subprocess.run(["git", "status", "--porcelain", "--untracked-files=all"], cwd=root,
                            capture_output=True, text=True, check=True).stdout
    assert ".graphmend_cache" not in status


def test_cache_dir_variable_moves_the_cache(write_tree, graphmend_cmd, tmp_path_factory):
    root = git_project(write_tree)
    elsewhere = tmp_path_factory.mktemp("cache")
    done = subprocess.run([*graphmend_cmd, "check", "pkg/utils.py"], cwd=root, capture_output=True, text=True,
                          env={**os.environ, "GRAPHMEND_CACHE_DIR": str(elsewhere)}, timeout=120)
    assert done.returncode == 1
    assert list(elsewhere.rglob("*.json")) and not (root / ".graphmend_cache").exists()


def test_damaged_and_forged_entries_are_ignored(write_tree, graphmend_cmd):
    root = git_project(write_tree, {**PROJECT, **MORE})
    expected = outputs(graphmend_cmd, root, "--no-cache")
    outputs(graphmend_cmd, root)
    damages = [
        b"",
        b"not json",
        b"[1, 2, 3]",
        json.dumps({"key": "another", "entry": {"kinds": [], "value": {}}}).encode(),
    ]
    for index, path in enumerate(entries(root)):
        key = path.stem
        forged = {"key": key, "entry": {"kinds": [[9, [], []]], "value": {"path": 1}}}  # wrong types
        path.write_bytes([*damages, json.dumps(forged).encode()][index % (len(damages) + 1)])
    assert outputs(graphmend_cmd, root) == expected
    assert outputs(graphmend_cmd, root) == expected  # and the recomputed entries were stored again


def test_a_pickle_in_the_cache_is_never_loaded(write_tree, graphmend_cmd, tmp_path_factory):
    """A cache committed in a pull request, or restored from elsewhere, is data: a pickle there
    that would run code when unpickled is ignored as an unreadable entry."""
    root = git_project(write_tree)
    outputs_before = run(graphmend_cmd, root, "check", "pkg/utils.py").stdout
    marker = tmp_path_factory.mktemp("marker") / "ran"

    class Payload:
        def __reduce__(self):
            return (open, (str(marker), "w"))

    assert entries(root)
    for path in entries(root):
        path.write_bytes(pickle.dumps(Payload()))
    assert run(graphmend_cmd, root, "check", "pkg/utils.py").stdout == outputs_before
    assert not marker.exists()


def test_summary_round_trips_and_a_wrong_field_type_is_refused(tmp_path):
    source = Path(__file__).read_text(encoding="utf-8")
    source_file = SourceFile("t.py", "tests.t", False)
    summary = summarize_source(source, source_file)
    assert isinstance(summary, ModuleSummary)
    cache = SummaryCache(tmp_path)
    key = cache.summary_key(text_digest(source), source_file, False)
    cache.store_summary(key, summary)
    assert cache.load_summary(key, "t.py") == summary
    (entry,) = tmp_path.rglob(f"{key}.json")
    data = json.loads(entry.read_text())
    data["entry"]["value"]["module"] = ["not", "a", "string"]
    entry.write_text(json.dumps(data))
    assert cache.load_summary(key, "t.py") is None


def test_an_entry_that_is_a_symlink_is_never_followed(tmp_path):
    """The open refuses a symlinked entry (O_NOFOLLOW), even to a valid entry with the right key,
    and a cache folder that is a symlink is not read at all."""
    source = "def f(x):\n    return x\n"
    source_file = SourceFile("t.py", "t", False)
    summary = summarize_source(source, source_file)
    cache = SummaryCache(tmp_path / "cache")
    key = cache.summary_key(text_digest(source), source_file, False)
    cache.store_summary(key, summary)
    assert cache.load_summary(key, "t.py") == summary
    (entry,) = (tmp_path / "cache").rglob(f"{key}.json")
    elsewhere = tmp_path / "elsewhere.json"
    entry.rename(elsewhere)
    entry.symlink_to(elsewhere)
    assert SummaryCache(tmp_path / "cache").load_summary(key, "t.py") is None
    entry.unlink()
    elsewhere.rename(entry)
    (tmp_path / "linked").symlink_to(tmp_path / "cache")
    assert SummaryCache(tmp_path / "linked").load_summary(key, "t.py") is None
    assert SummaryCache(tmp_path / "cache").load_summary(key, "t.py") == summary


def test_every_shape_the_fast_decoders_check_is_refused_when_wrong():
    """Drafts and call sites (decoded by generated code), pairs, dicts and kind tables: a value of
    the wrong type anywhere raises CodecError, and a right one builds what was encoded."""
    from graphmend_bot.analysis.model import CallSite, Draft, FunctionSummary
    from graphmend_bot.analysis.summary_codec import CodecError, decode_entry, encode_entry
    from graphmend_bot.vocabulary.kind import NOT_TENSOR

    draft = Draft("GM101", "m", 1, 2, 3, 4, "GB0", NOT_TENSOR, "x = 1", NOT_TENSOR, True)
    function = FunctionSummary("f", "f", None, ("x",), {"x": True}, False, (),
                               calls=[CallSite("torch.relu", (NOT_TENSOR,), (("inplace", NOT_TENSOR),), False, 7)],
                               drafts=[draft], callee_break_drafts=[(3, draft)], local_objects=[(1, 2)])
    good = encode_entry(FunctionSummary, function)
    decoded = decode_entry(FunctionSummary, good)
    assert decoded == function and encode_entry(FunctionSummary, decoded) == good
    assert decoded.drafts[0].rare is True and hash(decoded.drafts[0]) == hash(draft)  # frozen: hashable

    def broken(change):
        data = json.loads(json.dumps(good))
        change(data)
        return data

    wrong = [
        lambda d: d["value"]["drafts"][0].__setitem__(2, "1"),  # a row that is not an int
        lambda d: d["value"]["drafts"][0].__setitem__(10, 1),  # rare: an int, not a bool
        lambda d: d["value"]["drafts"][0].pop(),  # a field missing
        lambda d: d["value"]["drafts"].__setitem__(0, {"code": "GM101"}),  # not a list
        lambda d: d["value"]["calls"][0].__setitem__(3, None),  # bound: not a bool
        lambda d: d["value"]["param_seeds"].__setitem__(0, ["x", 1]),  # dict value: not a bool
        lambda d: d["value"]["param_seeds"].__setitem__(0, ["x"]),  # not a pair
        lambda d: d["value"]["callee_break_drafts"].__setitem__(0, ["3", d["value"]["drafts"][0]]),
        lambda d: d["value"]["local_objects"].__setitem__(0, [1, 2, 3]),
        lambda d: d["value"]["params"].__setitem__(0, 5),  # tuple[str, ...] holding an int
        lambda d: d["value"]["calls"][0][1].__setitem__(0, len(d["kinds"])),  # a kind index out of the table
        lambda d: d["value"]["calls"][0][1].__setitem__(0, -1),
        lambda d: d["value"]["calls"][0][1].__setitem__(0, True),  # a bool is not an index
        lambda d: d["kinds"][0].__setitem__(1, [1]),  # a kind's parameter that is not a string
        lambda d: d["kinds"][0].__setitem__(2, [0, -2]),  # a call index below -1
        # the sparse {field: value} of a function summary, decoded by generated code
        lambda d: d["value"].pop("qualname"),  # a field without a default missing
        lambda d: d["value"].__setitem__("evil", 1),  # no such field
        lambda d: d["value"].__setitem__("compiled", 1),  # not a bool
        lambda d: d["value"].__setitem__("class_qualname", 5),  # neither a str nor None
        lambda d: d["value"].__setitem__("references", "ab"),  # a string, not a list of them
        lambda d: d["value"]["calls"][0].__setitem__(2, {}),  # keywords: not a list
        lambda d: d["value"]["calls"][0].__setitem__(1, 0),  # arguments: not a list
    ]
    for change in wrong:
        with pytest.raises(CodecError):
            decode_entry(FunctionSummary, broken(change))


def test_sparse_decoding_gives_each_summary_its_own_defaults():
    """Fields left out as defaults come back as the class builds them: fresh containers per
    object (the solver's callers may extend them), the immutable defaults, in field order."""
    from graphmend_bot.analysis.model import FunctionSummary
    from graphmend_bot.analysis.summary_codec import decode_entry, encode_entry

    bare = FunctionSummary("f", "f", None, ("x",), {}, False, ())
    first, second = (decode_entry(FunctionSummary, encode_entry(FunctionSummary, bare)) for _ in range(2))
    assert first == bare == second
    assert list(first.__dict__) == list(bare.__dict__)
    first.calls.append("changed")
    assert second.calls == [] and bare.calls == []


def test_a_warm_check_sees_an_installed_package_change(write_tree, graphmend_cmd, tmp_path_factory):
    """GM651 judges `fakeext.scale` by the installed package's files: with its compiled `_c` swapped
    for a Python `_c.py`, a warm run once still reported the cached GM651 (no key covered them)."""
    import importlib.machinery

    site = tmp_path_factory.mktemp("env") / "site-packages"
    (site / "fakeext").mkdir(parents=True)
    (site / "fakeext" / "__init__.py").write_text("from ._c import *\n")
    compiled = site / "fakeext" / ("_c" + importlib.machinery.EXTENSION_SUFFIXES[0])
    compiled.write_bytes(b"\0cython_function_or_method\0")
    model = ("import torch\nfrom torch import nn\nimport fakeext\n\n\nclass M(nn.Module):\n"
             "    def forward(self, x):\n        return x * fakeext.scale(2.0)\n")
    root = git_project(write_tree, {"m.py": model})
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [os.environ.get("PYTHONPATH"), str(site)]))}

    def check(*flags):
        return subprocess.run([*graphmend_cmd, "check", *flags, "."], cwd=root, capture_output=True, text=True,
                              env=env, timeout=120).stdout

    confined = subprocess.run([*graphmend_cmd, "check", "."], cwd=root, capture_output=True, text=True,
                              env={**env, "GRAPHMEND_READ_ROOT": str(root)}, timeout=120).stdout
    assert "GM651" not in confined  # the bot's confinement: no installed package is read
    assert "m.py:8:" in check() and "GM651" in check()  # not the confined run's entry; then warm from the cache
    compiled.unlink()
    (site / "fakeext" / "_c.py").write_text("def scale(v):\n    return v\n")
    assert check() == check("--no-cache")
    assert "GM651" not in check()
