"""The GitHub Actions contract, read once: environment variables, `INPUT_*` inputs, the event.

Nothing else configures `graphmend bot`. Bad values raise ActionError with a message for the user.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

FAIL_ON = ("findings", "fixable", "new-breaks", "never")
FIXES = ("safe", "verified")  # which rewrites the fix pull request carries
DEFAULT_API_URL = "https://api.github.com"
DEFAULT_SERVER_URL = "https://github.com"


class ActionError(ValueError):
    """Misconfiguration: a message the user can act on."""


@dataclass(frozen=True)
class Inputs:
    token: str
    paths: list[str]
    config: str
    comment: bool
    fail_on: str
    sarif_file: str
    max_comments: int
    review_bundle: str
    fix_pr: bool = False  # open and update fix pull requests
    tracking_issue: bool = True  # scheduled scans keep a tracking issue
    shard: str = ""  # "i/N": check only this shard of the files (a matrix job)
    shard_results: str = ""  # a folder of shard results to merge instead of checking
    verify_workflow: str = "graphmend-verify.yml"  # what `/graphmend verify` dispatches
    bot_login: str = ""  # the bot's own login; empty: asked of the API (GraphQL `viewer`)
    fixes: str = "safe"  # "verified": the fix pull request also carries unsafe fixes, for the GPU job to check
    census_file: str = ""  # a census artifact (untrusted: written by the pull request's tests), merged when valid
    cache_dir: str = ""  # the summary cache folder the workflow restored (default-branch writes only); "": none
    baseline: str = ""  # a baseline file of findings not to report (baseline.py); "" for the config's key
    census_base: str = ""  # a base census file (untrusted: informs the table only, never the gate)
    census_base_workflow: str = ""  # the default-branch workflow whose artifact is the trusted base census
    census_base_artifact: str = "graphmend-census"  # that artifact's name


@dataclass(frozen=True)
class ActionContext:
    event_name: str
    event: dict[str, Any]
    api_url: str
    server_url: str
    repository: str
    workspace: Path
    output_file: Path | None
    summary_file: Path | None
    inputs: Inputs
    sha: str = ""  # GITHUB_SHA: the commit the workflow run checked out


def _input(env: Mapping[str, str], name: str, default: str = "") -> str:
    """An action input: GitHub sets INPUT_<NAME> with the name upper-cased, hyphens kept."""
    upper = name.upper()
    for key in (f"INPUT_{upper}", f"INPUT_{upper.replace('-', '_')}"):
        value = env.get(key)
        if value is not None and value.strip():
            return value.strip()
    return default


def _bool(name: str, value: str) -> bool:
    lowered = value.lower()
    if lowered in ("true", "yes", "1", "on"):
        return True
    if lowered in ("false", "no", "0", "off"):
        return False
    raise ActionError(f"input `{name}` must be true or false, got {value!r}")


def read_inputs(env: Mapping[str, str]) -> Inputs:
    fail_on = _input(env, "fail-on", "findings").lower()
    if fail_on not in FAIL_ON:
        raise ActionError(f"input `fail-on` must be one of {', '.join(FAIL_ON)}, got {fail_on!r}")
    raw_max = _input(env, "max-comments", "30")
    if not raw_max.isdigit() or not 0 <= int(raw_max) <= 100:
        raise ActionError(f"input `max-comments` must be a whole number from 0 to 100, got {raw_max!r}")
    paths = _input(env, "paths", ".").split()
    return Inputs(
        token=_input(env, "github-token") or env.get("GITHUB_TOKEN", "").strip(),
        paths=paths,
        config=_input(env, "config"),
        comment=_bool("comment", _input(env, "comment", "true")),
        fail_on=fail_on,
        sarif_file=_input(env, "sarif-file", "graphmend.sarif"),
        max_comments=int(raw_max),
        review_bundle=_input(env, "review-bundle"),
        fix_pr=_bool("fix-pr", _input(env, "fix-pr", "false")),
        tracking_issue=_bool("tracking-issue", _input(env, "tracking-issue", "true")),
        shard=_input(env, "shard"),
        shard_results=_input(env, "shard-results"),
        verify_workflow=_input(env, "verify-workflow", "graphmend-verify.yml"),
        bot_login=_bot_login(_input(env, "bot-login")),
        fixes=_fixes(env),
        census_file=_input(env, "census-file"),
        cache_dir=_input(env, "cache-dir"),
        baseline=_input(env, "baseline"),
        census_base=_input(env, "census-base"),
        census_base_workflow=_workflow_file(_input(env, "census-base-workflow")),
        census_base_artifact=_input(env, "census-base-artifact", "graphmend-census"),
    )


def _fixes(env: Mapping[str, str]) -> str:
    """`fixes`: `verified` by default when a verify workflow is configured (its input is not set
    to empty), since that workflow checks the unsafe fixes' assumptions; `safe` otherwise."""
    verify_set = all(env.get(key, "unset").strip() for key in ("INPUT_VERIFY-WORKFLOW", "INPUT_VERIFY_WORKFLOW"))
    fixes = _input(env, "fixes", "verified" if verify_set else "safe").lower()
    if fixes not in FIXES:
        raise ActionError(f"input `fixes` must be one of {', '.join(FIXES)}, got {fixes!r}")
    return fixes


_WORKFLOW_FILE = re.compile(r"[A-Za-z0-9._-]{1,100}\.ya?ml")


def _workflow_file(value: str) -> str:
    if value and not _WORKFLOW_FILE.fullmatch(value):
        raise ActionError(f"input `census-base-workflow` must be a workflow file name such as `graphmend-census.yml`, "
                          f"got {value[:60]!r}")
    return value


_LOGIN = re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})(?:\[bot\])?")


def _bot_login(value: str) -> str:
    if value and not _LOGIN.fullmatch(value):
        raise ActionError(f"input `bot-login` must be a GitHub login such as `my-app[bot]`, got {value[:60]!r}")
    return value


def read_context(env: Mapping[str, str]) -> ActionContext:
    event_name = env.get("GITHUB_EVENT_NAME", "").strip()
    if not event_name:
        raise ActionError("GITHUB_EVENT_NAME is not set: `graphmend bot` runs inside GitHub Actions "
                          "(use `graphmend check` on the command line)")
    event_path = env.get("GITHUB_EVENT_PATH", "").strip()
    event: dict[str, Any] = {}
    if event_path:
        try:
            loaded = json.loads(Path(event_path).read_text("utf-8"))
        except (OSError, UnicodeDecodeError) as error:
            raise ActionError(f"cannot read the event payload GITHUB_EVENT_PATH={event_path}: {error}") from None
        except json.JSONDecodeError as error:
            raise ActionError(f"the event payload {event_path} is not valid JSON: {error}") from None
        if not isinstance(loaded, dict):
            raise ActionError(f"the event payload {event_path} is not a JSON object")
        event = loaded
    workspace = Path(env.get("GITHUB_WORKSPACE", "").strip() or ".")
    if not workspace.is_dir():
        raise ActionError(f"GITHUB_WORKSPACE={workspace} is not a directory")
    repository = env.get("GITHUB_REPOSITORY", "").strip()
    if repository.count("/") != 1:
        repository = str(event.get("repository", {}).get("full_name", "")) if isinstance(
            event.get("repository"), dict) else ""
    output = env.get("GITHUB_OUTPUT", "").strip()
    summary = env.get("GITHUB_STEP_SUMMARY", "").strip()
    return ActionContext(
        event_name=event_name,
        event=event,
        api_url=env.get("GITHUB_API_URL", "").strip() or DEFAULT_API_URL,
        server_url=env.get("GITHUB_SERVER_URL", "").strip() or DEFAULT_SERVER_URL,
        repository=repository,
        workspace=workspace.resolve(),
        output_file=Path(output) if output else None,
        summary_file=Path(summary) if summary else None,
        inputs=read_inputs(env),
        sha=env.get("GITHUB_SHA", "").strip(),
    )
