# cudafuse: `make demo` and `make test` are all a fresh clone needs.
PY ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: install demo test test-slow lint bench-analyze clean

$(STAMP): pyproject.toml
	$(PY) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -e '.[dev]'
	touch $(STAMP)

install: $(STAMP)

demo: $(STAMP)
	$(BIN)/cudafuse analyze samples/blur_pipeline.cu
	$(BIN)/cudafuse analyze samples/blur_pipeline.cu --format dot

lint: $(STAMP)
	$(BIN)/ruff check src tests

test: lint
	$(BIN)/pytest -q -n 2

test-slow: $(STAMP)
	$(BIN)/pytest -q -n 2 -m slow

bench-analyze: $(STAMP)
	$(BIN)/python benchmarks/bench_analyze.py

clean:
	rm -rf $(VENV) build dist src/*.egg-info .pytest_cache
