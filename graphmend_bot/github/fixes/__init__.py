"""Fix pull requests: when to open, update or close one, and the branch and body it carries."""
