from dataclasses import dataclass


@dataclass
class Seq2SeqConfig:
    vocab: int = 32
    dim: int = 16
    layers: int = 2
    scale_embedding: bool = True
    max_positions: int = 64
