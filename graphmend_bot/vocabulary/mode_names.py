"""The modes a finding's message can name (analysis/modes.py reads them from branch tests; a rule
names one its construct needs, as GM701 does for `requires_grad_()`)."""

TRAINING = "in training mode"
AUTOCAST = "under autocast"
# `t.requires_grad_()` breaks with grad enabled; under `torch.no_grad()` only when the tensor
# leaves the graph (returned, or alive across another break): measured on torch 2.13, GM701.
GRAD_ENABLED = "with grad enabled"
NO_INPUT_REQUIRES_GRAD = "when no input requires grad"  # inference, `torch.no_grad()`: GM634
# A static `setup_context` of an autograd.Function: Dynamo traces it when an input of `Fn.apply`
# requires grad (measured on torch 2.13: not under inference, test_scope_edges.py).
INPUT_REQUIRES_GRAD = "when an input requires grad"
# A tensor on a CUDA device (`x.is_cuda`, `x.device.type == "cuda"`, `torch.cuda.is_available()`):
# Dynamo specialises on the device and on the CUDA check, so on CPU it never reads what such a
# test guards (measured on torch 2.13, tests/test_device_modes.py).
ON_CUDA = "on CUDA"
