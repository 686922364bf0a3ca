"""TinyFormer: a small decoder-only transformer, written the way model repositories write them.

It compiles with torch.compile, but several lines break the graph; `graphmend check examples/`
finds them and `graphmend check --fix examples/` rewrites the ones that are safe to rewrite.
"""

from tinyformer.config import TinyConfig
from tinyformer.model import TinyFormerForCausalLM

__all__ = ["TinyConfig", "TinyFormerForCausalLM"]
