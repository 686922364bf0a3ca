"""Loaders: a cached function that reads files or calls what Dynamo skips, kept a constant with `@torch.compiler.assume_constant_result`."""
