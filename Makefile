# The two commands of the README: `make run` and `make test`. Everything else is set up by them.
SHELL := /bin/bash
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: run test deps system-deps npm-deps lint bench clean

$(PY):
	@python=$$(scripts/find-python) && echo "Creating $(VENV) with $$python" && "$$python" -m venv $(VENV)
	@set -o pipefail; $(PY) -m pip install -q --upgrade pip 2>&1 | { grep -v "is ignored: it is neither a file" || true; }

$(STAMP): $(PY) requirements.txt requirements-dev.txt
	@echo "Installing Python packages (first run takes a minute)..."
	@set -o pipefail; $(PY) -m pip install -q -r requirements-dev.txt 2>&1 | { grep -v "is ignored: it is neither a file" || true; }
	@touch $(STAMP)

deps: $(STAMP)

system-deps:
	@scripts/system-deps

npm-deps: system-deps
	@scripts/npm-deps

run: deps
	@$(PY) manage.py serve --check-port
	@$(PY) manage.py migrate --noinput -v0
	@$(PY) manage.py createcachetable -v0
	@NPM_DEPS_OPTIONAL=1 scripts/npm-deps console || true  # the console's charts and graph (Chart.js, Cytoscape.js): without them their tables still show
	@$(PY) manage.py collectstatic --noinput -v0
	@$(PY) manage.py bootstrap_demo
	@$(PY) manage.py load_sanctions > "$${DATA_DIR:-var}/load_sanctions.log" 2>&1 \
		|| echo "Sanctions lists: a list could not be loaded (see $${DATA_DIR:-var}/load_sanctions.log)"
	@$(PY) manage.py sanctions_status
	@NPM_DEPS_OPTIONAL=1 scripts/npm-deps compliance/onchain || true  # the oracle's anvil and solc: never stops the server
	-@$(PY) manage.py seed_demo
	@$(PY) manage.py serve

# Two passes: tests that flush the whole database at their end (transactional, live server) run
# after the others, so they never wipe data the first pass loads once per worker. Exit code 5 is
# "no test selected" (a PYTEST_ARGS selection without tests of that kind).
test: deps system-deps npm-deps
	@$(PY) -m pytest -m "not flushes_db" $(PYTEST_ARGS) || [ $$? -eq 5 ]
	@$(PY) -m pytest -m "flushes_db" $(PYTEST_ARGS) || [ $$? -eq 5 ]

lint: deps
	@$(VENV)/bin/ruff check .

bench: deps
	@$(PY) bench/platform_overhead.py
	@$(PY) bench/screening.py
	@$(PY) bench/sanctions_refresh.py
	@$(PY) bench/rescreen.py
	@$(PY) bench/status.py
	@$(PY) bench/rules.py
	@$(PY) bench/ingest.py --transactions 30000
	@$(PY) bench/memory.py web --passes 4
	@$(PY) bench/memory.py celery --passes 4
	@$(PY) bench/filings.py --all
	@$(PY) bench/webhooks.py
	@$(PY) bench/console_graph.py
	@scripts/npm-deps compliance/onchain
	@$(PY) bench/oracle.py

clean:
	rm -rf $(VENV) var
