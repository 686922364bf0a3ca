"""Scope edges through classes an object is given when it is built (given_callables.py), each
measured with torch._dynamo.explain, with negatives:

- `jacobian._Jacobians = Jacobians(Jacobian)` at import time (an object in a function's
  attribute), then `jacobian._Jacobians(ys)` in traced code runs Jacobians.__call__, which keeps
  the class it was given (`self.JacobianClass = JacobianClass`), builds
  `self.Js[key] = self.JacobianClass(ys)` and calls `self.Js[key](i)`: Jacobian.__call__ runs
  (DeepXDE's gradients_reverse.py). A class no builder passes is not reached, nor one passed to
  another class's builder that traced code never calls. The dict's key, a tuple holding a tensor,
  is hashed, never read back as an int: Dynamo does not break there, and GM302 says nothing;
- a Cache given `layer_class=Layer` by a subclass's `super().__init__(...)` appends
  `self.layer_class()` to `self.layers` and calls `self.layers[idx].update(x)`: Layer.update runs
  (transformers' DynamicCache and DynamicLayer); a layer class nobody gives a cache is not reached.
  (The cache is filled eagerly: a layer built in the compiled frame has no source, and Dynamo
  then also fails to resume at each call on the way, a Reconstruction failure of its own.)
- `ALL_MASK_FUNCTIONS[key](x)` on a module-level object whose class has a `__getitem__` calls a
  value of the dict tables its class body binds (every value: the key is a runtime string); a
  sibling class's table is not reached.

The negatives are private (`_Hessian`, `_OtherLayer`, `_unused_mask`): `auto`'s public-api scope
roots every public callable of a package, which would reach them as roots, not through an edge."""

from __future__ import annotations

import pytest

pytest.importorskip("torch")

from test_scope_edges import _assert_reach, _assert_reported_where_dynamo_breaks

GIVEN_TREE = {
    "givenpkg/__init__.py": "",
    "givenpkg/grads.py": """
        class Jacobian:
            def __init__(self, ys):
                self.ys = ys

            def __call__(self, i=0):
                print("jacobian")  # break
                return self.ys * (i + 1)


        class _Hessian:
            def __init__(self, ys):
                self.ys = ys

            def __call__(self, i=0):
                return self.ys.tolist()


        class Jacobians:
            def __init__(self, JacobianClass):
                self.JacobianClass = JacobianClass
                self.Js = {}

            def __call__(self, ys, i=0):
                key = (ys, i)
                if key not in self.Js:
                    self.Js[key] = self.JacobianClass(ys)
                return self.Js[key](i)


        class _Hessians:
            def __init__(self, HessianClass):
                self.HessianClass = HessianClass

            def __call__(self, ys):
                return self.HessianClass(ys)()


        def jacobian(ys, i=0):
            return jacobian._Jacobians(ys, i=i)


        jacobian._Jacobians = Jacobians(Jacobian)
        _hessians = _Hessians(_Hessian)
    """,
    "givenpkg/model.py": """
        from torch import nn

        from givenpkg.grads import jacobian


        class Net(nn.Module):
            def forward(self, x):
                return jacobian(x * 2, i=1)
    """,
}


CACHE_TREE = {
    "cachepkg/__init__.py": "",
    "cachepkg/cache.py": """
        import torch
        from torch import nn


        class Layer:
            def update(self, x):
                print("update")  # break
                return x + 1


        class _OtherLayer:
            def update(self, x):
                return x.tolist()


        class Cache:
            def __init__(self, layers=None, layer_class=None):
                self.layers = layers if layers is not None else []
                self.layer_class = layer_class

            def update(self, x, idx):
                while len(self.layers) <= idx:
                    self.layers.append(self.layer_class())
                return self.layers[idx].update(x)


        class LayerCache(Cache):
            def __init__(self):
                super().__init__(layer_class=Layer)


        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.cache = LayerCache()
                self.cache.update(torch.zeros(3), 0)  # built eagerly: the layer has a source

            def forward(self, x):
                return self.cache.update(x, 0)
    """,
}


def test_a_class_given_to_an_object_in_a_function_attribute_is_called_through_it(write_tree) -> None:
    root = write_tree(GIVEN_TREE)
    _assert_reported_where_dynamo_breaks(root, "givenpkg", "model", "Net", "grads.py")
    _assert_reach(
        root,
        "givenpkg",
        {("givenpkg.grads", "Jacobians.__call__"), ("givenpkg.grads", "Jacobian.__call__")},
        {("givenpkg.grads", "_Hessian.__call__"), ("givenpkg.grads", "_Hessians.__call__")},
    )


def test_a_layer_class_given_by_super_init_runs_through_the_list_it_fills(write_tree) -> None:
    root = write_tree(CACHE_TREE)
    _assert_reported_where_dynamo_breaks(root, "cachepkg", "cache", "Net", "cache.py")
    _assert_reach(
        root, "cachepkg", {("cachepkg.cache", "Layer.update")}, {("cachepkg.cache", "_OtherLayer.update")}
    )


INTERFACE_TREE = {
    "ifacepkg/__init__.py": "",
    "ifacepkg/masks.py": """
        from collections.abc import MutableMapping

        from torch import nn


        def sdpa_mask(x):
            print("sdpa")  # break
            return x + 1


        def eager_mask(x):
            return x - 1


        def _unused_mask(x):
            return x.tolist()


        class GeneralInterface(MutableMapping):
            _global_mapping = {}

            def __init__(self):
                self._local_mapping = {}

            def __getitem__(self, key):
                if key in self._local_mapping:
                    return self._local_mapping[key]
                return self._global_mapping[key]

            def __setitem__(self, key, value):
                self._local_mapping.update({key: value})

            def __delitem__(self, key):
                del self._local_mapping[key]

            def __iter__(self):
                return iter({**self._global_mapping, **self._local_mapping})

            def __len__(self):
                return len(self._global_mapping.keys() | self._local_mapping.keys())


        class MaskInterface(GeneralInterface):
            _global_mapping = {"sdpa": sdpa_mask, "eager": eager_mask}


        class _OtherInterface(GeneralInterface):
            _global_mapping = {"unused": _unused_mask}


        ALL_MASK_FUNCTIONS: MaskInterface = MaskInterface()
        _OTHER_FUNCTIONS = _OtherInterface()


        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.impl = "sdpa"

            def forward(self, x):
                mask_interface = ALL_MASK_FUNCTIONS[self.impl]
                return mask_interface(x)
    """,
}


def test_a_function_an_interface_object_looks_up_in_its_class_table_is_called(write_tree) -> None:
    """`ALL_MASK_FUNCTIONS[key](x)` on a module-level MaskInterface (transformers'
    GeneralInterface): its `__getitem__` returns a value of the `_global_mapping` table the class
    body binds, and Dynamo calls it. The table of a sibling class whose instance only eager code
    could subscript is not reached."""
    root = write_tree(INTERFACE_TREE)
    _assert_reported_where_dynamo_breaks(root, "ifacepkg", "masks", "Net", "masks.py")
    _assert_reach(root, "ifacepkg", {("ifacepkg.masks", "sdpa_mask")}, {("ifacepkg.masks", "_unused_mask")})
