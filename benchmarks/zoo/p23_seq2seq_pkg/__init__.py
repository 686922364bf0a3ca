"""A seq2seq package: a config object, an encoder/decoder tree, a cache object, model.compile().

The cache's methods return Python ints; config flags are static.
"""

import torch

from .modeling import Seq2Seq, Seq2SeqConfig


def case():
    model = Seq2Seq(Seq2SeqConfig()).eval()
    src = torch.randint(0, 32, (2, 6))
    tgt = torch.randint(0, 32, (2, 4))
    return model, (src, tgt)
