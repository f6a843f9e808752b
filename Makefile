# steerlab: two commands for a newcomer, `make test` and `make bench`.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: test bench warmup lint docs figures clean clean-cache

# CI (CI=true) installs the docs extra with the rest, so that tests/test_docs.py's strict build
# of the documentation site runs there; elsewhere `make docs` installs it on first use.
comma  := ,
EXTRAS := dev,bench,plants,gym$(if $(CI),$(comma)docs)
DOCS_STAMP := $(VENV)/.installed-docs

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(STAMP): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e '.[$(EXTRAS)]'
	touch $(STAMP)

$(DOCS_STAMP): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e '.[docs]'
	touch $(DOCS_STAMP)

# every kernel compiled ahead into numba's on-disk cache (seconds once cached)
warmup: $(STAMP)
	$(BIN)/steerlab warmup

test: warmup
	$(BIN)/python -m pytest -q -n auto --dist loadfile --durations=25

lint: $(STAMP)
	$(BIN)/ruff check src tests benchmarks
	$(BIN)/ruff format --check src tests benchmarks

# the documentation site (mkdocs.yml) into site/; --strict: a warning or a broken reference fails
docs: $(DOCS_STAMP)
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict --site-dir site

# compiles on first use only the builds the benchmark runs (not the whole warm-up: minutes less
# from a cold cache); `make test` warms up the rest
bench: $(STAMP)
	$(BIN)/steerlab bench --protocol v3 --out out

figures: $(STAMP)
	$(BIN)/steerlab figures 000 --out out/figures
	$(BIN)/steerlab figures 001 --out out/figures
	$(BIN)/steerlab figures 002 --out out/figures
	$(BIN)/steerlab figures 003 --out out/figures
	$(BIN)/steerlab figures 004 --out out/figures

clean-cache:
	find src tests -name "*.nbi" -delete -o -name "*.nbc" -delete -o -name "*.nbi.lock" -delete

clean:
	rm -rf $(VENV) out site .pytest_cache .hypothesis
