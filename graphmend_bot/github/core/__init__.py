"""Plumbing every GitHub job shares: the API client, the Actions contract, the bot's identity,
markers, archives and what a step leaves behind."""
