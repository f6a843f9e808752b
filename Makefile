# steerlab: two commands for a newcomer, `make test` and `make bench`.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: test bench warmup lint figures clean clean-cache

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(STAMP): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e '.[dev,bench,plants,gym]'
	touch $(STAMP)

# every kernel compiled ahead into numba's on-disk cache (seconds once cached)
warmup: $(STAMP)
	$(BIN)/steerlab warmup

test: warmup
	$(BIN)/python -m pytest -q -n auto --dist loadfile

lint: $(STAMP)
	$(BIN)/ruff check src tests benchmarks
	$(BIN)/ruff format --check src tests benchmarks

bench: warmup
	$(BIN)/steerlab bench --out out

figures: $(STAMP)
	$(BIN)/steerlab figures --seed 000 --out out/figures
	$(BIN)/steerlab figures --seed 001 --out out/figures
	$(BIN)/steerlab figures --seed 002 --out out/figures
	$(BIN)/steerlab figures --seed 003 --out out/figures
	$(BIN)/steerlab figures --seed 004 --out out/figures

clean-cache:
	find src tests -name "*.nbi" -delete -o -name "*.nbc" -delete -o -name "*.nbi.lock" -delete

clean:
	rm -rf $(VENV) out .pytest_cache .hypothesis
