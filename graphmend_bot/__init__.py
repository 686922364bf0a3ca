"""GraphMend bot: find and fix torch.compile graph breaks where code is reviewed."""

__version__ = "0.1.0"
