"""Importing sigtest is light: behaviours, not timings (the timings are in
``benchmarks/bench_import.py``)."""

import subprocess
import sys

import pytest

import sigtest

HEAVY = ("sklearn", "pandas", "numba", "scipy.stats")


def _loaded_after(code):
    probe = f"{code}\nimport sys\nprint(sorted(m for m in {HEAVY!r} if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    return out.stdout.strip()


@pytest.mark.parametrize(
    "code",
    [
        "import sigtest",
        "import sigtest.metrics",
        "import sigtest.cli",
        "from sigtest.metrics import accuracy_score, f1_score, get_metric, get_metric_names",
    ],
)
def test_import_loads_no_heavy_dependency(code):
    # scikit-learn, pandas, numba and scipy.stats are imported where needed only
    assert _loaded_after(code) == "[]"


def test_metric_values_need_no_heavy_dependency():
    # a hard-label metric computed from its statistics touches none of them
    code = (
        "from sigtest.metrics import get_metric\n"
        "m = get_metric('f1_macro')\n"
        "s = m.statistics([0, 1, 1, 2], [0, 1, 2, 2], labels=[0, 1, 2])\n"
        "assert abs(float(m.aggregate(s.sum(0))) - 7 / 9) < 1e-12"
    )
    assert _loaded_after(code) == "[]"


def test_every_public_name_imports():
    # one fresh process: every name of __all__ resolves (``from sigtest import X``
    # and ``from sigtest import *``) and is listed by dir()
    code = (
        "import sigtest\n"
        "for name in sigtest.__all__:\n"
        "    exec(f'from sigtest import {name}')\n"
        "    assert name in dir(sigtest), name\n"
        "ns = {}\n"
        "exec('from sigtest import *', ns)\n"
        "assert set(sigtest.__all__) <= set(ns), set(sigtest.__all__) - set(ns)\n"
        "print(len(sigtest.__all__))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == str(len(sigtest.__all__))


def test_unknown_attribute_raises_attribute_error():
    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        sigtest.nope  # noqa: B018
    assert not hasattr(sigtest, "nope")


def test_cli_module_imports_no_numpy():
    # ``sigtest --help`` parses arguments before any computation: the CLI module
    # itself imports neither numpy, pandas nor scikit-learn
    code = "import sigtest.cli, sys; print('numpy' in sys.modules, 'pandas' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["False", "False"]


def test_lazy_table_is_the_public_api():
    # every lazily served name is public and every public name is served
    assert set(sigtest._LAZY) == set(sigtest.__all__)


def test_compare_of_two_systems_imports_no_sklearn():
    # compare validates valid arguments and copies sigtest's tests without
    # scikit-learn (it used to import sklearn.base for clone and for the
    # validation wrapper, ~1.5 s); pandas builds the result frame. A bad
    # argument still gets scikit-learn's error, naming compare and the argument.
    code = (
        "import sys, numpy as np\n"
        "from sigtest import compare, PairedPermutation, BCaInterval\n"
        "assert 'sklearn' not in sys.modules\n"
        "rng = np.random.default_rng(0)\n"
        "y = rng.integers(0, 3, 200)\n"
        "a = np.where(rng.random(200) < 0.6, y, rng.integers(0, 3, 200))\n"
        "b = np.where(rng.random(200) < 0.9, y, rng.integers(0, 3, 200))\n"
        "res = compare(y, {'a': a, 'b': b}, metrics=['accuracy', 'f1_macro'], random_state=0,\n"
        "              test=(PairedPermutation(n_resamples=199), BCaInterval(n_resamples=199)))\n"
        "assert len(res.to_frame()) == 2\n"
        "res = compare(list(y), {'a': a, 'b': b}, metrics='accuracy', random_state=0,\n"
        "              pairs='baseline', baseline='a', correction=None, ci='simultaneous')\n"
        "assert len(res.to_frame()) == 1\n"
        "print(sorted(m for m in ('sklearn', 'sklearn.base') if m in sys.modules))\n"
        "try:\n"
        "    compare(y, {'a': a, 'b': b}, alpha=2.0)\n"
        "except ValueError as e:\n"
        "    print(type(e).__name__, 'alpha' in str(e), 'compare' in str(e))\n"
    )
    out = subprocess.run([sys.executable, "-W", "ignore", "-c", code], capture_output=True,
                         text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split("\n")[:2] == ["[]", "InvalidParameterError True True"]


def test_compare_imports_only_the_tests_it_runs():
    # compare's defaults (permutation, BCa) and the bootstraps are imported with
    # it; the other tests, their engines (the Bayesian bootstrap's rank kernels,
    # DeLong's placements) and the report builder on first use, by name or
    # attribute, with the same classes
    code = (
        "import sys\n"
        "from sigtest import compare\n"
        "lazy = ('sigtest.tests_._bayesian', 'sigtest.tests_._delong', 'sigtest.tests_._mcnemar',\n"
        "        'sigtest.tests_._ttest', 'sigtest.tests_._wilcoxon', 'sigtest._engine.bayesian',\n"
        "        'sigtest._engine.delong', 'sigtest._report.build')\n"
        "print(sorted(m for m in lazy if m in sys.modules))\n"
        "from sigtest.tests_ import get_test, McNemar\n"
        "from sigtest.tests_._delong import DeLong\n"
        "import sigtest.tests_ as t\n"
        "print(type(get_test('mcnemar')) is McNemar, type(get_test('delong')) is DeLong,\n"
        "      t.DeLong is DeLong, 'WilcoxonSignedRank' in dir(t))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split("\n")[:2] == ["[]", "True True True True"]
