# Two entry points on a fresh clone: `make demo` and `make test`. Both build .venv themselves.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: demo test lint typecheck install clean bench

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	# torch is pinned: the CPU build 2.13.0; an unpinned torch pulls a multi-GB CUDA build.
	$(BIN)/python -m pip install --quiet "torch==2.13.0"
	$(BIN)/python -m pip install --quiet -e ".[test]"
	touch $(STAMP)

install: $(STAMP)

demo: $(STAMP)
	@echo "== graphmend check examples/ (static analysis) =="
	-$(BIN)/graphmend check examples/
	@echo
	@echo "== graphmend check --diff examples/ (the rewrites --fix would make) =="
	-$(BIN)/graphmend check --diff examples/

lint: $(STAMP)
	$(BIN)/ruff check graphmend_bot tests benchmarks
	$(BIN)/mypy

test: $(STAMP) lint
	$(BIN)/python -m pytest

clean:
	rm -rf $(VENV) .mypy_cache .ruff_cache .pytest_cache
