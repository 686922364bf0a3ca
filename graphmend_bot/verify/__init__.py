"""`graphmend verify`: run original and rewritten code in separate processes and compare graph
counts (TorchDynamo), outputs, cold-start and steady-state time."""

from graphmend_bot.verify.runner import EntryResult, VerifyReport, verify
from graphmend_bot.verify.settings import EntryPoint, Settings, VerifyConfig, parse_verify_config
from graphmend_bot.verify.sources import ArmSource

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
