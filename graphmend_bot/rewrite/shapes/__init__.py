"""Data-dependent shapes: the first match as `argmax`, and helpers whose break cannot be removed run eagerly (`@torch.compiler.disable`)."""
