"""What the analysis tells a rule about compiled code in an installed package (analysis/installed_packages.py)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class CompiledModule:
    module: str  # the compiled module a name comes from
    cython: bool  # built by Cython (its functions, ufuncs and classes all refuse a call: GB0156)
