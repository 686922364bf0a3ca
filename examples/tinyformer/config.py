from dataclasses import dataclass


@dataclass
class TinyConfig:
    vocab_size: int = 256
    hidden_size: int = 64
    num_layers: int = 2
    num_heads: int = 4
    intermediate_size: int = 128
    max_position_embeddings: int = 64
    original_max_position_embeddings: int = 16
    rope_theta: float = 10000.0
    long_factor: float = 4.0
    layer_norm_eps: float = 1e-5
    check_inputs: bool = True
