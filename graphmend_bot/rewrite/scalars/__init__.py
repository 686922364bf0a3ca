"""Scalars and sizes read out of tensors (`.item()`, `int(t)`, `.tolist()`, sizes, clamp bounds, bisect on a sorted tensor) kept tensors, or replaced by the Python values they came from."""
