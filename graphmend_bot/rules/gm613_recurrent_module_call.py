"""GM613 recurrent-module-call: its documentation; the calls and reads are found by the scope solver
(analysis/held_module_calls.py), which knows what built the `self.NAME` a traced method uses.

Measured on torch 2.13 (tests/coverage_probes/gb0014_lstm_module_call.py): calling an `nn.LSTM`,
`nn.GRU` or `nn.RNN` module in traced code breaks with GB0014 ("Attempted to wrap RNN, GRU, or
LSTM", `torch._dynamo.config.allow_rnn` is off), and Dynamo then runs the whole frame eagerly: only
the first such call of a frame is reported. It breaks as it wraps the module, so the first read of
`self.NAME` breaks even where nothing calls it there (passed to a helper, `self.lstm.hidden_size`,
`self.lstm is not None`: tests/fixtures/rules/GM613_recurrent_module_call.py). The cells
(`nn.LSTMCell`, `nn.GRUCell`, `nn.RNNCell`) trace.
"""

from __future__ import annotations

from graphmend_bot.rules.detect import Detection
from graphmend_bot.rules.rule import Rule

RECURRENT_MODULES = frozenset({
    "torch.nn.LSTM", "torch.nn.GRU", "torch.nn.RNN",
    "torch.nn.modules.rnn.LSTM", "torch.nn.modules.rnn.GRU", "torch.nn.modules.rnn.RNN",
})


def _recurrent(rule: Rule, built_by: str) -> str | None:
    if built_by not in RECURRENT_MODULES:
        return None
    return f"`{built_by.rsplit('.', 1)[-1]}` module used in traced code: Dynamo does not trace recurrent modules"


RULE = Rule(
    code="GM613",
    name="recurrent-module-call",
    family="not traceable",
    gb_id="GB0014",
    summary=(
        "Flags the first use of a module held in `self.NAME` that was built as `nn.LSTM`, `nn.GRU` "
        "or `nn.RNN` in traced code: a call, or any read (passed on, an attribute of it)."
    ),
    why=(
        "TorchDynamo does not trace the recurrent modules (`torch._dynamo.config.allow_rnn` is off by "
        "default): where the frame first reads it, to call it or pass it on, it gives up on the frame "
        "(GB0014) and runs it eagerly, so nothing else in that function is compiled. `nn.LSTMCell`, "
        "`nn.GRUCell` and `nn.RNNCell` trace."
    ),
    example="""
class Encoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.lstm = nn.LSTM(16, 16)

    def forward(self, x):
        return self.lstm(x)[0] + x
""",
    use_instead="""
class Encoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.lstm = nn.LSTM(16, 16)

    @torch.compiler.disable  # the recurrent part runs eagerly; the callers stay compiled
    def recurrent(self, x):
        return self.lstm(x)[0]

    def forward(self, x):
        return self.recurrent(x) + x
""",
    fix_safety=(
        "No automatic fix. Keep the recurrent module out of the compiled frame (a helper marked "
        "`@torch.compiler.disable`, GM620's break at its call instead of a whole eager frame), set "
        "`torch._dynamo.config.allow_rnn = True`, or unroll with the cell (`nn.LSTMCell`) in a loop."
    ),
    detection=Detection(held_module_call=_recurrent),
    advice=(
        "`{code}` uses a recurrent module, which Dynamo does not trace: the whole function runs "
        "eagerly. Move its use into a helper marked `@torch.compiler.disable`, or set "
        "`torch._dynamo.config.allow_rnn = True`"
    ),
)
