"""transformers 5.x model classes built from tiny configs: the corpus's transformers units.

Each unit is one model family, `transformers-<family>`: the classes of `transformers.models.<family>`
listed in MODELS (split.py says why a family and not the whole package). Most are classes the
public corpus penguinwu/oss-model-graph-break-corpus (corpus/golden_set.json) marks as breaking
under torch.compile in eval mode, the rest widely used classes it marks as compiling to one graph
(they count for precision). transformers runs in its own environment (setup_env.sh: .venv-wild-hf),
so this module imports it only when a unit is built; the unit names are plain data.

A model is built the same way for every class, as the corpus's sweep does: the class's own config
class with its defaults, every size shrunk to a tiny one (SIZES: hidden 32, 2 layers, 2 heads, ...;
sub-configs too), random weights, eval mode; the inputs follow the forward's signature (token ids
and an attention mask, raw audio, log-mel features or pixels, pixels with token ids for image-text
models, one image token per image feature for vision-language models, decoder ids for encoder-decoders).
A class that does not build or whose eager call raises is reported as that call's error, and
counted, never patched by hand.
"""

from __future__ import annotations

import inspect
from types import SimpleNamespace
from typing import Any

DISTRIBUTION = "transformers"
PREFIX = "transformers-"
WHY = "NLP/audio/vision: Hugging Face transformers 5.x models from tiny configs (one unit per model family)"

# family (the transformers.models.<family> package) -> model classes
MODELS: dict[str, list[str]] = {
    # encoder-decoders (text)
    "bart": ["BartModel", "BartForConditionalGeneration"],
    "mbart": ["MBartModel", "MBartForConditionalGeneration"],
    "blenderbot": ["BlenderbotModel", "BlenderbotForConditionalGeneration"],
    "blenderbot_small": ["BlenderbotSmallModel"],
    "marian": ["MarianModel", "MarianMTModel"],
    "pegasus": ["PegasusModel", "PegasusForConditionalGeneration"],
    "pegasus_x": ["PegasusXModel"],
    "led": ["LEDModel"],
    "plbart": ["PLBartModel"],
    "mvp": ["MvpModel"],
    "m2m_100": ["M2M100Model"],
    "nllb_moe": ["NllbMoeModel"],
    "fsmt": ["FSMTModel"],
    "prophetnet": ["ProphetNetModel"],
    "bigbird_pegasus": ["BigBirdPegasusModel"],
    "t5": ["T5Model", "T5ForConditionalGeneration"],
    "mt5": ["MT5Model"],
    "umt5": ["UMT5Model"],
    "longt5": ["LongT5Model"],
    "switch_transformers": ["SwitchTransformersModel"],
    "seamless_m4t": ["SeamlessM4TModel"],
    "seamless_m4t_v2": ["SeamlessM4Tv2Model"],
    # speech and audio
    "whisper": ["WhisperModel", "WhisperForConditionalGeneration"],
    "speech_to_text": ["Speech2TextModel"],
    "moonshine": ["MoonshineModel"],
    "wav2vec2": ["Wav2Vec2Model"],
    "hubert": ["HubertModel"],
    "wavlm": ["WavLMModel"],
    "data2vec": ["Data2VecAudioModel", "Data2VecTextModel"],
    "sew": ["SEWModel"],
    "unispeech": ["UniSpeechModel"],
    "unispeech_sat": ["UniSpeechSatModel"],
    "wav2vec2_conformer": ["Wav2Vec2ConformerModel"],
    "wav2vec2_bert": ["Wav2Vec2BertModel"],
    "encodec": ["EncodecModel"],
    "mimi": ["MimiModel"],
    "fastspeech2_conformer": ["FastSpeech2ConformerModel"],
    "vits": ["VitsModel"],
    # encoders and decoders (text)
    "funnel": ["FunnelModel", "FunnelBaseModel"],
    "longformer": ["LongformerModel"],
    "mra": ["MraModel"],
    "dbrx": ["DbrxModel"],
    "jamba": ["JambaModel"],
    "bamba": ["BambaModel"],
    "falcon_h1": ["FalconH1Model"],
    "recurrent_gemma": ["RecurrentGemmaModel"],
    "qwen3_next": ["Qwen3NextModel"],
    "granitemoehybrid": ["GraniteMoeHybridModel"],
    "nemotron_h": ["NemotronHModel"],
    "aria": ["AriaTextModel"],
    "olmo_hybrid": ["OlmoHybridModel"],
    "llama": ["LlamaModel", "LlamaForCausalLM"],
    "mistral": ["MistralModel"],
    "mixtral": ["MixtralModel"],
    "qwen2": ["Qwen2Model"],
    "qwen3": ["Qwen3Model"],
    "qwen2_moe": ["Qwen2MoeModel"],
    "gemma": ["GemmaModel"],
    "gemma2": ["Gemma2Model"],
    "phi": ["PhiModel"],
    "phi3": ["Phi3Model"],
    "gpt2": ["GPT2Model", "GPT2LMHeadModel"],
    "gpt_neox": ["GPTNeoXModel"],
    "opt": ["OPTModel"],
    "bloom": ["BloomModel"],
    "falcon": ["FalconModel"],
    "biogpt": ["BioGptModel"],
    "codegen": ["CodeGenModel"],
    "bert": ["BertModel"],
    "roberta": ["RobertaModel"],
    "albert": ["AlbertModel"],
    "distilbert": ["DistilBertModel"],
    "electra": ["ElectraModel"],
    "deberta_v2": ["DebertaV2Model"],
    "xlnet": ["XLNetModel"],
    "mamba": ["MambaModel"],
    "rwkv": ["RwkvModel"],
    "olmo": ["OlmoModel"],
    "olmo2": ["Olmo2Model"],
    "gemma3": ["Gemma3TextModel"],
    "qwen3_moe": ["Qwen3MoeModel"],
    "stablelm": ["StableLmModel"],
    "starcoder2": ["Starcoder2Model"],
    "gpt_bigcode": ["GPTBigCodeModel"],
    "mpt": ["MptModel"],
    "gpt_oss": ["GptOssModel"],
    "xlm_roberta": ["XLMRobertaModel"],
    "mobilebert": ["MobileBertModel"],
    "modernbert": ["ModernBertModel"],
    # vision
    "vit": ["ViTModel"],
    "deit": ["DeiTModel"],
    "convnext": ["ConvNextModel"],
    "resnet": ["ResNetModel"],
    "swin": ["SwinModel"],
    "dinov2": ["Dinov2Model"],
    "beit": ["BeitModel"],
    "segformer": ["SegformerModel"],
    # vision and text (pixels with token ids; vision-language models with image tokens)
    "clip": ["CLIPModel"],
    "vilt": ["ViltModel"],
    "internvl": ["InternVLModel"],
    "got_ocr2": ["GotOcr2Model"],
    "aya_vision": ["AyaVisionForConditionalGeneration"],
    "cohere2_vision": ["Cohere2VisionForConditionalGeneration"],
    "ovis2": ["Ovis2ForConditionalGeneration"],
}

# Every config size is shrunk to at most this (never grown): the corpus's sweep does the same.
SIZES: dict[str, int] = {
    "hidden_size": 32, "d_model": 32, "n_embd": 32, "embed_dim": 32, "dim": 32,
    "num_hidden_layers": 2, "num_layers": 2, "n_layer": 2, "n_layers": 2, "encoder_layers": 2,
    "decoder_layers": 2, "num_decoder_layers": 2,
    "num_attention_heads": 2, "n_head": 2, "n_heads": 2, "num_heads": 2, "encoder_attention_heads": 2,
    "decoder_attention_heads": 2, "num_key_value_heads": 2, "num_decoder_attention_heads": 2,
    "intermediate_size": 64, "ffn_dim": 64, "encoder_ffn_dim": 64, "decoder_ffn_dim": 64, "d_ff": 64,
    "n_inner": 64, "decoder_intermediate_size": 64, "ffn_hidden_size": 64,
    "d_kv": 16, "head_dim": 16, "attention_head_size": 16, "mamba_d_head": 16, "mamba_n_heads": 2,
    "num_experts": 4, "num_local_experts": 4, "n_routed_experts": 4, "moe_num_experts": 4,
    "num_experts_per_tok": 2, "moe_top_k": 2, "moe_intermediate_size": 32,
    "shared_expert_intermediate_size": 32, "expert_ffn_dim": 32,
    "image_size": 32, "max_source_positions": 32, "encoder_stride": 8,
}  # fmt: skip
# Layer-wise lists rebuilt from the layer count when left out (shrinking the count keeps them long)
_PER_LAYER = ("layer_types", "layers_block_type", "block_types", "hybrid_override_pattern")


def unit_names() -> list[str]:
    return [PREFIX + family for family in MODELS]


def is_unit(name: str) -> bool:
    return name.startswith(PREFIX) and name[len(PREFIX) :] in MODELS


def family_spec(name: str) -> Any:
    """The unit as a library module (harness.py): DISTRIBUTION, PACKAGE, WHY and call_<Class>()."""
    spec = SimpleNamespace(DISTRIBUTION=DISTRIBUTION, PACKAGE="transformers", WHY=WHY)
    for class_name in MODELS[name[len(PREFIX) :]]:
        setattr(spec, f"call_{class_name}", lambda class_name=class_name: build(class_name))
    return spec


def build(class_name: str) -> tuple[Any, tuple[Any, ...], dict[str, Any]]:
    """The model in eval mode from a tiny config, and the keyword inputs of one forward call."""
    import torch
    import transformers

    cls = getattr(transformers, class_name)
    config = tiny_config(cls.config_class)
    torch.manual_seed(0)
    model = cls(config).eval()
    return model, (), inputs(model, config)


def tiny_config(config_class: Any) -> Any:
    return config_class(**_shrunk(config_class().to_dict()))


def _shrunk(values: dict[str, Any]) -> dict[str, Any]:
    """The overrides that shrink `values` (a config's dict); sub-configs come back whole."""
    out: dict[str, Any] = {}
    for key, value in values.items():
        limit = SIZES.get(key)
        if limit is not None and isinstance(value, int) and not isinstance(value, bool) and value > limit:
            out[key] = limit
        elif isinstance(value, dict) and ("model_type" in value or key.endswith("_config")):
            sub = {k: v for k, v in value.items() if k not in _PER_LAYER}
            out[key] = {**sub, **_shrunk(sub)}
    return out


def inputs(model: Any, config: Any) -> dict[str, Any]:
    """Inputs by the forward's parameters: the first of audio, features, pixels it takes, and token ids
    when it takes no other input, reads them with pixels, or requires them."""
    import torch

    params = inspect.signature(model.forward).parameters
    vocab = int(getattr(config, "vocab_size", None) or 100)

    def ids(length: int = 8) -> torch.Tensor:
        return torch.randint(3, max(4, min(vocab, 100)), (1, length))

    kwargs: dict[str, Any] = {}
    if "input_values" in params:
        channels = getattr(config, "audio_channels", None)
        kwargs["input_values"] = torch.randn(1, channels, 2400) if channels else torch.randn(1, 4000)
    elif "input_features" in params:
        kwargs["input_features"] = _features(config)
    elif "pixel_values" in params:
        size = int(getattr(config, "image_size", 32) or 32)
        kwargs["pixel_values"] = torch.randn(1, int(getattr(config, "num_channels", 3) or 3), size, size)
    # text alone, text with an image (CLIP, ViLT, Grounding DINO read both), or a forward that requires it
    if not kwargs or ("input_ids" in params and ("pixel_values" in kwargs or _required(params["input_ids"]))):
        kwargs["input_ids"] = ids()
        if "attention_mask" in params:
            kwargs["attention_mask"] = torch.ones_like(kwargs["input_ids"])
    image_token = getattr(config, "image_token_id", None) or getattr(config, "image_token_index", None)
    if image_token is not None and "pixel_values" in kwargs and hasattr(model, "get_image_features"):
        # a vision-language model: its processor puts one image token per image feature before the text
        count = _image_features(model, kwargs["pixel_values"])
        image_tokens = torch.full((1, count), int(image_token))
        kwargs["input_ids"] = torch.cat([image_tokens, kwargs["input_ids"]], dim=1)
        kwargs["attention_mask"] = torch.ones_like(kwargs["input_ids"])
    if "decoder_input_ids" in params and getattr(config, "is_encoder_decoder", False):
        kwargs["decoder_input_ids"] = ids(4)
    return kwargs


def _image_features(model: Any, pixel_values: Any) -> int:
    """How many feature vectors the vision tower yields for `pixel_values` (one per image token)."""
    import torch

    with torch.no_grad():
        out = model.get_image_features(pixel_values=pixel_values)
    features = out if isinstance(out, (torch.Tensor, list, tuple)) else out.pooler_output
    parts = [features] if isinstance(features, torch.Tensor) else list(features)
    return sum(part.numel() // part.shape[-1] for part in parts)


def _required(param: inspect.Parameter) -> bool:
    return param.default is inspect.Parameter.empty


def _features(config: Any) -> Any:
    import torch

    if getattr(config, "num_mel_bins", None) and getattr(config, "max_source_positions", None):
        return torch.randn(1, config.num_mel_bins, 2 * config.max_source_positions)  # Whisper's fixed length
    per_channel = getattr(config, "input_feat_per_channel", None)
    if per_channel:
        return torch.randn(1, 32, per_channel * int(getattr(config, "input_channels", 1) or 1))
    return torch.randn(1, 16, int(getattr(config, "feature_projection_input_dim", 80) or 80))
