"""The 11 transformers 4.52.4 model families of DESIGN.md section 4, built from small random configs.

No weights and no network: every model is constructed from a tiny config with a fixed seed, put
in eval mode, and returned with the inputs that reproduce the graph breaks GraphMend's artifact
measured. Model classes are imported from their modules (not `tf.X`, a lazy star import) so that
static reach from these factories (`fixes: verified`, `verify_table2.py --bot-flow`) finds them.
Interface (imported by other benchmarks):

    MODELS: dict[str, Callable[[], tuple[nn.Module, tuple, dict]]]
    count_breaks(name) -> BreakCount  (graph_count, graph_break_count, break_reasons from Dynamo)

Run `python benchmarks/hf_models.py` to print the break count per family next to the published
table (47 in total on torch 2.13.0 / transformers 4.52.4).
"""

from __future__ import annotations

import sys
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import torch
import transformers as tf
from transformers.models.bart.modeling_bart import BartForConditionalGeneration
from transformers.models.biogpt.modeling_biogpt import BioGptForCausalLM
from transformers.models.blenderbot.modeling_blenderbot import BlenderbotForConditionalGeneration
from transformers.models.grounding_dino.modeling_grounding_dino import GroundingDinoModel
from transformers.models.layoutlmv3.modeling_layoutlmv3 import LayoutLMv3Model
from transformers.models.longformer.modeling_longformer import LongformerModel
from transformers.models.marian.modeling_marian import MarianMTModel
from transformers.models.pegasus.modeling_pegasus import PegasusForCausalLM
from transformers.models.phi3.modeling_phi3 import Phi3ForCausalLM
from transformers.models.t5.modeling_t5 import T5ForConditionalGeneration
from transformers.models.whisper.modeling_whisper import WhisperForConditionalGeneration

ModelCase = tuple[torch.nn.Module, tuple[Any, ...], dict[str, Any]]

SEED = 0
TRANSFORMERS_VERSION = "4.52.4"

# Graph breaks per family as published in DESIGN.md section 4 (torch 2.13.0, CPU).
EXPECTED_BREAKS: dict[str, int] = {
    "t5": 3,
    "biogpt": 2,
    "blenderbot": 3,
    "bart": 3,
    "marian": 3,
    "pegasus_causal_lm": 2,
    "phi3_longrope": 5,
    "whisper": 3,
    "layoutlmv3": 2,
    "longformer": 5,
    "grounding_dino": 16,
}


def _ids(batch: int, length: int, low: int = 3, high: int = 99) -> torch.Tensor:
    return torch.randint(low, high, (batch, length))


def t5() -> ModelCase:
    torch.manual_seed(SEED)
    config = tf.T5Config(
        vocab_size=99, d_model=32, d_kv=8, d_ff=37, num_layers=2, num_heads=4, decoder_start_token_id=0
    )
    model = T5ForConditionalGeneration(config).eval()
    ids = _ids(2, 12)
    return model, (), {"input_ids": ids, "decoder_input_ids": ids[:, :7]}


def biogpt() -> ModelCase:
    torch.manual_seed(SEED)
    config = tf.BioGptConfig(
        vocab_size=99,
        hidden_size=32,
        num_hidden_layers=2,
        num_attention_heads=4,
        intermediate_size=37,
        max_position_embeddings=64,
    )
    return BioGptForCausalLM(config).eval(), (), {"input_ids": _ids(2, 12)}


def _seq2seq_config(config_class: Any) -> Any:
    return config_class(
        vocab_size=99,
        d_model=32,
        encoder_layers=2,
        decoder_layers=2,
        encoder_attention_heads=4,
        decoder_attention_heads=4,
        encoder_ffn_dim=37,
        decoder_ffn_dim=37,
        max_position_embeddings=64,
        decoder_start_token_id=2,
        pad_token_id=1,
    )


def _seq2seq(model: torch.nn.Module) -> ModelCase:
    ids = _ids(2, 12)
    return model.eval(), (), {"input_ids": ids, "decoder_input_ids": ids[:, :7]}


def blenderbot() -> ModelCase:
    torch.manual_seed(SEED)
    return _seq2seq(BlenderbotForConditionalGeneration(_seq2seq_config(tf.BlenderbotConfig)))


def bart() -> ModelCase:
    torch.manual_seed(SEED)
    return _seq2seq(BartForConditionalGeneration(_seq2seq_config(tf.BartConfig)))


def marian() -> ModelCase:
    torch.manual_seed(SEED)
    return _seq2seq(MarianMTModel(_seq2seq_config(tf.MarianConfig)))


def pegasus_causal_lm() -> ModelCase:
    torch.manual_seed(SEED)
    config = _seq2seq_config(tf.PegasusConfig)
    config.pad_token_id = 0
    return PegasusForCausalLM(config).eval(), (), {"input_ids": _ids(2, 12)}


def phi3_longrope() -> ModelCase:
    """LongRoPE with a sequence (12) longer than original_max_position_embeddings (8)."""
    torch.manual_seed(SEED)
    head_dim = 32 // 4
    config = tf.Phi3Config(
        vocab_size=99,
        hidden_size=32,
        intermediate_size=37,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=4,
        max_position_embeddings=64,
        original_max_position_embeddings=8,
        pad_token_id=0,
        rope_scaling={
            "type": "longrope",
            "short_factor": [1.0] * (head_dim // 2),
            "long_factor": [2.0] * (head_dim // 2),
        },
    )
    return Phi3ForCausalLM(config).eval(), (), {"input_ids": _ids(2, 12)}


def whisper() -> ModelCase:
    torch.manual_seed(SEED)
    config = tf.WhisperConfig(
        vocab_size=99,
        d_model=32,
        encoder_layers=2,
        decoder_layers=2,
        encoder_attention_heads=4,
        decoder_attention_heads=4,
        encoder_ffn_dim=37,
        decoder_ffn_dim=37,
        num_mel_bins=8,
        max_source_positions=15,
        max_target_positions=20,
        pad_token_id=0,
        decoder_start_token_id=1,
    )
    model = WhisperForConditionalGeneration(config).eval()
    features = torch.randn(2, 8, 30)  # 30 frames -> 15 positions after the stride-2 conv
    return model, (), {"input_features": features, "decoder_input_ids": _ids(2, 7)}


def layoutlmv3() -> ModelCase:
    torch.manual_seed(SEED)
    config = tf.LayoutLMv3Config(
        vocab_size=99,
        hidden_size=32,
        num_hidden_layers=2,
        num_attention_heads=4,
        intermediate_size=37,
        max_position_embeddings=64,
        input_size=32,
        patch_size=8,
        num_channels=3,
        max_2d_position_embeddings=128,
        coordinate_size=6,
        shape_size=4,
    )
    model = LayoutLMv3Model(config).eval()
    ids = _ids(2, 12)
    corner = torch.randint(0, 100, (2, 12, 2))
    bbox = torch.cat([corner, corner + 10], dim=-1)
    return model, (), {"input_ids": ids, "bbox": bbox, "pixel_values": torch.randn(2, 3, 32, 32)}


def longformer() -> ModelCase:
    """20 tokens with attention window 8 (the input is padded to a multiple of the window)."""
    torch.manual_seed(SEED)
    config = tf.LongformerConfig(
        vocab_size=99,
        hidden_size=32,
        num_hidden_layers=2,
        num_attention_heads=4,
        intermediate_size=37,
        max_position_embeddings=64,
        attention_window=8,
        pad_token_id=1,
    )
    return LongformerModel(config).eval(), (), {"input_ids": _ids(2, 20)}


def grounding_dino() -> ModelCase:
    """transformers' own test config (Swin backbone, BERT text encoder), one layer each side."""
    torch.manual_seed(SEED)
    image_size = 98
    backbone = tf.SwinConfig(
        window_size=7,
        embed_dim=8,
        depths=[1, 1, 1, 1],
        num_heads=[1, 1, 1, 1],
        image_size=image_size,
        out_indices=[2, 3, 4],
    )
    text = {
        "hidden_size": 8,
        "num_hidden_layers": 2,
        "num_attention_heads": 2,
        "intermediate_size": 8,
        "max_position_embeddings": 8,
        "model_type": "bert",
    }
    config = tf.GroundingDinoConfig(
        d_model=32,
        encoder_layers=1,
        decoder_layers=1,
        encoder_attention_heads=4,
        decoder_attention_heads=4,
        encoder_ffn_dim=4,
        decoder_ffn_dim=4,
        num_queries=2,
        num_labels=3,
        num_feature_levels=4,
        encoder_n_points=2,
        decoder_n_points=6,
        use_timm_backbone=False,
        backbone_config=backbone,
        max_text_len=7,
        text_config=text,
    )
    model = GroundingDinoModel(config).eval()
    pixel_values = torch.randn(1, 3, image_size, image_size)
    return model, (), {"pixel_values": pixel_values, "input_ids": torch.randint(0, 3, (1, 7))}


MODELS: dict[str, Callable[[], ModelCase]] = {
    "t5": t5,
    "biogpt": biogpt,
    "blenderbot": blenderbot,
    "bart": bart,
    "marian": marian,
    "pegasus_causal_lm": pegasus_causal_lm,
    "phi3_longrope": phi3_longrope,
    "whisper": whisper,
    "layoutlmv3": layoutlmv3,
    "longformer": longformer,
    "grounding_dino": grounding_dino,
}


@dataclass(frozen=True)
class BreakCount:
    graph_count: int
    graph_break_count: int
    break_reasons: list[Any]


def explain_model(model: torch.nn.Module, args: tuple[Any, ...], kwargs: dict[str, Any]) -> BreakCount:
    """Dynamo's own count for one forward call (fresh caches, no grad)."""
    torch._dynamo.reset()
    with torch.no_grad(), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = torch._dynamo.explain(model)(*args, **kwargs)
    return BreakCount(result.graph_count, result.graph_break_count, list(result.break_reasons))


def count_breaks(name: str) -> BreakCount:
    model, args, kwargs = MODELS[name]()
    return explain_model(model, args, kwargs)


def main(argv: list[str]) -> int:
    names = argv or list(MODELS)
    unknown = [n for n in names if n not in MODELS]
    if unknown:
        print(f"unknown model(s): {', '.join(unknown)}; choose from {', '.join(MODELS)}", file=sys.stderr)
        return 2
    if tf.__version__ != TRANSFORMERS_VERSION:
        print(f"warning: transformers {tf.__version__}, the table was measured on {TRANSFORMERS_VERSION}")
    print(f"torch {torch.__version__}, transformers {tf.__version__}")
    print(f"{'model':<20} {'graphs':>6} {'breaks':>6} {'table':>6}")
    total = expected = 0
    for name in names:
        counted = count_breaks(name)
        total += counted.graph_break_count
        expected += EXPECTED_BREAKS[name]
        mark = "" if counted.graph_break_count == EXPECTED_BREAKS[name] else "  <- differs"
        print(
            f"{name:<20} {counted.graph_count:>6} {counted.graph_break_count:>6} "
            f"{EXPECTED_BREAKS[name]:>6}{mark}",
            flush=True,
        )
    print(f"{'total':<20} {'':>6} {total:>6} {expected:>6}")
    return 0 if total == expected else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
