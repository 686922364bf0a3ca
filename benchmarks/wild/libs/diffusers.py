"""diffusers: diffusion models and schedulers (Hugging Face), built from configs, random weights.

Users compile the denoising UNet and the VAE; the scheduler step runs in the same sampling loop.
"""

from __future__ import annotations

import torch
from diffusers import AutoencoderKL, DDIMScheduler, DDPMScheduler, UNet2DModel

DISTRIBUTION = "diffusers"
PACKAGE = "diffusers"
WHY = "diffusion: the most used diffusion library; compiled UNet/VAE is its documented speed-up"


def call_unet2d():
    unet = UNet2DModel(
        sample_size=16,
        in_channels=3,
        out_channels=3,
        layers_per_block=1,
        block_out_channels=(16, 32),
        down_block_types=("DownBlock2D", "AttnDownBlock2D"),
        up_block_types=("AttnUpBlock2D", "UpBlock2D"),
        norm_num_groups=8,
    )
    return unet.eval(), (torch.randn(2, 3, 16, 16), torch.tensor([10, 500])), {}


def call_vae_encode_decode():
    vae = AutoencoderKL(
        in_channels=3,
        out_channels=3,
        block_out_channels=(16, 32),
        down_block_types=("DownEncoderBlock2D", "DownEncoderBlock2D"),
        up_block_types=("UpDecoderBlock2D", "UpDecoderBlock2D"),
        latent_channels=4,
        norm_num_groups=8,
    )
    return vae.eval(), (torch.randn(1, 3, 16, 16),), {}


def call_ddpm_step():
    scheduler = DDPMScheduler(num_train_timesteps=100)
    scheduler.set_timesteps(10)
    t = scheduler.timesteps[3]
    return scheduler.step, (torch.randn(2, 3, 16, 16), t, torch.randn(2, 3, 16, 16)), {}


def call_ddim_step():
    scheduler = DDIMScheduler(num_train_timesteps=100)
    scheduler.set_timesteps(10)
    t = scheduler.timesteps[3]
    return scheduler.step, (torch.randn(2, 3, 16, 16), t, torch.randn(2, 3, 16, 16)), {"eta": 0.0}


# -- calls written for rewritten functions the benchmark's calls do not run (rewrite_check.py) --
# Tiny configs (diffusers' own model-test sizes), random weights; eval mode, so dropout is off.


def _hunyuan_video15(image_embeds):
    from diffusers import HunyuanVideo15Transformer3DModel

    model = HunyuanVideo15Transformer3DModel(
        in_channels=4, out_channels=4, num_attention_heads=2, attention_head_dim=8, num_layers=2,
        num_refiner_layers=1, mlp_ratio=2.0, text_embed_dim=16, text_embed_2_dim=8, image_embed_dim=12,
        rope_axes_dim=(2, 2, 4), target_size=16, task_type="t2v",
    )
    inputs = {
        "hidden_states": torch.randn(1, 4, 1, 8, 8),
        "timestep": torch.tensor([1.0]),
        "encoder_hidden_states": torch.randn(1, 6, 16),
        "encoder_hidden_states_2": torch.randn(1, 4, 8),
        "encoder_attention_mask": torch.ones(1, 6),
        "encoder_attention_mask_2": torch.ones(1, 4),
        "image_embeds": image_embeds,
    }
    return model.eval(), (), inputs


def rewrite_call_hunyuan_video15_text_to_video():
    """models/transformers/transformer_hunyuan_video15.py:HunyuanVideo15Transformer3DModel.forward,
    whose `if is_t2v:` (`torch.all(image_embeds == 0)`) became `torch.cond`: text-to-video, all-zero
    image embeddings (the branch that zeroes the image tokens). Not in the benchmark's models."""
    return _hunyuan_video15(torch.zeros(1, 3, 12))


def rewrite_call_hunyuan_video15_image_to_video():
    """The same `torch.cond`'s other branch: image-to-video, image embeddings given."""
    return _hunyuan_video15(torch.randn(1, 3, 12))


# The video UNets' `if any(s % default_overall_up_factor != 0 ...)`: logger.info got an
# `is_compiling()` guard. Only a latent whose height or width is not a multiple of 2**(number of
# upsamplers) takes it; the benchmark has no video UNet, and its image UNet gets 16x16.


def rewrite_call_unet3d_odd_size():
    """models/unets/unet_3d_condition.py:UNet3DConditionModel.forward (text-to-video), the
    upsample-size branch: a 15x15 latent, which the UNet handles by forcing interpolation sizes."""
    from diffusers import UNet3DConditionModel

    unet = UNet3DConditionModel(
        block_out_channels=(4, 8), norm_num_groups=4, down_block_types=("CrossAttnDownBlock3D", "DownBlock3D"),
        up_block_types=("UpBlock3D", "CrossAttnUpBlock3D"), cross_attention_dim=8, attention_head_dim=2,
        out_channels=4, in_channels=4, layers_per_block=1, sample_size=16,
    )
    return unet.eval(), (torch.randn(1, 4, 2, 15, 15), torch.tensor([10]), torch.randn(1, 4, 8)), {}


def rewrite_call_unet_spatio_temporal_odd_size():
    """models/unets/unet_spatio_temporal_condition.py:UNetSpatioTemporalConditionModel.forward
    (Stable Video Diffusion), the same upsample-size branch: a 15x15 latent."""
    from diffusers import UNetSpatioTemporalConditionModel

    unet = UNetSpatioTemporalConditionModel(
        block_out_channels=(32, 64), down_block_types=("CrossAttnDownBlockSpatioTemporal", "DownBlockSpatioTemporal"),
        up_block_types=("UpBlockSpatioTemporal", "CrossAttnUpBlockSpatioTemporal"), cross_attention_dim=32,
        num_attention_heads=8, out_channels=4, in_channels=4, layers_per_block=1, sample_size=16,
        projection_class_embeddings_input_dim=96, addition_time_embed_dim=32, num_frames=2,
    )
    added_time_ids = torch.tensor([[6.0, 127.0, 0.02]])
    inputs = (torch.randn(1, 2, 4, 15, 15), torch.tensor([10]), torch.randn(1, 1, 32), added_time_ids)
    return unet.eval(), inputs, {}


def rewrite_call_unet_motion_odd_size():
    """models/unets/unet_motion_model.py:UNetMotionModel.forward (AnimateDiff), the same
    upsample-size branch: a 15x15 latent."""
    from diffusers import UNetMotionModel

    unet = UNetMotionModel(
        block_out_channels=(16, 32), norm_num_groups=16,
        down_block_types=("CrossAttnDownBlockMotion", "DownBlockMotion"),
        up_block_types=("UpBlockMotion", "CrossAttnUpBlockMotion"), cross_attention_dim=16,
        num_attention_heads=2, out_channels=4, in_channels=4, layers_per_block=1, sample_size=16,
    )
    return unet.eval(), (torch.randn(1, 4, 2, 15, 15), torch.tensor([10]), torch.randn(2, 4, 16)), {}


def rewrite_call_i2vgen_xl_unet_odd_size():
    """models/unets/unet_i2vgen_xl.py:I2VGenXLUNet.forward (image-to-video), the same
    upsample-size branch: a 15x15 latent (diffusers' pipeline-test UNet size)."""
    from diffusers import I2VGenXLUNet

    unet = I2VGenXLUNet(
        block_out_channels=(4, 8), layers_per_block=1, sample_size=16, in_channels=4, out_channels=4,
        down_block_types=("CrossAttnDownBlock3D", "DownBlock3D"), up_block_types=("UpBlock3D", "CrossAttnUpBlock3D"),
        cross_attention_dim=4, attention_head_dim=4, num_attention_heads=None, norm_num_groups=2,
    )
    sample = torch.randn(1, 4, 2, 15, 15)
    inputs = {"fps": torch.tensor([8]), "image_latents": torch.randn(1, 4, 2, 15, 15),
              "image_embeddings": torch.randn(1, 1, 4), "encoder_hidden_states": torch.randn(1, 3, 4)}
    return unet.eval(), (sample, torch.tensor([10])), inputs


def rewrite_call_audioldm2_unet_odd_size():
    """pipelines/audioldm2/modeling_audioldm2.py:AudioLDM2UNet2DConditionModel.forward, the same
    upsample-size branch: a 15x15 spectrogram latent, with its two text conditionings."""
    from diffusers.pipelines.audioldm2.modeling_audioldm2 import AudioLDM2UNet2DConditionModel

    unet = AudioLDM2UNet2DConditionModel(
        block_out_channels=(8, 16), layers_per_block=1, norm_num_groups=8, sample_size=16, in_channels=4,
        out_channels=4, down_block_types=("DownBlock2D", "CrossAttnDownBlock2D"),
        up_block_types=("CrossAttnUpBlock2D", "UpBlock2D"), cross_attention_dim=([8, 8], [8, 8]),
    )
    inputs = {"encoder_hidden_states": torch.randn(1, 5, 8), "encoder_hidden_states_1": torch.randn(1, 3, 8)}
    return unet.eval(), (torch.randn(1, 4, 15, 15), torch.tensor([10])), inputs


def rewrite_call_cosmos_controlnet_short_scale_list():
    """models/controlnets/controlnet_cosmos.py:CosmosControlNetModel._expand_conditioning_scale,
    whose "Received %d control scales" warning got an `is_compiling()` guard: a one-element scale
    list for a two-block control net. A direct call of the helper: the model's forward, its only
    caller, resizes the padding mask with torchvision, which has no CPU build here (README)."""
    from diffusers import CosmosControlNetModel

    model = CosmosControlNetModel(
        n_controlnet_blocks=2, in_channels=18, latent_channels=18, model_channels=32, num_attention_heads=2,
        attention_head_dim=16, mlp_ratio=2, text_embed_dim=32, adaln_lora_dim=4, patch_size=(1, 2, 2),
        max_size=(4, 32, 32), rope_scale=(2.0, 1.0, 1.0), img_context_dim_in=32, img_context_dim_out=32,
    )

    def expanded_scales(scales):
        return torch.tensor(model._expand_conditioning_scale(scales))

    return expanded_scales, ([0.5],), {}


def rewrite_call_proteina_align_chirality():
    """models/transformers/transformer_rfd4_proteina.py:align_chirality (given
    `@torch.compiler.disable`: its `torch.where(mask)` index lists have data-dependent sizes): two
    chiral frames on a six-token backbone, with gradients for the backbone. A direct call: the
    public caller, RFD4ProteinaTransformer's forward, needs a full protein feature set
    (conditioning tensors, atom masks) that this benchmark does not build."""
    from diffusers.models.transformers.transformer_rfd4_proteina import align_chirality

    frames = torch.full((1, 6, 2, 5), -1, dtype=torch.long)
    frames[0, 0, 0] = torch.tensor([0, 1, 2, 3, -1])
    frames[0, 2, 1] = torch.tensor([2, 3, 4, 5, 1])
    owners = torch.full((1, 6, 2), -1, dtype=torch.long)
    owners[0, 0, 0], owners[0, 2, 1], owners[0, 4, 0] = 0, 5, 5  # slot (4, 0) copies frame (2, 1)
    features = {
        "x_t": {"bb_ca": torch.randn(1, 6, 3, requires_grad=True)},
        "padding_mask": torch.ones(1, 6),
        "chiral_frame_atoms": frames,
        "chiral_slot_owner": owners,
    }
    vectors = torch.nn.functional.normalize(torch.randn(1, 6, 2, 3), dim=-1).reshape(1, 6, 6)
    return align_chirality, (vectors, features), {}


def rewrite_call_randn_tensor_cpu_generator_for_another_device():
    """utils/torch_utils.py:randn_tensor's "generator was created on 'cpu'" notice (now `and not
    torch.compiler.is_compiling()`), reached only when a CPU generator draws for another device (a
    GPU in practice). This machine has no GPU, so the meta device stands in for it: the branch and
    the rewritten line run, and the call returns what a meta tensor has, its shape and dtype. The
    benchmark's DDPM step draws on the CPU, for the CPU."""
    from diffusers.utils.torch_utils import randn_tensor

    def draw(shape):
        latents = randn_tensor(shape, generator=torch.Generator("cpu").manual_seed(0), device=torch.device("meta"))
        return torch.tensor([*latents.shape, latents.dtype.itemsize, latents.is_meta])

    return draw, ((2, 4, 8, 8),), {}
