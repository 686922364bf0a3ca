"""torchhd: hyperdimensional computing / vector symbolic architectures on PyTorch.

Hypervectors are `torch.Tensor` subclasses (MAP, HRR, FHRR, ...) that override `bind`, `bundle`,
`permute` and the similarities. Users compile their encoder plus the classifier's forward (as the
README's MNIST example does: random keys, level values, `hash_table`, `normalize`, a `Centroid`
model), the ready-made classifiers' forward, n-gram text encoders built from the functional API,
and resonator networks that factorise bound hypervectors.
"""

from __future__ import annotations

import torch
import torchhd
from torchhd import embeddings, models
from torchhd.classifiers import OnlineHD, Vanilla

DISTRIBUTION = "torch-hd"
PACKAGE = "torchhd"
WHY = "hyperdimensional computing: Tensor subclasses with __torch_function__, functional VSA ops; pure Python"


class _Encoder(torch.nn.Module):
    """The README's MNIST encoder: random position keys bound to level-encoded pixel values."""

    def __init__(self, out_features: int, size: int, levels: int) -> None:
        super().__init__()
        self.flatten = torch.nn.Flatten()
        self.position = embeddings.Random(size * size, out_features)
        self.value = embeddings.Level(levels, out_features)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = self.flatten(x)
        sample_hv = torchhd.hash_table(self.position.weight, self.value(x))
        return torchhd.normalize(sample_hv)


def call_mnist_encoder_centroid():
    torch.manual_seed(0)
    encode = _Encoder(256, 8, 16)
    model = models.Centroid(256, 4)
    images, labels = torch.rand(12, 8, 8), torch.randint(0, 4, (12,))
    with torch.no_grad():
        model.add(encode(images), labels)
    model.normalize()

    def classify(x):
        return model(encode(x), dot=True)

    return classify, (torch.rand(4, 8, 8),), {}


def call_vanilla_classifier():
    torch.manual_seed(0)
    clf = Vanilla(16, 256, 4, n_levels=32)
    samples, labels = torch.rand(12, 16) * 2 - 1, torch.randint(0, 4, (12,))
    clf.fit([(samples, labels)])
    return clf, (torch.rand(4, 16) * 2 - 1,), {}


def call_onlinehd_sinusoid_forward():
    torch.manual_seed(0)
    clf = OnlineHD(16, 256, 4, epochs=1)
    samples, labels = torch.randn(12, 16), torch.randint(0, 4, (12,))
    with torch.no_grad():
        clf.model.add(clf.encoder(samples), labels)
    return clf, (torch.randn(4, 16),), {}


def call_ngram_language_encoder():
    """The language-recognition example: letters embedded as random hypervectors, trigram statistics
    bundled (HRR binding, circular convolution by FFT), cosine similarity against class prototypes."""
    torch.manual_seed(0)
    symbols = embeddings.Random(27, 256, vsa="HRR")
    prototypes = torchhd.random(3, 256, vsa="HRR")

    def classify(letters):
        sample_hv = torchhd.ngrams(symbols(letters), n=3)
        return torchhd.cosine_similarity(torchhd.normalize(sample_hv), prototypes)

    return classify, (torch.randint(0, 27, (4, 10)),), {}


def call_resonator_factorization():
    """A resonator network recovering the factors of a bound hypervector from three codebooks,
    a few iterations of `torchhd.resonator` then a codebook lookup. (`SparseDistributed.read`, the
    other associative read, is not a call here: Dynamo itself raises an AssertionError in
    `as_subclass` on it, torch 2.13.0.)"""
    torch.manual_seed(0)
    domains = torchhd.random(24, 256).view(3, 8, 256)
    bound = torchhd.multibind(domains[torch.arange(3), torch.tensor([1, 4, 6])])
    estimates = torchhd.multiset(domains).sign()

    def factorize(s, estimates):
        for _ in range(3):
            estimates = torchhd.resonator(s, estimates, domains)
        return torchhd.dot_similarity(estimates.unsqueeze(-2), domains).squeeze(-2).argmax(-1)

    return factorize, (bound, estimates), {}
