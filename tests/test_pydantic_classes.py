"""GM692 across modules: a pydantic class imported from another module of the tree is judged by its
own class statement (the fixture, tests/fixtures/rules/GM692_pydantic_class_construction.py, holds
the constructs Dynamo measures in one module), each finding with its class's id."""

from __future__ import annotations

import textwrap
from pathlib import Path

from graphmend_bot.analysis.summary import summarize_module
from graphmend_bot.engine import check


def _findings(tmp_path: Path, files: dict[str, str]) -> list[tuple[str, int, str, str]]:
    for name, source in files.items():
        path = tmp_path / "pkg" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(source), encoding="utf-8")
    result = check([str(tmp_path / "pkg")], None, jobs=1)
    assert not result.errors, result.errors
    return sorted((Path(f.path).name, f.location.row, f.code, f.gb_id) for f in result.findings)


CONFIGS = """
    import dataclasses

    import pydantic
    from pydantic.dataclasses import dataclass

    @dataclass
    class Options:
        scale: float

    class Settings(pydantic.BaseModel):
        scale: float

    @dataclasses.dataclass
    class Plain:
        scale: float
"""


def test_pydantic_classes_imported_from_another_module_are_reported_with_their_ids(tmp_path: Path) -> None:
    assert _findings(
        tmp_path,
        {
            "__init__.py": "",
            "configs.py": CONFIGS,
            "model.py": """
            import torch
            from torch import nn

            from pkg import configs
            from pkg.configs import Options, Plain

            class Model(nn.Module):
                def forward(self, x: torch.Tensor) -> torch.Tensor:
                    a = Options(scale=2.0)
                    b = configs.Settings(scale=1.0)
                    c = Plain(scale=3.0)
                    return x * a.scale * b.scale * c.scale
        """,
        },
    ) == [("model.py", 10, "GM692", "GB3383"), ("model.py", 11, "GM692", "GB0156")]


def test_a_local_name_shadowing_an_imported_pydantic_class_or_an_eager_call_is_not_reported(
    tmp_path: Path,
) -> None:
    assert (
        _findings(
            tmp_path,
            {
                "__init__.py": "",
                "configs.py": CONFIGS,
                "model.py": """
            import torch
            from torch import nn

            from pkg.configs import Options, Settings

            def Settings(scale):  # the module's own function: builds no model
                return {"scale": scale}

            class Model(nn.Module):
                def __init__(self) -> None:
                    super().__init__()
                    self.options = Options(scale=2.0)  # eager: never traced

                def forward(self, x: torch.Tensor) -> torch.Tensor:
                    return x * self.options.scale * Settings(2.0)["scale"]
        """,
            },
        )
        == []
    )


PYDANTIC_CALLS = """
import pydantic
from torch import nn

from pkg.configs import Imported


class Settings(pydantic.BaseModel):
    scale: float


class Layer(nn.Module):
    pass


def Factory():
    return {}


class Model(nn.Module):
    def forward(self, x):
        return Settings(scale=1.0), Layer(), Factory(), Imported(scale=2.0), x
"""


def test_only_the_calls_that_may_build_a_pydantic_class_keep_a_draft() -> None:
    """A call of the module's own function or of its unmarked class resolves there, so its GM692
    draft could never stand: the worker does not send it (as for GM615's drafts)."""
    summary = summarize_module(PYDANTIC_CALLS, "pkg/model.py", "pkg.model", False)
    forward = summary.functions["Model.forward"]
    assert [forward.calls[site].ref for site, _ in forward.pydantic_drafts] == [
        "name:Settings",
        "name:Imported",
    ]
