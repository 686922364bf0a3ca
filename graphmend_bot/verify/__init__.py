"""`graphmend verify`: run original and rewritten code in separate processes and compare graph
counts (TorchDynamo), outputs, cold-start and steady-state time.

The names below are imported on first use: the CLI imports this package for verify's flags
(arguments.py) on every command, and `check` needs none of the runner.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from graphmend_bot.verify.runner import EntryResult, VerifyReport, verify
    from graphmend_bot.verify.settings import EntryPoint, Settings, VerifyConfig, parse_verify_config
    from graphmend_bot.verify.sources import ArmSource

_HOMES = {
    "ArmSource": "sources",
    "EntryPoint": "settings",
    "EntryResult": "runner",
    "Settings": "settings",
    "VerifyConfig": "settings",
    "VerifyReport": "runner",
    "parse_verify_config": "settings",
    "verify": "runner",
}
__all__ = [
    "ArmSource",
    "EntryPoint",
    "EntryResult",
    "Settings",
    "VerifyConfig",
    "VerifyReport",
    "parse_verify_config",
    "verify",
]


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{home}"), name)
    globals()[name] = value
    return value
