"""GB0142 Unsupported context manager: `with Section(name):` on a context-manager class of the tree
whose `__init__` breaks (a `print`): Dynamo builds it eagerly, resumes after the call, and cannot
enter a manager built outside the graph (GM684)."""

import torch


class Section:
    def __init__(self, name: str) -> None:
        print("section", name)  # graph-break: GB0059 GM401
        self.name = name

    def __enter__(self) -> "Section":
        return self

    def __exit__(self, *exc: object) -> None:
        return None


class Probe(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x * 2
        with Section("attention"):  # graph-break: GB0142 GM684
            x = x + 1
        return x + 1


def inputs():
    return (torch.ones(3),)
