"""MONAI: medical image segmentation (networks, losses, sliding-window inference).

Users compile a segmentation network's forward, its Dice + cross-entropy training loss, and
whole-image inference through overlapping patches.
"""

from __future__ import annotations

import torch
from monai.inferers import sliding_window_inference
from monai.losses import DiceCELoss
from monai.networks.nets import SegResNet, UNet

DISTRIBUTION = "monai"
PACKAGE = "monai"
WHY = "segmentation / medical imaging: the standard healthcare-imaging framework"


def _unet():
    return UNet(spatial_dims=2, in_channels=1, out_channels=2, channels=(8, 16, 32), strides=(2, 2), num_res_units=1)


def call_unet_forward():
    return _unet().eval(), (torch.randn(2, 1, 32, 32),), {}


def call_segresnet_forward():
    net = SegResNet(spatial_dims=2, init_filters=8, in_channels=1, out_channels=2, blocks_down=(1, 2), blocks_up=(1,))
    return net.eval(), (torch.randn(2, 1, 32, 32),), {}


def call_dice_ce_loss():
    logits = torch.randn(2, 2, 32, 32)
    labels = torch.randint(0, 2, (2, 1, 32, 32)).float()
    return DiceCELoss(to_onehot_y=True, softmax=True), (logits, labels), {}


def call_sliding_window_inference():
    net = _unet().eval()
    return sliding_window_inference, (torch.randn(1, 1, 48, 48), (32, 32), 2, net), {"overlap": 0.25}


# Calls written for the rewrites (issue 16's calls-per-rewrite check): each drives the rewritten
# lines of functions the benchmark's four calls do not reach (other losses, box utilities, the
# detector, MAISI's memory-saving layers, VISTA3D's point head), with the option that reaches them.
# Losses take logits that require grad, so gradients are compared as well as values.


def _logits(channels: int = 2):
    return torch.randn(2, channels, 16, 16).requires_grad_()


def _labels():
    return torch.randint(0, 2, (2, 1, 16, 16)).float()


def rewrite_call_dice_class_weight():
    """monai/losses/dice.py:DiceLoss.forward, its `self.class_weight.min() < 0` check (an
    `_assert_async` when compiled): only `weight=` reaches it; the benchmark's DiceCELoss has none."""
    from monai.losses import DiceLoss

    return DiceLoss(to_onehot_y=True, softmax=True, weight=[0.3, 0.7]), (_logits(), _labels()), {}


def rewrite_call_generalized_dice():
    """monai/losses/dice.py:GeneralizedDiceLoss.forward (`reduce_axis` from `list(range(...))`)."""
    from monai.losses import GeneralizedDiceLoss

    return GeneralizedDiceLoss(to_onehot_y=True, softmax=True), (_logits(), _labels()), {}


def rewrite_call_tversky():
    """monai/losses/tversky.py:TverskyLoss.forward (`reduce_axis`), batch=True to take the `[0] +` arm too."""
    from monai.losses import TverskyLoss

    return TverskyLoss(to_onehot_y=True, softmax=True, batch=True), (_logits(), _labels()), {}


def rewrite_call_mcc():
    """monai/losses/mcc_loss.py:MCCLoss.forward (`reduce_axis`)."""
    from monai.losses import MCCLoss

    return MCCLoss(sigmoid=True), (_logits(1), _labels()), {}


def rewrite_call_hausdorff_dt():
    """monai/losses/hausdorff_loss.py:HausdorffDTLoss.forward (`reduce_axis`, inside its per-channel loop)."""
    from monai.losses import HausdorffDTLoss

    return HausdorffDTLoss(include_background=True, sigmoid=True), (_logits(1), _labels()), {}


def rewrite_call_focal_per_class_weight():
    """monai/losses/focal_loss.py:FocalLoss.forward, the per-class `(cw < 0).any()` check
    (`weight=` a sequence, one entry per channel)."""
    from monai.losses import FocalLoss

    return FocalLoss(to_onehot_y=True, use_softmax=True, weight=[1.0, 2.0]), (_logits(), _labels()), {}


def rewrite_call_focal_scalar_weight():
    """monai/losses/focal_loss.py:FocalLoss.forward, the scalar `cw < 0` check (`weight=` a number)."""
    from monai.losses import FocalLoss

    return FocalLoss(weight=0.5), (_logits(1), _labels()), {}


def rewrite_call_aucm():
    """monai/losses/aucm_loss.py:AUCMLoss.forward, the binary-target check (valid 0/1 targets)."""
    from monai.losses import AUCMLoss

    return AUCMLoss(), (torch.rand(8, 1).requires_grad_(), torch.tensor([[0.0], [1.0]]).repeat(4, 1)), {}


def _boxes(count: int, generator_offset: float = 0.0):
    """Valid 2-D boxes (x1, y1, x2, y2) with positive sides."""
    corner = torch.rand(count, 2) * 10 + generator_offset
    return torch.cat((corner, corner + 1 + torch.rand(count, 2) * 5), dim=1)


def rewrite_call_box_pair_giou():
    """monai/data/box_utils.py:box_pair_giou, its NaN/Inf check (public box utility; detection losses)."""
    from monai.data.box_utils import box_pair_giou

    return box_pair_giou, (_boxes(6).requires_grad_(), _boxes(6, 1.0)), {}


def rewrite_call_box_coder_encode():
    """monai/apps/detection/utils/box_coder.py:encode_boxes, its NaN/Inf check, through `BoxCoder.encode_single`."""
    from monai.apps.detection.utils.box_coder import BoxCoder

    coder = BoxCoder(weights=(1.0, 1.0, 1.0, 1.0))
    return coder.encode_single, (_boxes(6).requires_grad_(), _boxes(6, 1.0)), {}


def rewrite_call_box_coder_decode():
    """monai/apps/detection/utils/box_coder.py:BoxCoder.decode_single, its NaN/Inf check (box regression
    outputs decoded against anchors, as the detector's loss and post-processing do)."""
    from monai.apps.detection.utils.box_coder import BoxCoder

    coder = BoxCoder(weights=(1.0, 1.0, 1.0, 1.0))
    return coder.decode_single, ((torch.randn(6, 4) * 0.1).requires_grad_(), _boxes(6)), {}


def rewrite_call_gaussian_filter_scalespace():
    """monai/networks/layers/convutils.py:_modified_bessel_1, its `-ans if x < 0.0 else ans` return
    (now `torch.where`): `GaussianFilter(approx="scalespace")` with a learnable sigma; sigma**2 >= 3.75
    takes the branch that holds the rewritten line."""
    from monai.networks.layers import GaussianFilter

    gaussian = GaussianFilter(spatial_dims=2, sigma=2.5, approx="scalespace", requires_grad=True)
    return gaussian, (torch.randn(1, 1, 24, 24),), {}


def rewrite_call_vista3d_point_head_classes():
    """monai/networks/nets/vista3d.py:PointMappingSAM.forward, the per-class embedding choice
    (`zeroshot_embed` above `last_supported`, else `supported_embed`), reached when a class prompt
    is given; every prompted class is a supported one, the common case. VISTA3D's own point head,
    called directly: the whole VISTA3D needs a SegResNetDS2 encoder at 3-D size."""
    return _vista3d_point_head(torch.tensor([1, 3]))


def rewrite_call_vista3d_point_head_zero_shot():
    """The same choice with one supported and one zero-shot class (both embeddings selected)."""
    return _vista3d_point_head(torch.tensor([1, 6]))


def _vista3d_point_head(class_vector):
    """VISTA3D's point head (classes below 4 supported, the rest zero-shot) on two prompted points."""
    from monai.networks.nets.vista3d import PointMappingSAM

    head = PointMappingSAM(feature_size=16, max_prompt=4, n_classes=8, last_supported=4)
    features = torch.randn(1, 16, 8, 8, 8)
    points = torch.randint(0, 8, (2, 3, 3)).float()
    labels = torch.tensor([[1, 0, -1], [1, 1, 0]])
    return head, (features, points, labels, class_vector), {}


def rewrite_call_maisi_group_norm_print_info():
    """monai/apps/generation/maisi/networks/autoencoderkl_maisi.py:MaisiGroupNorm3D.forward and
    MaisiGroupNorm3D._cat_inputs (their `print_info` logging): `print_info=True`, and a group of 500+
    voxels along one axis, which takes the memory-saving concatenation. The layer MAISI's autoencoder
    builds, called directly: a whole autoencoder reaches that size only on full-size volumes."""
    from monai.apps.generation.maisi.networks.autoencoderkl_maisi import MaisiGroupNorm3D

    return MaisiGroupNorm3D(num_groups=2, num_channels=4, print_info=True), (torch.randn(1, 4, 2, 2, 520),), {}


def rewrite_call_maisi_convolution_print_info():
    """autoencoderkl_maisi.py:MaisiConvolution.forward, ._split_tensor and ._concatenate_tensors (their
    `print_info` logging): `print_info=True`, `num_splits=2`, and 512 output channels, which takes the
    memory-saving concatenation. Called directly, as the group norm above."""
    from monai.apps.generation.maisi.networks.autoencoderkl_maisi import MaisiConvolution

    conv = MaisiConvolution(spatial_dims=3, in_channels=2, out_channels=512, num_splits=2, dim_split=1,
                            print_info=True, conv_only=True)
    return conv, (torch.randn(1, 2, 4, 12, 4),), {}


class _TinyDetectionHead(torch.nn.Module):
    """The network contract RetinaNetDetector documents (its own example's NaiveNet), with
    convolutions in place of random maps so that training has parameters and gradients."""

    spatial_dims, num_classes, size_divisible, num_anchors = 2, 2, 2, 1
    cls_key, box_reg_key = "cls", "box_reg"

    def __init__(self) -> None:
        super().__init__()
        self.stem = torch.nn.Conv2d(1, 8, kernel_size=3, stride=2, padding=1)
        self.cls = torch.nn.Conv2d(8, self.num_classes * self.num_anchors, kernel_size=1)
        self.box_reg = torch.nn.Conv2d(8, 2 * self.spatial_dims * self.num_anchors, kernel_size=1)

    def forward(self, images):
        features = self.stem(images).relu()
        return {self.cls_key: [self.cls(features)], self.box_reg_key: [self.box_reg(features)]}


def _retinanet_detector():
    from monai.apps.detection.networks.retinanet_detector import RetinaNetDetector
    from monai.apps.detection.utils.anchor_utils import AnchorGeneratorWithAnchorShape

    anchors = AnchorGeneratorWithAnchorShape(feature_map_scales=(1,), base_anchor_shapes=((8, 8),))
    return RetinaNetDetector(_TinyDetectionHead(), anchors, debug=True)


def rewrite_call_retinanet_training_debug():
    """monai/apps/detection/networks/retinanet_detector.py:RetinaNetDetector.compute_anchor_matched_idxs
    (its `debug` print): a training step with `debug=True` and the ATSS matcher. In this environment
    the step raises OptionalImportError on both sides before that print: the method's
    `isinstance(self.proposal_matcher, Matcher)` imports torchvision, which the benchmark's venv
    does not install. So this call checks that the rewritten method raises as the original does;
    its rewritten line is not reached."""
    detector = _retinanet_detector()
    detector.set_atss_matcher(num_candidates=4, center_in_gt=False)
    images = [torch.rand(1, 32, 32), torch.rand(1, 32, 32)]
    targets = [{"boxes": torch.tensor([[4.0, 4.0, 14.0, 12.0], [16.0, 18.0, 28.0, 30.0]]), "labels": torch.tensor([0, 1])},
               {"boxes": torch.tensor([[2.0, 6.0, 30.0, 26.0]]), "labels": torch.tensor([1])}]
    return detector.train(), (images, targets), {}


def rewrite_call_retinanet_classification_samples_debug():
    """retinanet_detector.py:RetinaNetDetector.get_cls_train_sample_per_image (both `debug` prints: 3 anchors
    matched to 2 boxes is "too few"), with the hard-negative sampler. Called directly, as
    compute_loss calls it per image: the training step that reaches it needs torchvision here (above)."""
    detector = _retinanet_detector()
    detector.set_hard_negative_sampler(batch_size_per_image=16, positive_fraction=0.5)
    logits = torch.randn(64, 2).requires_grad_()  # (anchors, classes) of one 16x16 map
    matched = torch.full((64,), -1)
    matched[[5, 6, 40]] = torch.tensor([0, 0, 1])
    target = {"boxes": torch.tensor([[4.0, 4.0, 14.0, 12.0], [16.0, 18.0, 28.0, 30.0]]), "labels": torch.tensor([0, 1])}
    return detector.get_cls_train_sample_per_image, (logits, target, matched), {}


def rewrite_call_retinanet_sliding_window_inference():
    """monai/apps/detection/utils/predict_utils.py:check_dict_values_same_length, and
    box_coder.py:BoxCoder.decode_single in post-processing: inference through the detector's
    sliding-window inferer (`set_sliding_window_inferer`), the path that checks the head's outputs."""
    detector = _retinanet_detector()
    detector.set_sliding_window_inferer(roi_size=(16, 16), sw_batch_size=2, overlap=0.25)
    return _detect, (detector.eval(), [torch.rand(1, 32, 32)]), {}


def _detect(detector, images):
    with torch.no_grad():  # as MONAI's detection inference runs (its NMS deep-copies the scores)
        return detector(images, use_inferer=True)
