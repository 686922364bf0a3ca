"""The child's contact with the code under test, torch-free: the factory found from its spec and
the keywords it accepts, and how a failure is told (ChildError, `describe`).

Loaded by path by child.py (see its `_load_by_path`), like protocol.py: standard library only,
no graphmend_bot imports, so nothing of graphmend's is importable in the child.
"""

from __future__ import annotations

import importlib
import inspect
import os
import traceback
from collections.abc import Callable
from typing import Any, cast


class ChildError(Exception):
    def __init__(self, kind: str, message: str) -> None:
        super().__init__(message)
        self.kind = kind
        self.message = message



def resolve_factory(spec: str, root: str) -> Callable[..., Any]:
    module_name, _, attribute = spec.partition(":")
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as error:
        if error.name and (module_name == error.name or module_name.startswith(error.name + ".")):
            raise ChildError(
                "factory-missing", f"factory {spec}: no module named {error.name!r} under {root}"
            ) from None
        raise ChildError(
            "factory-raised", f"factory {spec}: importing {module_name} failed: {describe(error, root)}"
        ) from None
    except BaseException as error:
        raise ChildError(
            "factory-raised", f"factory {spec}: importing {module_name} failed: {describe(error, root)}"
        ) from None
    target: Any = module
    for part in attribute.split("."):
        if not hasattr(target, part):
            raise ChildError(
                "factory-missing", f"factory {spec}: {module_name} has no attribute {attribute!r}"
            )
        target = getattr(target, part)
    if not callable(target):
        raise ChildError(
            "factory-missing", f"factory {spec}: {attribute} is a {type(target).__name__}, not callable"
        )
    return cast("Callable[..., Any]", target)


def accepted_keywords(factory: Callable[..., Any]) -> set[str]:
    try:
        parameters = inspect.signature(factory).parameters.values()
    except (TypeError, ValueError):
        return set()
    kinds = (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY)
    return {p.name for p in parameters if p.kind in kinds}


def describe(error: BaseException, root: str) -> str:
    """`Type: first line of message (at file:line)`, the line being the deepest one under root."""
    where = ""
    for frame in reversed(traceback.extract_tb(error.__traceback__)):
        if os.path.abspath(frame.filename).startswith(root + os.sep):
            where = f" (at {relative(frame.filename, root)}:{frame.lineno})"
            break
    return f"{type(error).__name__}: {first_line(str(error))}{where}"


def first_line(text: str) -> str:
    lines = [line.strip() for line in text.strip().splitlines() if line.strip()]
    return lines[0] if lines else ""


def relative(filename: str, root: str) -> str:
    path = os.path.abspath(filename)
    return os.path.relpath(path, root) if path.startswith(root + os.sep) else filename


