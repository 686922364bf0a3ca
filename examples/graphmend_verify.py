"""Entry points for `graphmend verify` on the bundled TinyFormer example (see .graphmend.yml).

Each factory builds the model from a small config with the seed it is given and returns
`(module, args, kwargs)`; verify calls it once per seed in each arm, moves the result to the
configured device and compares the outputs of the original and the rewritten code.
"""

import torch
from tinyformer import TinyConfig, TinyFormerForCausalLM
from tinyformer.model import TinyFormerModel


def _input_ids(config: TinyConfig, batch: int, length: int, seed: int) -> torch.Tensor:
    generator = torch.Generator().manual_seed(seed)
    return torch.randint(0, config.vocab_size, (batch, length), generator=generator)


def causal_lm(seed: int = 0):
    """The language model with labels (a loss) and the deprecated `logit_scale` argument."""
    torch.manual_seed(seed)
    config = TinyConfig()
    model = TinyFormerForCausalLM(config).eval()
    input_ids = _input_ids(config, 2, 12, seed)
    labels = input_ids.clone()
    labels[:, :2] = -100
    return model, (input_ids,), {"labels": labels, "logit_scale": 0.5}


def long_context(seed: int = 0):
    """The decoder alone on a sequence past `original_max_position_embeddings` (long RoPE)."""
    torch.manual_seed(seed)
    config = TinyConfig()
    model = TinyFormerModel(config).eval()
    input_ids = _input_ids(config, 2, 24, seed)
    return model, (input_ids,), {"use_cache": True}
