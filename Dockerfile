# The GitHub Action's image: `graphmend bot`, static analysis only (no torch).
# GitHub runs Docker actions with the workspace mounted as the working directory, so there is no
# WORKDIR and no USER (the runner must own the files it writes).
FROM python:3.11.11-slim-bookworm

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1

COPY pyproject.toml README.md LICENSE /opt/graphmend/
COPY graphmend_bot /opt/graphmend/graphmend_bot

# Runtime dependencies pinned to the versions the tests run with; the project itself without deps.
RUN python -m pip install "PyGithub==2.10.0" "libcst==1.9.0" "PyYAML==6.0.3" \
 && python -m pip install --no-deps /opt/graphmend \
 && graphmend --version

ENTRYPOINT ["graphmend", "bot"]
