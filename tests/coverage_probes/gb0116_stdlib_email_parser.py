"""GB0116 Unexpected type in sourceless builder: a standard-library function whose body builds an
object Dynamo cannot wrap (`email.message_from_string(s)`) (GM640, each entry measured by
benchmarks/skipped_callees.py or benchmarks/skipped_methods.py with the id it is refused with,
whatever the arguments)."""

import email

import torch


class Probe(torch.nn.Module):
    def forward(self, x):
        x = x * 2
        value = email.message_from_string("a: b\n\n")  # graph-break: GB0116 GM640
        return x + (value is not None)


def inputs():
    return (torch.ones(3),)
