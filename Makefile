# Both targets do all set-up on a fresh machine: a local .venv with the package and its needs.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
# the demo needs the package and matplotlib only, not the test extra's ~60 s of pip
DEMO_STAMP := $(VENV)/.installed-demo

.PHONY: demo test test-fast bench clean

$(PY):
	$(PYTHON) -m venv $(VENV)

$(STAMP): pyproject.toml | $(PY)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e ".[test,plot]"
	touch $(STAMP)

$(DEMO_STAMP): pyproject.toml | $(PY)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e ".[plot]"
	touch $(DEMO_STAMP)

demo: $(DEMO_STAMP)
	$(PY) -m sigtest.demo

# The tests run on PYTEST_WORKERS processes (pytest-xdist; worksteal: an idle
# process takes queued tests from the other); PYTEST_WORKERS=0 runs them in this one.
# Fresh-clone CI runs of the same day on 2 cores: 18.6 min on two processes, 30.4 min
# in one. The tests need about 2,100 CPU s (one process from an empty numba cache,
# 2026-12-03: 2,120 CPU s; ~1,550 of them in the tests marked slow, the Table 2
# K = 100 test and the three macro-overall FWER simulations the largest), so two
# processes on 2 cores cannot take less than ~18 min without cutting CPU.
# Since then the test processes run BLAS on one thread (conftest.py: two
# processes on two cores, OpenBLAS's spin-waiting threads only burned CPU):
# the macro-overall FWER simulations 118 -> 75 CPU s (2 tasks) and 154 -> 120 CPU s
# (8 tasks), same rates.
PYTEST_WORKERS ?= 2
XDIST = -n $(PYTEST_WORKERS) $(if $(filter 0,$(PYTEST_WORKERS)),,--dist worksteal)

# The whole suite, long statistical simulations included (about 18-19 minutes on 2 cores).
test: $(STAMP)
	$(PY) -m pytest -q $(XDIST)

# Everything but the simulations marked slow (about 5 minutes on 2 cores: 512 CPU s,
# 8.9 min in one process at load 2-2.7 with a filled numba cache).
test-fast: $(STAMP)
	$(PY) -m pytest -q -m "not slow" $(XDIST)

bench: $(STAMP)
	$(PY) benchmarks/run_all.py

.PHONY: docs
# The documentation site, warnings as errors: open docs/_build/html/index.html.
DOCS_STAMP := $(VENV)/.installed-docs
$(DOCS_STAMP): pyproject.toml $(STAMP)
	$(PY) -m pip install --quiet -e ".[docs]"
	touch $(DOCS_STAMP)

docs: $(DOCS_STAMP)
	$(PY) -m sphinx -b html -W --keep-going -q docs docs/_build/html
	@echo "docs: open docs/_build/html/index.html"

clean:
	rm -rf $(VENV) build *.egg-info
