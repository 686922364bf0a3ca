"""Autograd calls as libraries spell them in traced code: `torch.autograd.grad` by module path and
imported by name (positional, keywords, `create_graph=True`, under `torch.enable_grad()`),
`torch.autograd.backward`, `.backward()`, `torch.autograd.functional.jacobian` imported by name,
and through a helper; near misses: `torch.func.grad` and `torch.func.jacrev`, which trace."""

import torch
from torch import autograd, nn
from torch.autograd import grad
from torch.autograd.functional import jacobian


def energy(x):
    return (x**2).sum()


def force(x):
    return torch.autograd.grad(energy(x), x, create_graph=True)[0]


class ProbeModulePath(nn.Module):
    def forward(self, x):
        (g,) = torch.autograd.grad(energy(x), x)
        return g * 2


class ProbeImportedKeywords(nn.Module):
    def forward(self, x):
        with torch.enable_grad():
            g = grad(outputs=energy(x), inputs=x, create_graph=True)[0]
        return g * 2


class ProbeHelper(nn.Module):
    def forward(self, x):
        return force(x) * 2


class ProbeBackward(nn.Module):
    def forward(self, x):
        y = energy(x * 2)
        y.backward()
        return y


class ProbeAutogradBackward(nn.Module):
    def forward(self, x):
        y = energy(x * 2)
        torch.autograd.backward(y)
        return y


class ProbeJacobian(nn.Module):
    def forward(self, x):
        return jacobian(lambda v: v.sin(), x) * 2


class ProbeAutogradModule(nn.Module):
    def forward(self, x):
        y = x.sin()
        return autograd.grad(y, [x], grad_outputs=torch.ones_like(y), retain_graph=True)[0] * 2


class ProbeInComprehension(nn.Module):
    def forward(self, x):
        ys = [x.sin(), x.cos()]
        return sum(torch.autograd.grad(y.sum(), x)[0] for y in ys)


class ProbeNearMissFunc(nn.Module):
    def forward(self, x):
        return torch.func.grad(energy)(x.detach()) + torch.func.jacrev(torch.sin)(x.detach()).sum(0)


def inputs():
    return (torch.randn(4, requires_grad=True),)
