# The GitHub Action's image: `graphmend bot`, static analysis only (no torch).
# GitHub runs Docker actions with the workspace mounted as the working directory, so there is no
# WORKDIR and no USER (the runner must own the files it writes).
#
# Base: python:3.11.14-slim-bookworm (CPython 3.11.14, with the 2025 tarfile extraction fixes that
# 3.11.11 lacks), pinned by the digest of its multi-architecture index so a re-pushed tag cannot change
# the image. The digest is the one public Dockerfiles pin for this tag, e.g.
# github.com/aliyun/alibabacloud-polardb-tool-agentic-server (Dockerfile). Bump tag and digest together.
# The digest is an ARG so tests, which cannot reach Docker Hub, build on a local stand-in:
# `docker build --build-arg BASE=<stand-in> .` (tests/test_action_image.py).
ARG BASE=python:3.11.14-slim-bookworm@sha256:65a93d69fa75478d554f4ad27c85c1e69fa184956261b4301ebaf6dbb0a3543d
FROM ${BASE}

# PYTHONWARNINGS=ignore: a warning about a checked file quotes its name and lines on stderr, where
# the runner reads `::` lines as workflow commands (graphmend_bot/source_warnings.py).
ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PYTHONWARNINGS=ignore \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1

# Runtime dependencies: the hashed lock of the versions the tests run with (--require-hashes: a
# re-uploaded or substituted file fails the build), in their own layer so an edit to the package
# does not reinstall them; then the project itself, built with the lock's setuptools, fetching nothing.
COPY verify/requirements.lock /opt/graphmend/verify/requirements.lock
RUN python -m pip install --require-hashes --no-deps -r /opt/graphmend/verify/requirements.lock

COPY pyproject.toml README.md LICENSE /opt/graphmend/
COPY graphmend_bot /opt/graphmend/graphmend_bot
# No .git is sent to the build: the release passes the tag's version (setuptools-scm's fallback otherwise).
ARG GRAPHMEND_VERSION=0.0.0
RUN SETUPTOOLS_SCM_PRETEND_VERSION="${GRAPHMEND_VERSION}" python -m pip install --no-deps --no-index --no-build-isolation /opt/graphmend \
 && graphmend --version

ENTRYPOINT ["graphmend", "bot"]
