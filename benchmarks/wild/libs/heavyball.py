"""heavyball: a compile-first optimizer zoo (AdamW, SOAP/Shampoo, Muon, PSGD, ...) built from chainable transforms.

Users compile the optimizer step. heavyball also wraps each of its building blocks in
torch.compile when it runs eagerly; under an outer torch.compile those wrappers call the plain
function (`is_compiling()`), so the eager coverage run switches them off (`compile_mode = None`,
the library's own switch) to run the same Python the compiled step traces, without inductor.
"""

from __future__ import annotations

import heavyball
import heavyball.utils
import torch

DISTRIBUTION = "heavyball"
PACKAGE = "heavyball"
WHY = "optimisation: composable first- and second-order optimizers whose step users compile"

heavyball.utils.compile_mode = None
heavyball.utils.compile_mode_recommended_to_none = None


def _stepper(optimizer_class: type, **options: object):
    torch.manual_seed(0)
    model = torch.nn.Linear(8, 4)
    model(torch.randn(4, 8)).square().mean().backward()
    return optimizer_class(model.parameters(), **options).step


def call_adamw_step():
    return _stepper(heavyball.AdamW, lr=1e-3, weight_decay=1e-2), (), {}


def call_soap_step():
    return _stepper(heavyball.SOAP, lr=3e-3), (), {}


def call_muon_step():
    return _stepper(heavyball.Muon, lr=0.02), (), {}
