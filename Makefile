# Two commands: `make run` (set up, start the app on examples/) and `make test` (set up, run everything).
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-stamp
# The editor UI (frontend/, TypeScript + Vite) is built during setup into src/vmark/ui/dist/ (git-ignored):
# `npm ci` when the lockfile changed, `npm run build` when a source (or the install) is newer than the build.
NPM ?= npm
UI_DEPS := frontend/node_modules/.vmark-ci-stamp
UI_BUILD := src/vmark/ui/dist/.vmark-build-stamp
UI_SOURCES := $(shell find frontend/src -type f) frontend/index.html frontend/mermaid.html frontend/export.html frontend/vite.config.ts frontend/tsconfig.json
# The page scripts' checkers (tools/pagejs: tsc with checkJs, eslint), installed for `make lint`.
PAGEJS_DEPS := tools/pagejs/node_modules/.vmark-ci-stamp
# The MCP conformance suite (tests/conformance/, with the Node.js 22 it needs as an npm package): `npm ci`
# when its lockfile changed; --prefer-offline takes npm's cache first, so a warm machine needs no network.
CONFORMANCE_DEPS := tests/conformance/node_modules/.vmark-ci-stamp
# The UI tests drive Debian's chromium (never a browser downloaded by Playwright).
CHROMIUM := /usr/bin/chromium

.PHONY: setup run test lint bench clean

$(STAMP): pyproject.toml requirements.lock
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -r requirements.lock
	$(BIN)/python -m pip install -q --no-deps -e .
	touch $(STAMP)

$(UI_DEPS): frontend/package.json frontend/package-lock.json
	@command -v $(NPM) >/dev/null || { echo "setup needs Node.js 20.19+ and npm to build the UI in frontend/" >&2; exit 1; }
	$(NPM) ci --prefix frontend --no-audit --no-fund
	touch $(UI_DEPS)

$(PAGEJS_DEPS): tools/pagejs/package.json tools/pagejs/package-lock.json
	@command -v $(NPM) >/dev/null || { echo "lint needs Node.js 20.19+ and npm for tools/pagejs" >&2; exit 1; }
	$(NPM) ci --prefix tools/pagejs --no-audit --no-fund
	touch $(PAGEJS_DEPS)

$(UI_BUILD): $(UI_DEPS) $(UI_SOURCES)
	$(NPM) run build --prefix frontend
	touch $(UI_BUILD)

$(CONFORMANCE_DEPS): tests/conformance/package.json tests/conformance/package-lock.json
	$(NPM) ci --prefix tests/conformance --no-audit --no-fund --prefer-offline
	touch $(CONFORMANCE_DEPS)

$(CHROMIUM):
	@if [ "$$(id -u)" = 0 ]; then \
		apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y chromium; \
	else \
		echo "make test needs Debian's chromium at $(CHROMIUM) for the UI tests:" \
			"run 'sudo apt-get install chromium' (or make test as root)" >&2; \
		exit 1; \
	fi

setup: $(STAMP) $(UI_BUILD) $(CONFORMANCE_DEPS)

run: setup
	$(BIN)/vmark app examples

lint: setup $(PAGEJS_DEPS)
	$(BIN)/ruff check src tests bench setup.py
	$(BIN)/mypy
	$(BIN)/lint-imports --no-cache
	@$(BIN)/python -m vmark.tools.gen_wire --check || \
		{ echo "make lint: a generated file is stale (see above)" >&2; exit 1; }
	$(NPM) run typecheck --prefix frontend
	$(NPM) run typecheck --prefix tools/pagejs
	$(NPM) run lint --prefix tools/pagejs

test: setup lint $(CHROMIUM)
	$(NPM) test --prefix frontend
	$(BIN)/pytest -q -p no:cacheprovider

bench: setup
	$(BIN)/python bench/run_all.py

clean:
	rm -rf $(VENV) build dist src/*.egg-info src/vmark/ui/dist frontend/node_modules tools/pagejs/node_modules
