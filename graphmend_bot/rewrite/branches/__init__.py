"""Branches on a tensor's value: `torch.where`, `torch.cond`, and the shapes that need neither (table lookups, zero guards before a return, Python's two-argument max/min)."""
