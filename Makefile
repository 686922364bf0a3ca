# Two entry points on a fresh clone: `make demo` and `make test`. Both build .venv themselves.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: demo demo-review test lint typecheck install clean bench

$(STAMP): pyproject.toml constraints.txt
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	# torch is pinned: the CPU build 2.13.0; an unpinned torch pulls a multi-GB CUDA build.
	$(BIN)/python -m pip install --quiet "torch==2.13.0"
	$(BIN)/python -m pip install --quiet -c constraints.txt -e ".[test]"
	touch $(STAMP)

install: $(STAMP)

# The main job on the bundled example: find the breaks, then show the rewrites --fix would make.
# (`graphmend check` exits 1 when it finds breaks, which is the point of the demo.)
demo: $(STAMP)
	@echo "== graphmend check --show-fixes examples/ =="
	@$(BIN)/graphmend check --show-fixes examples/ || [ $$? -eq 1 ]
	@echo
	@echo "== graphmend check --diff --unsafe-fixes examples/ (nothing is written) =="
	@$(BIN)/graphmend check --diff --unsafe-fixes examples/ || [ $$? -eq 1 ]
	@echo
	@$(MAKE) --no-print-directory demo-review

# The pull-request review, printed (`graphmend review`): a throwaway git repository in .graphmend-demo/
# whose base commit is the example with its breaks fixed, and whose working tree brings them back.
DEMO := .graphmend-demo/repo
DEMO_GIT := git -c user.name=graphmend-demo -c user.email=demo@example.invalid -c commit.gpgsign=false
demo-review: $(STAMP)
	@rm -rf $(DEMO) && mkdir -p $(DEMO) && cp -R examples/. $(DEMO)/
	@cd $(DEMO) && git init -q && $(CURDIR)/$(BIN)/graphmend check --fix --unsafe-fixes --exit-zero . >/dev/null 2>&1 \
		&& $(DEMO_GIT) add -A && $(DEMO_GIT) commit -q -m "base: the example without the breaks --fix removes"
	@cp -R examples/. $(DEMO)/
	@echo "== graphmend review --base HEAD (in $(DEMO): the working tree brings the breaks back) =="
	@cd $(DEMO) && $(CURDIR)/$(BIN)/graphmend review --base HEAD || [ $$? -eq 1 ]

lint: $(STAMP)
	$(BIN)/ruff check graphmend_bot tests benchmarks
	$(BIN)/mypy
	$(BIN)/hadolint Dockerfile

# The suite includes tests/test_action_image.py: it builds the Action's image on a local stand-in base
# (../shared/tools/docker-standin-base.sh installs and starts Docker when it can; cached by name) and
# runs `graphmend bot` in it against the fake GitHub. Where Docker cannot start it is skipped, with why.
# The suite runs on every core (pytest-xdist), a file's tests on one worker: module fixtures build once.
test: $(STAMP) lint
	$(BIN)/python -m pytest -n auto --dist loadfile --durations=15

clean:
	rm -rf $(VENV) .mypy_cache .ruff_cache .pytest_cache .graphmend-demo
