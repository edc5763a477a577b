# Two commands: `make run` (what running needs, then the app on examples/) and `make test` (that, the test
# tooling, then everything: lint, the page's Node tests, pytest). docs/testing.md says how to run parts.
PYTHON ?= python3
# Independent steps run side by side: pip's installs, the three `npm ci`, the page's build and Chromium's
# install mostly wait on the disk and the network (a fresh clone's setup: 88 s one after the other).
MAKEFLAGS += --jobs=4
VENV := .venv
BIN := $(VENV)/bin
# What running needs (requirements.lock: the runtime dependencies, exact), then the app itself (editable);
# testing adds requirements-dev.lock (the same pins and the dev extra's). `make lock` writes both from
# pyproject.toml's pins (tools/lock.py).
RUNTIME_STAMP := $(VENV)/.runtime-stamp
DEV_STAMP := $(VENV)/.dev-stamp
# The editor UI (frontend/, TypeScript + Vite) is built into src/vmark/ui/dist/ (git-ignored): `npm ci` when
# the lockfile changed, `npm run build` when a source (or the install) is newer than the build.
NPM ?= npm
UI_DEPS := frontend/node_modules/.vmark-ci-stamp
UI_BUILD := src/vmark/ui/dist/.vmark-build-stamp
UI_SOURCES := $(shell find frontend/src -type f) frontend/index.html frontend/mermaid.html frontend/export.html frontend/vite.config.ts frontend/tsconfig.json
# The page scripts' checkers (tools/pagejs: tsc with checkJs, eslint), for `make lint`.
PAGEJS_DEPS := tools/pagejs/node_modules/.vmark-ci-stamp
# The MCP conformance suite (tests/conformance/, with the Node.js 22 it needs as an npm package): `npm ci`
# when its lockfile changed; --prefer-offline takes npm's cache first, so a warm machine needs no network.
CONFORMANCE_DEPS := tests/conformance/node_modules/.vmark-ci-stamp
# The browser tools drive Debian's chromium (never a browser downloaded by Playwright); the UI tests show the
# page in Debian's headless build of it (src/vmark/testing/chromium.py says why).
CHROMIUM := /usr/bin/chromium
CHROMIUM_HINT := sudo apt-get install chromium
PAGE_CHROMIUM := /usr/bin/chromium-headless-shell
# pytest's workers (pytest-xdist; a module's tests stay on one worker: they share its browser) and its
# options; `make test PYTEST_ARGS='-x tests/ui'` runs a part.
PYTEST_WORKERS ?= 3
PYTEST_ARGS ?=

.PHONY: setup runtime run test pytest node-tests lint lint-python lint-page lock bench clean chromium-hint

$(RUNTIME_STAMP): pyproject.toml requirements.lock
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -r requirements.lock
	$(BIN)/python -m pip install -q --no-deps -e .
	touch $(RUNTIME_STAMP)

$(DEV_STAMP): $(RUNTIME_STAMP) requirements-dev.lock
	$(BIN)/python -m pip install -q -r requirements-dev.lock
	touch $(DEV_STAMP)

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

# `make test` needs both Chromium builds: as root it installs them, otherwise it stops with the command to run.
$(CHROMIUM) $(PAGE_CHROMIUM) &:
	@if [ "$$(id -u)" = 0 ]; then \
		apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y chromium chromium-headless-shell; \
	else \
		echo "make test needs Debian's chromium and chromium-headless-shell:" \
			"run 'sudo apt-get install chromium chromium-headless-shell' (or make test as root)" >&2; \
		exit 1; \
	fi

# `make run` only needs it for the browser tools: as root it installs it, otherwise it says how and goes on.
chromium-hint:
	@if [ ! -x $(CHROMIUM) ]; then \
		if [ "$$(id -u)" = 0 ]; then \
			apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y chromium; \
		else \
			echo "The browser tools need Debian's chromium at $(CHROMIUM): run '$(CHROMIUM_HINT)'" >&2; \
		fi; \
	fi

# What running needs: the runtime dependencies, the app, its UI.
runtime: $(RUNTIME_STAMP) $(UI_BUILD)

# What developing needs: that, and the test and lint tooling.
setup: runtime $(DEV_STAMP) $(CONFORMANCE_DEPS) $(PAGEJS_DEPS)

run: runtime chromium-hint
	$(BIN)/vmark app examples

# The Python checks and the page's run side by side (each a single process: one core each).
lint: lint-python lint-page

lint-python: $(DEV_STAMP)
	$(BIN)/ruff check src tests bench tools setup.py
	$(BIN)/mypy
	$(BIN)/lint-imports --no-cache
	@$(BIN)/python -m vmark.tools.gen_wire --check || \
		{ echo "make lint: a generated file is stale (see above)" >&2; exit 1; }

lint-page: $(UI_DEPS) $(PAGEJS_DEPS)
	$(NPM) run typecheck --prefix frontend
	$(NPM) run depcheck --prefix frontend
	$(NPM) run typecheck --prefix tools/pagejs
	$(NPM) run lint --prefix tools/pagejs

# Bytecode is written even where the environment says not to (PYTHONDONTWRITEBYTECODE, as some CI images set):
# without it every pytest worker rewrites the asserts of every test module and every `vmark` process a test
# starts compiles the package from source, about a second of CPU each. __pycache__ is git-ignored.
pytest: setup $(CHROMIUM) $(PAGE_CHROMIUM)
	$(BIN)/python -m compileall -q -j 0 src
	PYTHONDONTWRITEBYTECODE= $(BIN)/pytest -q -rs -p no:cacheprovider -n $(PYTEST_WORKERS) --dist loadscope --durations=25 $(PYTEST_ARGS)

# The page's Node tests need only the page's packages: they start while pip still installs. Their report is
# kept and printed in one piece when they end (it would otherwise cut through pytest's progress lines).
node-tests: $(UI_DEPS)
	@echo "$(NPM) test --prefix frontend  # its report follows when it ends"
	@log=$$(mktemp); $(NPM) test --prefix frontend >$$log 2>&1; status=$$?; cat $$log; rm -f $$log; exit $$status

# Lint, the Node tests and pytest run side by side (make's --jobs): the Node tests overlap pip's installs, and
# lint the start of pytest (a fresh clone's time outside pytest: 74-88 s one after the other, 63 s side by side).
test: setup lint node-tests pytest

lock:
	$(PYTHON) tools/lock.py

bench: setup
	$(BIN)/python bench/run_all.py

clean:
	rm -rf $(VENV) build dist src/*.egg-info src/vmark/ui/dist frontend/node_modules tools/pagejs/node_modules \
		tests/conformance/node_modules
