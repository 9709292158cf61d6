# The two commands the README promises, plus their building blocks.
#   make proxy   set up (CPU torch pinned) and run the proxy on embedded defaults
#   make test    set up everything (all extras, redis-server, nginx, chromium) and run every test
PYTHON ?= python3
VENV   ?= .venv
PY      = $(VENV)/bin/python
PIP     = $(PY) -m pip install -q -c constraints/cpu.txt
HOST   ?= 127.0.0.1
PORT   ?= 8787

.PHONY: proxy test setup setup-all system-deps agent-clis smoke bench clean

$(VENV)/bin/python:
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip

# Marker files re-run pip only when the project's requirements change.
$(VENV)/.proxy-installed: pyproject.toml constraints/cpu.txt | $(VENV)/bin/python
	$(PIP) -e '.[proxy]'
	touch $@

$(VENV)/.all-installed: pyproject.toml constraints/cpu.txt | $(VENV)/bin/python
	$(PIP) -e '.[all]'
	touch $@

setup: $(VENV)/.proxy-installed
setup-all: $(VENV)/.all-installed

# Debian packages the test suite needs: a real redis-server (shared CCR store tests), nginx
# (three replicas behind it, tests/deploy) and chromium (the HTML report is checked in a headless browser). Installed only if missing.
system-deps:
	@./scripts/system-deps.sh

# The pinned Claude Code and Codex CLIs for tests/agents/ (npm, into .agent-clis/).
agent-clis:
	@./scripts/agent-clis.sh

proxy: setup
	$(VENV)/bin/headroom proxy --host $(HOST) --port $(PORT)

# The oldest and newest supported Pythons: install the proxy extra, run the CLI and the
# proxy (venvs cached under .venv-smoke/).
smoke:
	./scripts/smoke.sh

test: setup-all system-deps agent-clis smoke
	$(PY) -m pytest

bench: setup-all
	$(PY) benchmarks/compress_bench.py

clean:
	rm -rf $(VENV) .venv-smoke .pytest_cache .hypothesis .agent-clis
