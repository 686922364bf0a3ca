import math


def pad_amount(size: int, multiple: int) -> int:
    """Static arithmetic on Python ints: nothing here breaks."""
    if size % multiple == 0:
        return 0
    return multiple - size % multiple


def num_patches(height: int, width: int, patch: int) -> int:
    return math.ceil(height / patch) * math.ceil(width / patch)
