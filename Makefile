# Two commands: `make run` (set up, start the app on examples/) and `make test` (set up, run everything).
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-stamp

.PHONY: setup run test lint bench clean

$(STAMP): pyproject.toml requirements.lock
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -r requirements.lock
	$(BIN)/python -m pip install -q --no-deps -e .
	touch $(STAMP)

setup: $(STAMP)

run: setup
	$(BIN)/vmark app examples

lint: setup
	$(BIN)/ruff check src tests bench
	$(BIN)/mypy

test: setup lint
	$(BIN)/pytest -q -p no:cacheprovider

bench: setup
	$(BIN)/python bench/run_all.py

clean:
	rm -rf $(VENV) build src/*.egg-info
