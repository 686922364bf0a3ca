"""Edges of the scope walk that Dynamo follows (each measured here with torch._dynamo.explain),
with a negative for each:

- calls through objects a module builds at import time (`COUNTER = Counter()`, then
  `COUNTER.bump(x)` or `registry.SCALE(x)` in a forward) reach the in-tree class's method
  (scope.Program._module_instance_calls); an instance only untraced code calls stays out; so do
  names bound by unpacking a tuple of constructions (`SO3, so3 = SO3Type(), so3Type()`, pypose);
- a bound method passed as a callback (`apply_chunks(self.feed_forward, ...)`, `fn=self.check`)
  runs when the callee calls it back (scope.Program._passed_methods); an object passed to
  `isinstance` or a method to `callable` is not called, nor one a container's `append` or
  `setdefault`, or an in-tree function that only stores it, keeps (scope.Program._calls_back);
- `getattr(self, "m")(x)`, and a name built from a literal prefix (`"check_{}".format(kind)`,
  `f"scale_{kind}"`) reaches the methods so named (Dynamo folds the name and traces the one it
  picks); a method with another prefix, or of an unrelated class, is not reached;
- `settings.limit.value()`, a classmethod the named class inherits from an in-tree base, reaches
  the base's method (or the class's own override: MRO), not a same-named method elsewhere;
- a method named like a tensor method on a local object of a class (`scratch = Scratch()`, then
  `scratch.double(x)`) runs the class's method; on a tensor torch built it stays the tensor's;
- a closure nested in a method calls `self.m(...)` on the `self` it closes over (torchmetrics'
  `wrapped_func` in `_wrap_compute`); a nested function with a `self` parameter of its own does not;
- `table[k]` on a local object of a class of the tree runs its `__getitem__`; a class without one
  (subscripting what its method returns) and a tensor's subscript run none;
- `backend = Jit`, then `backend.scale(x)`, runs the class's own or inherited static method, not
  a same-named method of another class;
- `self.distance = self.default_distance() if distance is None else distance` holds what the
  factory (or a subclass's override) returns: its `margin` runs, an unrelated class's does not;
- `self.fn = functools.partial(f, k=v)` called runs f, `getattr(ops, "f")(x)` runs ops.f; a
  partial binding a positional argument is left out;
- bound methods in a tuple handed to a function calling `steps[i](x)` run; handed to one that
  calls nothing it is given, they do not;
- `dist = self.make(x)`, then `dist.entropy()`, runs the method of the classes `make` builds or
  is annotated to return (and their overrides); a same-named method elsewhere does not run;
- `len(obj)`, `len(Cls(x))` and `len(self.attr)` on objects of known classes run their `__len__`;
  a class no len() is given an instance of is not reached;
- `self.NAME = value` in a traced method runs the class's own `__setattr__`; another class's does
  not;
- `obj[k] = v`, `k in obj`, `for x in obj` and `TABLE[k]` (a module-level object, imported) run
  `__setitem__`, `__contains__`, `__iter__` and `__getitem__` of the receiver's known class; a
  class no traced code so uses is not reached;
- building a `@dataclass` runs its (inherited) `__post_init__`, not the source `__init__` of a
  base the generated one replaces; a plain class's or an `init=False` dataclass's is not reached;
- a property read (`self.size`, `box.scale` on a local of a known class, `self.ready` in a
  closure on the `self` it closes over) runs its getter, where Dynamo reports what breaks inside;
  a property nobody reads is not reached;
- a class with a subscripted generic base (`TensorOps(Ops[torch.Tensor])`) inherits its methods:
  `cls.scale_of(x)` runs the base's classmethod."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

import pytest

from graphmend_bot.analysis.scope import Program
from graphmend_bot.config import Config
from graphmend_bot.engine import Workspace, check

torch = pytest.importorskip("torch")

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))

from ground_truth import Tree, dynamo_breaks, normalise  # noqa: E402

TREE = {
    "instpkg/__init__.py": "",
    "instpkg/registry.py": """
        class Counter:
            def bump(self, x):
                if x.sum() > 0:  # break
                    return x + 1
                return x - 1


        class Scale:
            def __call__(self, x, factor=2):
                return x.sum().item() * factor  # break


        class Unused:
            def bump(self, x):
                return x.tolist()


        def make_scale():
            return Scale()


        COUNTER = Counter()
        SCALE = make_scale()
        OTHER = Unused()


        def eager_only(x):
            return OTHER.bump(x)
    """,
    "instpkg/model.py": """
        from torch import nn

        from instpkg import registry
        from instpkg.registry import COUNTER


        class Net(nn.Module):
            def forward(self, x):
                y = COUNTER.bump(x)
                return registry.SCALE(y)
    """,
}


UNPACKED_TREE = {
    "unpkg/__init__.py": "",
    "unpkg/kinds.py": """
        class Lie:
            @classmethod
            def identity(cls, x):
                if x.sum() > 0:  # break
                    return x + 1
                return x - 1


        class Alg:
            def scale(self, x):
                return x.sum().item() * 2  # break


        class Unused:
            def scale(self, x):
                return x.tolist()


        LIE, ALG = Lie(), Alg()
        [OTHER, SPARE] = [Unused(), Unused()]


        def eager_only(x):
            return OTHER.scale(x)
    """,
    "unpkg/model.py": """
        from torch import nn

        from unpkg import kinds
        from unpkg.kinds import LIE


        class Net(nn.Module):
            def forward(self, x):
                y = LIE.identity(x)
                return kinds.ALG.scale(y)
    """,
}


CALLBACK_TREE = {
    "cbpkg/__init__.py": "",
    "cbpkg/layer.py": """
        import torch
        from torch import nn


        def apply_chunks(fn, chunks, x):
            return torch.cat([fn(part) for part in x.chunk(chunks)])


        def run_hook(fn, x):
            return fn(x)


        class Block:
            def __call__(self, x):
                return x.tolist()


        class Layer(nn.Module):
            def __init__(self):
                super().__init__()
                self.block = Block()

            def forward(self, x):
                if callable(self.unused) and isinstance(self.block, Block):
                    x = apply_chunks(self.feed_forward, 1, x)
                return run_hook(fn=self.check, x=x)

            def feed_forward(self, x):
                return x * 2

            def check(self, x):
                if x.sum() > 0:  # break
                    return x + 1
                return x

            def unused(self, x):
                return x.tolist()
    """,
}


# Calls that keep a bound method without calling it: a container's mutators, and a function of
# the tree that stores its parameter. `functools.partial` and `map` do call it back.
KEPT_CALLBACK_TREE = {
    "keptpkg/__init__.py": "",
    "keptpkg/layer.py": """
        import functools

        from torch import nn

        HOOKS = []


        def remember(fn):
            HOOKS.append(fn)
            return fn


        class Layer(nn.Module):
            def __init__(self):
                super().__init__()
                self.callbacks = []
                self.pending = {}

            def forward(self, x):
                self.callbacks.append(self.log)
                self.pending.setdefault("k", self.emit)
                remember(self.stored)
                y = functools.partial(self.scaled, 2)(x)
                return list(map(self.shown, [y]))[0]

            def log(self, t):
                print("logged", t.shape)

            def emit(self, t):
                print("emit")
                return t

            def stored(self, t):
                print("stored")
                return t

            def scaled(self, factor, t):
                print("scaled")  # break
                return t * factor

            def shown(self, t):
                print("shown")  # break
                return t
    """,
}


BY_NAME_TREE = {
    "napkg/__init__.py": "",
    "napkg/reducer.py": """
        from torch import nn


        class Reducer(nn.Module):
            def __init__(self, kind="pair"):
                super().__init__()
                self.kind = kind

            def forward(self, x):
                x = getattr(self, "check_{}".format(self.kind))(x)
                x = getattr(self, f"scale_{self.kind}")(x)
                return getattr(self, "finish")(x)

            def check_pair(self, x):
                if x.sum() > 0:  # break
                    return x + 1
                return x

            def scale_pair(self, x):
                return x * 2

            def finish(self, x):
                return x - 1

            def unused_pair(self, x):
                return x.tolist()


        class Other:
            def check_triplet(self, x):
                return x.tolist()
    """,
}


INHERITED_TREE = {
    "clspkg/__init__.py": "",
    "clspkg/settings.py": """
        class _value_context:
            _value = 3

            @classmethod
            def value(cls, x):
                if x.sum() > cls._value:  # break
                    return cls._value
                return 1

            @classmethod
            def doubled(cls, x):
                return x.tolist()


        class limit(_value_context):
            pass


        class strict(_value_context):
            @classmethod
            def doubled(cls, x):
                return x * 2


        class Unrelated:
            @classmethod
            def value(cls, x):
                return x.tolist()
    """,
    "clspkg/model.py": """
        from torch import nn

        from clspkg import settings


        class Net(nn.Module):
            def forward(self, x):
                return x * settings.limit.value(x) + settings.strict.doubled(x)
    """,
}


LOCAL_OBJECT_TREE = {
    "lopkg/__init__.py": "",
    "lopkg/model.py": """
        import torch
        from torch import nn


        class Scratch:
            def double(self, x):
                if x.sum() > 0:  # break
                    return x * 2
                return x

            def item(self):
                return 3


        class Net(nn.Module):
            def forward(self, x):
                scratch = Scratch()
                y = scratch.double(x)  # break
                z = torch.zeros(2).double()
                return y * scratch.item() + z.sum()
    """,
}


CLOSURE_TREE = {
    "clopkg/__init__.py": "",
    "clopkg/model.py": """
        from torch import nn


        class Other:
            def unused(self, y):
                return y + 1


        class Net(nn.Module):
            def forward(self, x):
                def step(y):
                    return self.scale(y)

                def apply(self, y):
                    return self.unused(y)

                return apply(Other(), step(x))

            def scale(self, y):
                if y.sum() > 0:  # break
                    return y * 2
                return y

            def unused(self, y):
                return y.tolist()
    """,
}


ITEM_TREE = {
    "itempkg/__init__.py": "",
    "itempkg/model.py": """
        from torch import nn


        class Table:
            def __init__(self, x):
                self.x = x

            def __getitem__(self, k):
                if self.x.sum() > k:  # break
                    return self.x * 2
                return self.x


        class Plain:
            def rows(self, x):
                return [x]

            def get(self, k):
                return k.tolist()


        class Net(nn.Module):
            def forward(self, x):
                table = Table(x)
                plain = Plain()
                return table[0] + plain.rows(x)[0] + x[0]
    """,
}


def _marked(path: Path) -> set[int]:
    return {row for row, line in enumerate(path.read_text().splitlines(), 1) if line.endswith("# break")}


def _dynamo_lines(root: Path, package: str, module: str, model: str, path: Path) -> set[int]:
    """The lines of `path` Dynamo breaks on, calling `package.module.model()` on a tensor."""
    sys.path.insert(0, str(root))
    try:
        built = getattr(importlib.import_module(f"{package}.{module}"), model)()
        explained = dynamo_breaks(built, (torch.ones(3),), {}, Tree([str(root / package)]))
    finally:
        sys.path.remove(str(root))
        for name in [name for name in sys.modules if name.split(".")[0] == package]:
            del sys.modules[name]
    return {line for file, line in explained.lines if file == normalise(str(path))}


def _assert_reported_where_dynamo_breaks(
    root: Path, package: str, module: str, model: str, file: str, scope: str = "model"
) -> None:
    """The `# break` lines of `package/file` are the lines Dynamo breaks on there, calling
    `package.module.model()`, and the lines `graphmend check` reports in the package, by default in
    the model scope, whose root that call is: these fixtures test edges, and `auto`'s public-api
    scope would root every public callable of the package beside the forward (test_library_scope.py)."""
    path = root / package / file
    broken = _dynamo_lines(root, package, module, model, path)
    assert broken == _marked(path), f"Dynamo broke on {sorted(broken)}"
    result = check([str(root / package)], Config(scope=scope))
    assert not result.errors
    assert {f.location.row for f in result.findings if f.path.endswith(file)} == _marked(path)


def _assert_reach(root: Path, package: str, reached: set[tuple[str, str]], unreached: set[tuple[str, str]]) -> None:
    """The model scope of `package` traces every function of `reached` and none of `unreached`."""
    traced = Program(Workspace([str(root / package)], Config(), jobs=1).summaries.values(), scope="model").traced_functions()
    assert reached <= traced
    assert not unreached & traced


def test_methods_of_module_level_instances_are_traced_code(write_tree) -> None:
    # Unused.bump (`x.tolist()`) is called only by eager_only, which nothing traced calls
    _assert_reported_where_dynamo_breaks(write_tree(TREE), "instpkg", "model", "Net", "registry.py")


def test_methods_of_module_level_instances_unpacked_from_a_tuple_are_traced_code(write_tree) -> None:
    # Unused.scale (`x.tolist()`) is called only through OTHER by eager_only
    root = write_tree(UNPACKED_TREE)
    _assert_reported_where_dynamo_breaks(root, "unpkg", "model", "Net", "kinds.py")
    _assert_reach(root, "unpkg", {("unpkg.kinds", "Lie.identity"), ("unpkg.kinds", "Alg.scale")},
                  {("unpkg.kinds", "Unused.scale")})


def test_a_module_level_object_that_no_in_tree_class_built_reaches_nothing(write_tree) -> None:
    """`TABLE = OrderedDict()`, a class of another package: `TABLE.get(...)` runs none of the
    tree, though a function of the tree is named `get` (public: the model scope, since `auto`'s
    public-api scope roots it)."""
    root = write_tree({
        "logpkg/__init__.py": "",
        "logpkg/model.py": """
            from collections import OrderedDict

            from torch import nn

            TABLE = OrderedDict()


            def get(x):
                return x.sum().item()


            class Net(nn.Module):
                def forward(self, x):
                    TABLE.get("x")
                    return x
        """,
    })
    result = check([str(root / "logpkg")], Config(scope="model"))
    assert not result.errors
    assert [f.location.row for f in result.findings] == []


def test_a_bound_method_passed_as_a_callback_is_traced_code(write_tree) -> None:
    # the Block (its `__call__` does `x.tolist()`) is passed to isinstance, `unused` to callable: neither is called
    _assert_reported_where_dynamo_breaks(write_tree(CALLBACK_TREE), "cbpkg", "layer", "Layer", "layer.py")


def test_a_bound_method_kept_but_not_called_is_not_traced_code(write_tree) -> None:
    # log, emit and stored (each a `print`) are appended, set as a default and stored by remember
    _assert_reported_where_dynamo_breaks(write_tree(KEPT_CALLBACK_TREE), "keptpkg", "layer", "Layer", "layer.py")


def test_a_method_fetched_by_getattr_on_self_is_traced_code(write_tree) -> None:
    # unused_pair and Other.check_triplet (`x.tolist()`) are fetched by no getattr
    _assert_reported_where_dynamo_breaks(write_tree(BY_NAME_TREE), "napkg", "reducer", "Reducer", "reducer.py")


def test_a_classmethod_inherited_by_the_named_class_is_traced_code(write_tree) -> None:
    # strict.doubled overrides the base's (`x.tolist()`); Unrelated.value is another class's
    _assert_reported_where_dynamo_breaks(write_tree(INHERITED_TREE), "clspkg", "model", "Net", "settings.py")


def test_a_tensor_method_name_on_a_local_object_runs_its_class_method(write_tree) -> None:
    # Dynamo breaks inside Scratch.double and again at the call (GM605: the object was built in the
    # frame); `scratch.item()` is Scratch's, no tensor's `.item()`, and torch's `.double()` is no call
    _assert_reported_where_dynamo_breaks(write_tree(LOCAL_OBJECT_TREE), "lopkg", "model", "Net", "model.py")


def test_a_closure_in_a_method_calls_methods_of_the_self_it_closes_over(write_tree) -> None:
    # `apply` binds a `self` of its own (an Other): Net.unused (`y.tolist()`) is not reached
    _assert_reported_where_dynamo_breaks(write_tree(CLOSURE_TREE), "clopkg", "model", "Net", "model.py")


def test_subscripting_a_local_object_runs_its_getitem(write_tree) -> None:
    # Plain has no __getitem__ (its `get` does `k.tolist()`): subscripting `plain.rows(x)` runs none
    _assert_reported_where_dynamo_breaks(write_tree(ITEM_TREE), "itempkg", "model", "Net", "model.py")


PROPERTY_TREE = {
    "proppkg/__init__.py": "",
    "proppkg/shapes.py": """
        from torch import nn


        class Box:
            def __init__(self, w):
                self.w = w

            @property
            def scale(self):
                if self.w.sum() > 0:  # break
                    return 2
                return 1

            @property
            def unread(self):
                return self.w.tolist()


        class Boxed(nn.Module):
            def forward(self, x):
                box = Box(x)
                return x * box.scale
    """,
    "proppkg/layer.py": """
        from torch import nn


        def twice(value):
            return value * 2


        class Layer(nn.Module):
            @property
            def size_x(self):
                print("size")  # break
                return 4

            @property
            def size_y(self):
                return self.weight.tolist()

            def forward(self, x):
                return x * twice(self.size_x)
    """,
}


def test_a_property_read_runs_its_getter_where_dynamo_breaks_inside(write_tree) -> None:
    """`self.size_x` and `box.scale` (a Box built in the frame) run their getters: Dynamo inlines
    them and reports what breaks inside at the getter's own line (each model reads one: after a
    break inside a getter the rest of the reading frame runs eagerly). A property nobody reads
    (size_y, Box.unread: `.tolist()`) is not reached."""
    root = write_tree(PROPERTY_TREE)
    _assert_reported_where_dynamo_breaks(root, "proppkg", "layer", "Layer", "layer.py")
    _assert_reported_where_dynamo_breaks(root, "proppkg", "shapes", "Boxed", "shapes.py")
    _assert_reach(root, "proppkg", {("proppkg.layer", "Layer.size_x")}, {("proppkg.layer", "Layer.size_y")})


CLOSED_PROPERTY_TREE = {
    "clprop/__init__.py": "",
    "clprop/model.py": """
        from torch import nn


        class Net(nn.Module):
            @property
            def ready(self):
                print("ready")  # break
                return True

            @property
            def unread(self):
                return self.weight.tolist()

            def forward(self, x):
                def step(y):
                    return y * 2 if self.ready else y

                return step(x)
    """,
}


GENERIC_BASE_TREE = {
    "genpkg/__init__.py": "",
    "genpkg/ops.py": """
        from typing import Generic, TypeVar

        import torch

        T = TypeVar("T")


        class Ops(Generic[T]):
            @classmethod
            def scale_of(cls, x):
                return x.sum().item()  # break

            @classmethod
            def unused(cls, x):
                return x.tolist()


        class TensorOps(Ops[torch.Tensor]):
            @classmethod
            def transform(cls, x):
                return x * cls.scale_of(x)
    """,
    "genpkg/model.py": """
        from torch import nn

        from genpkg.ops import TensorOps


        class Net(nn.Module):
            def forward(self, x):
                return TensorOps.transform(x)
    """,
}


@pytest.mark.parametrize(
    ("tree", "package", "reached", "unreached"),
    [
        # torchmetrics' `wrapped_func` in `_wrap_compute` reads `self.update_called`: Net.ready
        # runs; Net.unread (`.tolist()`), read nowhere, is not reached
        (CLOSED_PROPERTY_TREE, "clprop", ("clprop.model", "Net.ready"), ("clprop.model", "Net.unread")),
        # kornia's `InputSequentialOps(SequentialOpsInterface[torch.Tensor])` calls the base's
        # `cls.get_instance_module_param(...)`: Ops.scale_of runs; Ops.unused (`.tolist()`) is called nowhere
        (GENERIC_BASE_TREE, "genpkg", ("genpkg.ops", "Ops.scale_of"), ("genpkg.ops", "Ops.unused")),
    ],
    ids=["property-read-in-a-closure-on-the-self-it-closes-over", "method-inherited-through-a-generic-base"],
)
def test_a_function_reached_through_the_edge_is_traced_where_dynamo_breaks(
    write_tree, tree: dict[str, str], package: str, reached: tuple[str, str], unreached: tuple[str, str]
) -> None:
    root = write_tree(tree)
    file = reached[0].rpartition(".")[2] + ".py"
    _assert_reported_where_dynamo_breaks(root, package, "model", "Net", file)
    _assert_reach(root, package, {reached}, {unreached})


CLASS_ALIAS_TREE = {
    "aliaspkg/__init__.py": "",
    "aliaspkg/backends.py": """
        class Backend:
            @staticmethod
            def total(x):
                return x * x.sum().item()  # break


        class Jit(Backend):
            @staticmethod
            def reshape(x):
                return x.view(-1) * x.max().item()  # break

            @staticmethod
            def scale(x):
                if x.sum() > 0:  # break
                    return x * 2
                return x


        class Other:
            @staticmethod
            def total(x):
                return x.tolist()
    """,
    "aliaspkg/model.py": """
        from torch import nn

        from aliaspkg.backends import Jit


        class Net(nn.Module):
            def forward(self, x):
                backend = Jit
                return backend.total(backend.scale(backend.reshape(x)))
    """,
}


def test_a_method_called_on_a_local_naming_a_class_runs_the_class_method(write_tree) -> None:
    # einops' `backend = TorchJitBackend`, then `backend.reshape(x)`: Jit's own `reshape` (no
    # tensor's, though named like one) and `scale`, and the `total` it inherits run; Other.total
    # (`x.tolist()`), a method of the same name, does not
    _assert_reported_where_dynamo_breaks(write_tree(CLASS_ALIAS_TREE), "aliaspkg", "model", "Net", "backends.py")


DEFAULT_PART_TREE = {
    "partpkg/__init__.py": "",
    "partpkg/model.py": """
        from torch import nn


        class Distance:
            def margin(self, x, y):
                return x - y


        class Cosine(Distance):
            def margin(self, x, y):
                if (x > y).all():  # break
                    return x
                return y


        class Unrelated:
            def margin(self, x, y):
                return x.tolist()


        class Base(nn.Module):
            def __init__(self, distance=None):
                super().__init__()
                self.distance = self.default_distance() if distance is None else distance

            def default_distance(self):
                return Distance()


        class Net(Base):
            def default_distance(self):
                return Cosine()

            def forward(self, x):
                return self.distance.margin(x, x * 2)
    """,
}


def test_a_part_built_by_a_method_of_the_class_runs_what_that_method_returns(write_tree) -> None:
    # pytorch_metric_learning's `self.distance = self.get_default_distance() if distance is None
    # else distance`, each loss overriding the factory: Net's Cosine.margin runs; Unrelated.margin
    # (`x.tolist()`), a method of the same name on a class no factory returns, does not
    _assert_reported_where_dynamo_breaks(write_tree(DEFAULT_PART_TREE), "partpkg", "model", "Net", "model.py")


PARTIAL_TREE = {
    "partialpkg/__init__.py": "",
    "partialpkg/ops.py": """
        def scaled(x, factor=1.0):
            if x.sum() > factor:  # break
                return x * factor
            return x


        def shifted(x):
            return x * x.sum().item()  # break


        def shifted_list(x):
            return x.tolist()
    """,
    "partialpkg/model.py": """
        import functools

        from torch import nn

        from partialpkg import ops
        from partialpkg.ops import scaled, shifted_list


        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.fn = functools.partial(scaled, factor=2.0)
                self.bound = functools.partial(shifted_list, [1.0])

            def forward(self, x):
                return getattr(ops, "shifted")(self.fn(x))
    """,
}


def test_a_keyword_partial_held_by_the_module_and_a_function_fetched_by_getattr_are_traced(write_tree) -> None:
    # `self.fn = functools.partial(scaled, factor=2.0)` called in forward runs `scaled`;
    # `getattr(ops, "shifted")(...)` runs ops.shifted. shifted_list (`x.tolist()`) is held by a
    # partial binding a positional argument, which nothing calls
    _assert_reported_where_dynamo_breaks(write_tree(PARTIAL_TREE), "partialpkg", "model", "Net", "ops.py")


METHOD_TABLE_TREE = {
    "tablepkg/__init__.py": "",
    "tablepkg/model.py": """
        from torch import nn


        def apply_steps(x, order, steps):
            for index in order:
                x = steps[index](x)
            return x


        def keep(steps):
            return len(steps)


        class Net(nn.Module):
            def bright(self, x):
                return x * 2

            def hue(self, x):
                if x.sum() > 0:  # break
                    return x + 1
                return x

            def kept(self, x):
                return x.tolist()

            def forward(self, x):
                steps = (self.bright, self.hue)
                keep((self.kept,))
                return apply_steps(x, (0, 1), steps)
    """,
}


def test_bound_methods_in_a_tuple_passed_to_a_function_calling_its_elements_are_traced(write_tree) -> None:
    # kornia's ColorJitter: `steps = (self._brightness_fn, ..., self._adjust_hue_turns)` handed to
    # `_dispatch_color_steps`, which calls `steps[idx](...)`; `kept` (`x.tolist()`) is passed in
    # a tuple to `keep`, which calls nothing it is given
    _assert_reported_where_dynamo_breaks(write_tree(METHOD_TABLE_TREE), "tablepkg", "model", "Net", "model.py")


OWN_RESULT_TREE = {
    "resultpkg/__init__.py": "",
    "resultpkg/model.py": """
        from torch import nn


        class Distribution:
            def entropy(self, x):
                raise NotImplementedError


        class Categorical(Distribution):
            def __init__(self, scale):
                self.scale = scale

            def entropy(self, x):
                if x.sum() > self.scale:  # break
                    return x * 2
                return x


        class Unrelated:
            def entropy(self, x):
                return x.tolist()


        class Policy(nn.Module):
            def __init__(self):
                super().__init__()
                self.made = Categorical(2.0)

            def distribution(self) -> Distribution:
                return self.made

            def forward(self, x):
                dist = self.distribution()
                return dist.entropy(x)
    """,
}


def test_a_method_called_on_what_an_own_method_returns_runs_the_annotated_class_method(write_tree) -> None:
    # stable_baselines3's `distribution = self._get_action_dist_from_latent(latent_pi)` (annotated
    # `-> Distribution`), then `distribution.entropy()`: Categorical's override runs; Unrelated's
    # `entropy` (`x.tolist()`), a method of the same name on another class, does not
    root = write_tree(OWN_RESULT_TREE)
    _assert_reported_where_dynamo_breaks(root, "resultpkg", "model", "Policy", "model.py")
    program = Program(Workspace([str(root / "resultpkg")], Config(), jobs=1).summaries.values(), scope="model")
    assert ("resultpkg.model", "Categorical.entropy") in program.traced_functions()
    assert ("resultpkg.model", "Unrelated.entropy") not in program.traced_functions()


SIZED_TREE = {
    "sizedpkg/__init__.py": "",
    "sizedpkg/model.py": """
        from torch import nn


        class Cache:
            def __init__(self, x):
                self.x = x

            def __len__(self):
                if self.x.sum() > 0:  # break
                    return 2
                return 1


        class Plain:
            def __len__(self):
                return len(self.x.tolist())


        class Inner:
            def __init__(self, x):
                self.x = x

            def __len__(self):
                return 3 if self.x.max() > 1 else 1  # break


        class Layered:
            def __init__(self, x):
                self.inner = Inner(x)
                self.rows = [x]

            def __len__(self):
                return len(self.inner) + len(self.rows)


        class Net(nn.Module):
            def forward(self, x):
                cache = Cache(x)
                rows = [x, x]
                return x * len(cache) + len(rows) + len(x) + len(Layered(x))
    """,
}


def test_len_of_a_local_of_a_known_class_runs_its_len(write_tree) -> None:
    # `len(cache)` on a Cache, and transformers' EncoderDecoderCache.__len__ returning
    # `len(self.self_attention_cache)`: Cache.__len__ runs; Plain.__len__ (`x.tolist()`) is no
    # class of a value passed to len, and len of a list or a tensor runs none
    root = write_tree(SIZED_TREE)
    _assert_reported_where_dynamo_breaks(root, "sizedpkg", "model", "Net", "model.py")
    program = Program(Workspace([str(root / "sizedpkg")], Config(), jobs=1).summaries.values(), scope="model")
    assert ("sizedpkg.model", "Cache.__len__") in program.traced_functions()
    assert ("sizedpkg.model", "Inner.__len__") in program.traced_functions()
    assert ("sizedpkg.model", "Plain.__len__") not in program.traced_functions()


SETATTR_TREE = {
    "setpkg/__init__.py": "",
    "setpkg/model.py": """
        import torch
        from torch import nn


        class Tracked(nn.Module):
            def __setattr__(self, name, value):
                if isinstance(value, torch.Tensor) and value.sum() > 0:  # break
                    value = value * 2
                super().__setattr__(name, value)


        class Untouched:
            def __setattr__(self, name, value):
                object.__setattr__(self, name, value.tolist())


        class Net(Tracked):
            def forward(self, x):
                self.last = x + 1
                return self.last * 2
    """,
}


def test_an_attribute_written_on_self_runs_the_class_setattr(write_tree) -> None:
    # torchmetrics' Metric.__setattr__ runs on each `self.NAME = value` of its methods:
    # Tracked.__setattr__ runs for Net's write; Untouched.__setattr__ (`value.tolist()`), a class
    # no traced method writes an attribute of, does not
    root = write_tree(SETATTR_TREE)
    _assert_reported_where_dynamo_breaks(root, "setpkg", "model", "Net", "model.py")
    program = Program(Workspace([str(root / "setpkg")], Config(), jobs=1).summaries.values(), scope="model")
    assert ("setpkg.model", "Tracked.__setattr__") in program.traced_functions()
    assert ("setpkg.model", "Untouched.__setattr__") not in program.traced_functions()


# torch's own layout, for a program that holds torch: `dependencies: [torch]` summarises it.
TORCH_IN_PROGRAM_TREE = {
    "torch/__init__.py": "from torch import nn\n",
    "torch/nn/__init__.py": "from torch.nn.modules.module import Module\n",
    "torch/nn/modules/__init__.py": "",
    "torch/nn/modules/module.py": """
        class Module:
            def __call__(self, *args):
                return self.forward(*args)
    """,
    "model.py": """
        import torch
        from torch import nn


        class Plain(nn.Module):
            def forward(self, x):
                return x.item()


        class Dotted(torch.nn.Module):
            def forward(self, x):
                return x.item()
    """,
}


def test_a_module_class_stays_one_when_torch_is_in_the_program(write_tree) -> None:
    """Review 14, finding 6: with `dependencies: [torch]`, `nn.Module` resolved to torch's own
    class, whose bases say nothing of being a module, and every forward left the scope
    (`graphmend check` said clean). The class is known by its qualified name first."""
    root = write_tree(TORCH_IN_PROGRAM_TREE)
    program = Program(Workspace([str(root)], Config(), jobs=1).summaries.values(), scope="model")
    assert program.is_module_class("model", "Plain") and program.is_module_class("model", "Dotted")
    assert {("model", "Plain.forward"), ("model", "Dotted.forward")} <= program.traced_functions()


IMPLICIT_TREE = {
    "implpkg/__init__.py": "",
    "implpkg/tables.py": """
        class Registry:
            def __getitem__(self, key):
                print("lookup")  # break
                return key


        class Unread:
            def __getitem__(self, key):
                return key.tolist()


        REGISTRY = Registry()
        UNREAD = Unread()


        def eager_only(key):
            return UNREAD[key]
    """,
    "implpkg/model.py": """
        from torch import nn

        from implpkg.tables import REGISTRY


        class Store:
            def __setitem__(self, key, value):
                if value.sum() > 0:  # break
                    self.last = value


        class Bag:
            def __init__(self, x):
                self.x = x

            def __contains__(self, item):
                return bool(item.max() > 1)  # break


        class Loose:
            def __contains__(self, item):
                return item.tolist()


        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.store = Store()

            def forward(self, x):
                self.store["last"] = x
                bag = Bag(x)
                y = x + 1 if x in bag else x
                return REGISTRY[y]
    """,
    "implpkg/loops.py": """
        from torch import nn


        class Steps:
            def __init__(self, x):
                self.x = x

            def __iter__(self):
                print("iterate")  # break
                return iter([self.x])


        class Loose:
            def __iter__(self):
                return iter(self.x.tolist())


        class Looped(nn.Module):
            def forward(self, x):
                for part in Steps(x):
                    x = x + part
                return x
    """,
}


def test_syntax_that_calls_a_dunder_runs_it_on_objects_of_known_classes(write_tree) -> None:
    """`self.store[k] = v` runs Store.__setitem__ (what __init__ builds there), `x in bag` Bag's
    `__contains__` (a local built from a class), `for part in Steps(x)` Steps.__iter__ (an object
    built in place), `REGISTRY[y]` the __getitem__ of the object an imported module builds at import
    time (transformers' `ALL_MASK_ATTENTION_FUNCTIONS[config._attn_implementation]`): Dynamo inlines
    each and breaks inside. Loose's dunders (classes no traced code iterates or asks) and
    Unread.__getitem__ (its module-level instance subscripted only by eager code) are not reached."""
    root = write_tree(IMPLICIT_TREE)
    _assert_reported_where_dynamo_breaks(root, "implpkg", "model", "Net", "model.py")
    _assert_reported_where_dynamo_breaks(root, "implpkg", "model", "Net", "tables.py")
    _assert_reported_where_dynamo_breaks(root, "implpkg", "loops", "Looped", "loops.py")
    _assert_reach(
        root, "implpkg",
        {("implpkg.model", "Store.__setitem__"), ("implpkg.model", "Bag.__contains__"),
         ("implpkg.loops", "Steps.__iter__"), ("implpkg.tables", "Registry.__getitem__")},
        {("implpkg.loops", "Loose.__iter__"), ("implpkg.model", "Loose.__contains__"),
         ("implpkg.tables", "Unread.__getitem__")},
    )


ANNOTATED_TREE = {
    "annpkg/__init__.py": "",
    "annpkg/tables.py": """
        import logging


        class Registry:
            def __getitem__(self, key):
                print("lookup")  # break
                return key


        REGISTRY: Registry = Registry()
        logger: logging.Logger = logging.getLogger(__name__)
    """,
    "annpkg/model.py": """
        from torch import nn

        from annpkg.tables import REGISTRY, logger


        class Net(nn.Module):
            def forward(self, x):
                logger.warning("traced")  # break
                return REGISTRY[x + 1]
    """,
}


def test_an_annotated_module_level_binding_is_the_object_it_builds(write_tree) -> None:
    """`REGISTRY: Registry = Registry()` (transformers' `ALL_MASK_ATTENTION_FUNCTIONS:
    AttentionMaskInterface = AttentionMaskInterface()`) binds the object as the plain assignment
    does: `REGISTRY[k]` runs its __getitem__, and an annotated `logger` is a logger (Dynamo breaks on
    both, measured)."""
    root = write_tree(ANNOTATED_TREE)
    _assert_reported_where_dynamo_breaks(root, "annpkg", "model", "Net", "tables.py")
    _assert_reported_where_dynamo_breaks(root, "annpkg", "model", "Net", "model.py")
    _assert_reach(root, "annpkg", {("annpkg.tables", "Registry.__getitem__")}, set())


DATACLASS_TREE = {
    "datapkg/__init__.py": "",
    "datapkg/model.py": """
        from dataclasses import dataclass

        import torch
        from torch import nn


        class Output:
            def __init__(self, *args):
                print("replaced")

            def __post_init__(self):
                print("checked")  # break


        @dataclass
        class Result(Output):
            value: torch.Tensor = None


        @dataclass(init=False)
        class Manual:
            value: torch.Tensor = None

            def __post_init__(self):
                print("never called")


        class Plain:
            def __post_init__(self):
                print("never called")


        class Net(nn.Module):
            def forward(self, x):
                manual, plain = Manual(), Plain()
                return Result(x).value + 1
    """,
}


def test_building_a_dataclass_runs_its_post_init_not_a_base_init(write_tree) -> None:
    """transformers' `BaseModelOutput(...)`, a `@dataclass` subclass of ModelOutput: the generated
    `__init__` replaces ModelOutput.__init__ and calls the inherited `__post_init__`, which Dynamo
    inlines. Output.__init__ does not run; nor does the `__post_init__` of a dataclass with
    `init=False` or of a plain class (nothing calls it)."""
    root = write_tree(DATACLASS_TREE)
    _assert_reported_where_dynamo_breaks(root, "datapkg", "model", "Net", "model.py")
    _assert_reach(
        root, "datapkg",
        {("datapkg.model", "Output.__post_init__")},
        {("datapkg.model", "Output.__init__"), ("datapkg.model", "Manual.__post_init__"),
         ("datapkg.model", "Plain.__post_init__")},
    )


DOCUMENTED_ATTRIBUTE_TREE = {
    "docpkg/__init__.py": "",
    "docpkg/dynamics.py": """
        import torch
        from torch import nn


        class System(nn.Module):
            def __init__(self):
                super().__init__()
                self.ref = torch.ones(3)


        class Plant(System):
            @property
            def A(self):
                return self.ref * self.ref.sum().item()  # break

            @property
            def unread(self):
                return self.ref.tolist()


        class Other(nn.Module):
            @property
            def A(self):
                return torch.ones(3).tolist()
    """,
    "docpkg/filters.py": """
        from torch import nn


        class Filter(nn.Module):
            '''Filters a system's output.

            Args:
                model (:obj:`System`): the system to filter, a subclass of it.
                other: anything.
            '''

            def __init__(self, model, other=None):
                super().__init__()
                self.model = model
                self.other = other

            def forward(self, x):
                if self.other is not None:
                    return x * self.other.A
                return x * self.model.A
    """,
    "docpkg/model.py": """
        from docpkg.dynamics import Plant
        from docpkg.filters import Filter


        def Net():
            return Filter(Plant())
    """,
}


def test_a_property_read_through_an_attribute_a_docstring_types_runs_its_getter(write_tree) -> None:
    """pypose's `EKF(model)` documents `model (:obj:`System`)` (a class its module does not
    import), stores it in `self.model` and reads `self.model.A`, a property of a subclass: Dynamo
    inlines the getter and breaks inside it. The attribute is typed by the docstring (the one class
    of the tree so named) and the read runs the getters of that class and its subclasses.
    `Plant.unread` is read nowhere; `Other.A` is read only through `self.other`, which nothing types.
    Checked in `auto`: the model scope reads only the modules the forwards' modules import, and the
    docstring names a class of a module filters.py does not import."""
    root = write_tree(DOCUMENTED_ATTRIBUTE_TREE)
    _assert_reported_where_dynamo_breaks(root, "docpkg", "model", "Net", "dynamics.py", scope="auto")
    _assert_reach(
        root, "docpkg",
        {("docpkg.dynamics", "Plant.A")},
        {("docpkg.dynamics", "Plant.unread"), ("docpkg.dynamics", "Other.A")},
    )


DECORATOR_CLASS_TREE = {
    "decopkg/__init__.py": "",
    "decopkg/guards.py": """
        class Guard:
            def __init__(self, fn):
                self.fn = fn

            def __call__(self, x):
                print("guarded")  # break
                return self.fn(x)


        class Unused:
            def __init__(self, fn):
                self.fn = fn

            def __call__(self, x):
                print("never")
                return self.fn(x)


        @Guard
        def scale(x):
            return x * 2


        @Unused
        def never_called(x):
            return x
    """,
    "decopkg/model.py": """
        from torch import nn

        from decopkg.guards import scale


        class Net(nn.Module):
            def forward(self, x):
                return scale(x)
    """,
}


def test_calling_a_function_decorated_by_a_class_runs_the_class_call(write_tree) -> None:
    """heavyball's `@bucket_aware` (a FunctionTransform subclass) makes `scale_by_soap` an instance:
    calling the name runs `BucketGuard.__call__`, which Dynamo inlines and breaks inside. The
    `__call__` of a class that decorates only functions nobody calls (Unused) is not reached."""
    root = write_tree(DECORATOR_CLASS_TREE)
    _assert_reported_where_dynamo_breaks(root, "decopkg", "model", "Net", "guards.py")
    _assert_reach(root, "decopkg", {("decopkg.guards", "Guard.__call__")}, {("decopkg.guards", "Unused.__call__")})
