"""torch context managers as libraries write them, each in its own compiled module."""

import warnings

import torch
from torch import nn
from torch.utils._python_dispatch import TorchDispatchMode


class Passthrough(TorchDispatchMode):
    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        return func(*args, **(kwargs or {}))


class ProbeCudaAutocast(nn.Module):
    def forward(self, x):
        x = x * 2
        with torch.cuda.amp.autocast(enabled=False):
            x = x + 1
        return x


class ProbeCpuAutocast(nn.Module):
    def forward(self, x):
        x = x * 2
        with torch.cpu.amp.autocast(enabled=False):
            x = x + 1
        return x


class ProbeProfilerProfile(nn.Module):
    def forward(self, x):
        x = x * 2
        with torch.autograd.profiler.profile(enabled=False):
            x = x + 1
        return x


class ProbeCatchWarningsRecord(nn.Module):
    def forward(self, x):
        x = x * 2
        with warnings.catch_warnings(record=True):
            x = x + 1
        return x


class ProbeDispatchMode(nn.Module):
    def forward(self, x):
        x = x * 2
        with Passthrough():
            x = x + 1
        return x


class ProbeDeviceOf(nn.Module):
    def forward(self, x):
        x = x * 2
        with torch.cuda.device_of(x):
            x = x + 1
        return x


class ProbeInferenceModeOff(nn.Module):
    def forward(self, x):
        x = x * 2
        with torch.inference_mode(False):
            x = x + 1
        return x


class ProbeCheckpointDebug(nn.Module):
    def forward(self, x):
        x = x * 2
        with torch.utils.checkpoint.set_checkpoint_debug_enabled(True):
            x = x + 1
        return x


class ProbeSdpKernel(nn.Module):
    def forward(self, x):
        x = x * 2
        with torch.backends.cuda.sdp_kernel(enable_math=True):
            x = x + 1
        return x


def inputs():
    return (torch.randn(4),)
