"""Which names hold a logger (GM402): what built the name decides, its spelling only when unknown.

`log = Tracker()` or `metrics_logger = MetricsLogger()` with the project's own class is an object
whose methods Dynamo traces like any other (measured on torch 2.13: `log.warning("x")` on such an
object does not break); the scope solver follows it as it follows `COUNTER = Counter()`. A name is
a logger by its spelling (`logger`, `log`, ...) only when nothing in the module says what it holds.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping

from graphmend_bot.analysis.model import ClassSummary
from graphmend_bot.vocabulary import known_names as V


def builds_logger(callee: str, project_classes: Mapping[str, ClassSummary], package: str) -> bool:
    """Whether a call of `callee` (resolved where it can be) returns a logger: `logging.getLogger`,
    a `get_logger`-like factory, a `*Logger` class from outside the project, or a project class
    deriving from one (`class OnceLogger(logging.Logger)`)."""
    leaf = callee.rsplit(".", 1)[-1]
    if callee.startswith("logging.") or leaf.endswith(V.LOGGER_FACTORIES):
        return True
    own = project_classes.get(callee)
    if own is not None:
        return any(builds_logger(base, {}, package) for base in own.bases)
    return leaf.endswith("Logger") and callee.partition(".")[0] != package


def module_objects(constructors: Mapping[str, str], logger_names: Collection[str]) -> frozenset[str]:
    """Module-level names bound by a call to an object that is no logger (`log = Tracker()`)."""
    return frozenset(name for name in constructors if name.isidentifier() and name not in logger_names)
