"""GraphMend bot: find and fix torch.compile graph breaks where code is reviewed."""


def _version() -> str:
    """The built package's version (setuptools-scm writes _version.py from the git tag); a source
    tree run without building (PYTHONPATH) says so rather than claim a release."""
    try:
        from graphmend_bot._version import version  # type: ignore[import-not-found,unused-ignore]

        return str(version)
    except ImportError:
        return "0.0.0+source"


__version__ = _version()
