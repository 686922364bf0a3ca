"""`torch._dynamo.graph_break()` reached through an alias, an import, a helper, a partial."""

import functools

import torch
import torch._dynamo as dynamo
from torch import nn
from torch._dynamo import graph_break

_gb = torch._dynamo.graph_break
_partial_gb = functools.partial(torch._dynamo.graph_break)


def sync_point():
    torch._dynamo.graph_break()


class ProbeAliasModule(nn.Module):
    def forward(self, x):
        x = x * 2
        dynamo.graph_break()
        return x + 1


class ProbeFromImport(nn.Module):
    def forward(self, x):
        x = x * 2
        graph_break()
        return x + 1


class ProbeGlobalAlias(nn.Module):
    def forward(self, x):
        x = x * 2
        _gb()
        return x + 1


class ProbePartial(nn.Module):
    def forward(self, x):
        x = x * 2
        _partial_gb()
        return x + 1


class ProbeHelper(nn.Module):
    def forward(self, x):
        x = x * 2
        sync_point()
        return x + 1


class ProbeCompilerNamespace(nn.Module):
    def forward(self, x):
        x = x * 2
        torch.compiler.graph_break() if hasattr(torch.compiler, "graph_break") else None
        return x + 1


class ProbeAttrAlias(nn.Module):
    def __init__(self):
        super().__init__()
        self.brk = torch._dynamo.graph_break

    def forward(self, x):
        x = x * 2
        self.brk()
        return x + 1


def inputs():
    return (torch.randn(4),)
