# 快艇骰子 — the two quick-start commands are `make run` and `make test`.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
# Installs go through uv (a pip-compatible installer): on this machine it installs the
# runtime in about 4 s where pip took 12 s, most of the first page's wait
# (docs/benchmarks.md). uv itself comes from the registry into .uv/ by the interpreter's own
# pip (or, where that interpreter has none, a small venv of its own). uv compiles nothing up
# front: Python compiles each module on its first import anyway.
UV_DIR := .uv
UV     := $(UV_DIR)/bin/uv
UV_REQ := uv>=0.5,<1
INSTALL := $(UV) pip install --quiet --python $(BIN)/python
# Two installs, two stamps: `make run` needs only what serving needs ([project]
# dependencies); the test targets add the dev tools ([dev]) on top of the same venv.
RUNTIME := $(VENV)/.runtime-stamp
DEV     := $(VENV)/.dev-stamp
HOST   ?= 127.0.0.1
PORT   ?= 8000
# U22: `make run` keeps its data in this checkout (git-ignored), so a second checkout on the
# same machine never plays on the first one's games; an installed `yahtzee serve` keeps the
# per-user default (~/.local/share/yahtzee/yahtzee.db). DB=… (a file or a postgresql:// URL)
# or YAHTZEE_DB chooses another.
DB     ?= $(or $(YAHTZEE_DB),.data/yahtzee.db)
# pytest-xdist processes for `make test`: one worker per CPU by default (the suite waits on
# browsers, servers and PostgreSQL as much as it computes; docs/benchmarks.md has both
# figures), JOBS=0 runs it in one process.
JOBS   ?= auto
# Python keeps each module's compiled bytecode (__pycache__) for the next process: a
# machine whose environment sets PYTHONDONTWRITEBYTECODE made every process of the suite
# (each pytest worker, each of the ~200 servers it starts, each CLI run) compile every
# module it imports again, 40 % of a server's start (docs/benchmarks.md).
unexport PYTHONDONTWRITEBYTECODE

.PHONY: run test lint typecheck unit browser services node jstest bench clean

$(UV):
	@if $(PYTHON) -m pip --version >/dev/null 2>&1; then \
	  $(PYTHON) -m pip install --quiet --disable-pip-version-check --no-compile \
	    --target $(UV_DIR) '$(UV_REQ)'; \
	else \
	  $(PYTHON) -m venv $(UV_DIR) && \
	  $(UV_DIR)/bin/pip install --quiet --disable-pip-version-check '$(UV_REQ)'; \
	fi

$(BIN)/python: | $(UV)
	$(UV) venv --quiet --python $(PYTHON) $(VENV)

$(RUNTIME): pyproject.toml | $(BIN)/python $(UV)
	$(INSTALL) -e .
	touch $@

$(DEV): $(RUNTIME)
	$(INSTALL) -e '.[dev]'
	touch $@

## run: create the venv, install the runtime, build the solver table if needed and serve
run: $(RUNTIME)
	$(BIN)/yahtzee serve --host $(HOST) --port $(PORT) --db '$(DB)'

## browser: Debian's chromium (and CJK fonts) for the browser tests
browser:
	@scripts/install-browser.sh

## services: Debian's postgresql and nginx (the tests start private instances of both)
services:
	@scripts/install-services.sh

## node: Debian's nodejs, for the page's reducer tests
node:
	@scripts/install-node.sh

## jstest: the page's pure modules (reducer, messages) under `node --test`
jstest: node
	node --test tests/js/

lint: $(DEV)
	$(BIN)/ruff check src tests benchmarks scripts
	$(BIN)/ruff format --check src tests benchmarks scripts
	$(BIN)/lint-imports

typecheck: $(DEV)
	$(BIN)/mypy

## test: everything CI runs — lint, types, unit, API and browser tests
test: $(DEV) browser services lint typecheck jstest
	$(BIN)/pytest -n $(JOBS) --dist loadgroup --durations=30

unit: $(DEV)
	$(BIN)/pytest tests/unit

## bench: the full benchmarks (a few minutes; the test suite runs them in quick mode)
bench: $(DEV)
	$(BIN)/python benchmarks/solver_bench.py
	$(BIN)/python benchmarks/load_bench.py --rounds 5
	$(BIN)/python benchmarks/crash_test.py
	$(BIN)/python benchmarks/crash_test.py --db postgresql
	$(BIN)/python benchmarks/new_game_burst.py
	$(BIN)/python benchmarks/first_load.py
	$(BIN)/python benchmarks/replay_bench.py
	$(BIN)/python benchmarks/review_bench.py

clean:
	rm -rf $(VENV) $(UV_DIR) .pytest_cache .mypy_cache .ruff_cache build src/*.egg-info
