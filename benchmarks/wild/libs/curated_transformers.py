"""curated-transformers: Explosion's composable transformer library (encoders and causal LMs, spaCy's backend).

Users compile the model forward: an encoder over a padded batch with an `AttentionMask` (BERT,
ALBERT with its shared layer groups), a causal LM (Llama with grouped-query attention and rotary
embeddings, Falcon with ALiBi and parallel attention) filling its key-value cache, and one
incremental decoding step on that cache, as the library's generator runs it. Tiny configurations,
random weights: nothing is downloaded. (`curated_transformers.generation` and `.tokenizers` do not
import with huggingface_hub 2.x, which dropped `Repository`, so the generator itself is not called.)
"""

from __future__ import annotations

import torch
from curated_transformers.layers import AttentionMask
from curated_transformers.models import (
    ALBERTConfig,
    ALBERTEncoder,
    BERTConfig,
    BERTEncoder,
    FalconCausalLM,
    FalconConfig,
    LlamaCausalLM,
    LlamaConfig,
)

DISTRIBUTION = "curated-transformers"
PACKAGE = "curated_transformers"
WHY = "NLP: transformer encoders and causal LMs with key-value caches (spaCy's transformer backend)"

N_PIECES = 64


def _ids_and_mask():
    torch.manual_seed(0)
    ids = torch.randint(1, N_PIECES, (2, 6))
    mask = torch.ones(2, 6, dtype=torch.bool)
    mask[1, 4:] = False  # the second sequence is padded
    return ids, mask


def _llama():
    torch.manual_seed(0)
    config = LlamaConfig(
        dtype=torch.float32,
        hidden_width=16,
        intermediate_width=32,
        n_query_heads=4,
        n_key_value_heads=2,
        n_hidden_layers=2,
        rotary_embedding_fraction=1.0,
        n_pieces=N_PIECES,
    )
    return LlamaCausalLM(config).eval()


def call_bert_encoder():
    torch.manual_seed(0)
    config = BERTConfig(
        embedding_width=16,
        hidden_width=16,
        intermediate_width=32,
        n_attention_heads=4,
        n_hidden_layers=2,
        n_pieces=N_PIECES,
        n_positions=32,
        model_max_length=32,
    )
    return _encoding(BERTEncoder(config).eval())


def call_llama_causal_lm_with_cache():
    model = _llama()

    def prefill(ids, mask):
        output = model(ids, AttentionMask(mask), store_cache=True)
        return output.logits, output.cache

    return prefill, _ids_and_mask(), {}


def call_falcon_causal_lm():
    torch.manual_seed(0)
    config = FalconConfig(
        dtype=torch.float32,
        hidden_width=16,
        n_query_heads=4,
        n_key_value_heads=1,
        n_hidden_layers=2,
        rotary_embedding_fraction=1.0,
        use_alibi=True,
        new_decoder_architecture=False,
        use_parallel_attention=True,
        n_pieces=N_PIECES,
    )
    model = FalconCausalLM(config).eval()

    def logits(ids, mask):
        return model(ids, AttentionMask(mask)).logits

    return logits, _ids_and_mask(), {}


def call_llama_decode_step_with_cache():
    # One step of incremental decoding, as curated-transformers' generator runs it: the prompt's
    # key-value cache from a prefill, the mask extended by one piece, explicit positions.
    model = _llama()
    ids, mask = _ids_and_mask()
    with torch.no_grad():
        cache = model(ids, AttentionMask(mask), store_cache=True).cache
    step_mask = torch.cat([mask, torch.ones(2, 1, dtype=torch.bool)], dim=1)
    positions = mask.int().sum(-1, keepdim=True)

    def decode_step(next_ids, step_mask, cache, positions):
        output = model(next_ids, AttentionMask(step_mask), cache=cache, positions=positions, store_cache=True)
        return output.logits[:, -1].argmax(-1), output.cache

    return decode_step, (torch.randint(1, N_PIECES, (2, 1)), step_mask, cache, positions), {}


def call_albert_encoder():
    # ALBERT: factorised embeddings and groups of layers whose weights are shared across depth.
    torch.manual_seed(0)
    config = ALBERTConfig(
        embedding_width=8,
        hidden_width=16,
        intermediate_width=32,
        n_attention_heads=4,
        n_hidden_layers=4,
        n_hidden_groups=2,
        n_layers_per_group=1,
        n_pieces=N_PIECES,
        n_positions=32,
        model_max_length=32,
    )
    return _encoding(ALBERTEncoder(config).eval())


def _encoding(encoder):
    def encode(ids, mask):
        return encoder(ids, AttentionMask(mask)).last_hidden_layer_state

    return encode, _ids_and_mask(), {}
