# The two commands of the README: `make run` and `make test`. Everything else is set up by them.
SHELL := /bin/bash
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: run test deps system-deps lint bench clean

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

run: deps
	@$(PY) manage.py migrate --noinput -v0
	@$(PY) manage.py createcachetable
	@$(PY) manage.py collectstatic --noinput -v0
	@$(PY) manage.py bootstrap_demo
	@$(PY) manage.py serve

test: deps system-deps
	@$(PY) -m pytest $(PYTEST_ARGS)

lint: deps
	@$(VENV)/bin/ruff check .

bench: deps
	@$(PY) bench/platform_overhead.py
	@$(PY) bench/screening.py
	@$(PY) bench/rules.py

clean:
	rm -rf $(VENV) var
