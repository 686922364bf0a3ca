"""GB0156 Unsupported method call: building an object of a class compiled by Cython in an installed
package (`__new__` of `type`), found by reading the package's files (GM651)."""

import torch
import yaml._yaml


class Probe(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x * 2
        parser = yaml._yaml.CParser("a: 1")  # graph-break: GB0156 GM651
        return x + (parser is not None)


def inputs():
    return (torch.ones(3),)
