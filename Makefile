# Two promises: `make demo` and `make test` work on a fresh machine with only Python.
# Both create a git-ignored virtual environment in the checkout on first use.

PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
PY := $(BIN)/python
PIP := $(PY) -m pip --disable-pip-version-check

# torch for `make test-peers` comes from PyTorch's CPU-only index.
TORCH_INDEX ?= https://download.pytorch.org/whl/cpu

.PHONY: demo test test-slow test-peers test-fast test-spark bench lint format docs clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(PIP) install --quiet --upgrade pip

$(VENV)/.installed-demo: pyproject.toml | $(BIN)/python
	$(PIP) install --quiet -e ".[lightgbm,plot]"
	touch $@

$(VENV)/.installed-test: pyproject.toml | $(BIN)/python
	$(PIP) install --quiet -e ".[test,peers,plot,polars,dask,stream]"
	touch $@

$(VENV)/.installed-spark: pyproject.toml $(VENV)/.installed-test
	$(PIP) install --quiet -e ".[spark]"
	touch $@

$(VENV)/.installed-peers-torch: pyproject.toml $(VENV)/.installed-test
	$(PIP) install --quiet --retries 1 --timeout 20 torch --index-url $(TORCH_INDEX)
	$(PIP) install --quiet -e ".[test,peers-torch]"
	touch $@

$(VENV)/.installed-docs: pyproject.toml | $(BIN)/python
	$(PIP) install --quiet -e ".[docs,plot]"
	touch $@

$(VENV)/.installed-bench: pyproject.toml | $(BIN)/python
	$(PIP) install --quiet -e ".[bench,peers,plot,dask,stream]"
	touch $@

demo: $(VENV)/.installed-demo
	$(PY) -m skndcg demo $(DEMO_ARGS)

test: $(VENV)/.installed-test
	$(PY) -m pytest -m "not slow" $(PYTEST_ARGS)

# Slow statistical checks (coverage of compare()'s intervals over 1,000
# experiments); .ci/run runs them after make test.
test-slow: $(VENV)/.installed-test
	$(PY) -m pytest -m slow tests $(PYTEST_ARGS)

# Agreement with torchmetrics, kept out of `make test` so that it never installs
# torch; the tests in tests/peers_torch are only collected with --peers-torch.
# skndcg.torch's tests live there too; its doctests are collected the same way.
test-peers: $(VENV)/.installed-peers-torch
	$(PY) -m pytest --peers-torch tests/peers_torch skndcg/torch $(PYTEST_ARGS)

# Spark on a local[2] session (needs a Java runtime); kept out of `make test`.
test-spark: $(VENV)/.installed-spark
	SKNDCG_SPARK_TESTS=1 $(PY) -m pytest -m spark tests/test_spark.py $(PYTEST_ARGS)

lint: $(VENV)/.installed-test
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

format: $(VENV)/.installed-test
	$(BIN)/ruff check --fix .
	$(BIN)/ruff format .

# Metric speed and memory against the peers, start-up cost, the splitter on
# MovieLens-shaped data, QueryRanker's overhead, Dask, streaming, `skndcg score` on
# a TREC run and `compare`; see
# docs/performance.md.
bench: $(VENV)/.installed-bench
	$(PY) benchmarks/run.py $(BENCH_ARGS)
	$(PY) benchmarks/jit.py
	$(PY) benchmarks/bench_split.py
	$(PY) benchmarks/bench_ranker.py
	$(PY) benchmarks/bench_dask.py
	$(PY) benchmarks/bench_stream.py
	$(PY) benchmarks/bench_trec.py
	$(PY) benchmarks/bench_compare.py
	$(PY) benchmarks/bench_startup_cli.py
	$(PY) benchmarks/bench_memory.py
	$(PY) benchmarks/bench_datasets.py
	$(PY) benchmarks/bench_full_catalogue.py
	$(PY) benchmarks/bench_torch.py
	$(PY) benchmarks/bench_ab.py
	$(PY) benchmarks/bench_online.py

# skndcg.torch against torchmetrics on CPU: needs torch, installed as for
# test-peers (make bench runs the same script, which says it is skipped without it).
.PHONY: bench-torch
bench-torch: $(VENV)/.installed-peers-torch
	$(PY) benchmarks/bench_torch.py $(BENCH_ARGS)

docs: $(VENV)/.installed-docs
	$(BIN)/sphinx-build -W --keep-going -b html docs docs/_build/html

clean:
	rm -rf $(VENV) docs/_build docs/auto_examples docs/generated
