"""Warnings of a direct ``test()`` / ``ci()`` call point at the caller's line.

The engine helpers that warn (:mod:`sigtest._engine.small_sample`,
``pvalues``, ``intervals``, ``resampling``) sit at different depths below
``test()`` depending on the test and the path (fast kernels, slow path,
``SignificanceResult.ci``); a hard-coded ``stacklevel`` attributed the warning
to a sigtest file or to the wrong user frame. They use
:func:`sigtest.utils.warn_external` (first frame outside sigtest).
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import sigtest
from sigtest._engine import prepare_paired
from sigtest.exceptions import DegenerateDistributionWarning, SmallSampleWarning
from sigtest.metrics import get_metric


def _caught(func, category):
    """Call ``func``; the warnings of ``category`` and whether each names the call line.

    ``func`` is a lambda written in this file: the first frame outside
    sigtest is the lambda's, so a right warning has this file and the
    lambda's line (one frame too many or too few lands in ``_caught``, in
    sigtest or in pytest).
    """
    code = func.__code__
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = func()
    found = [w for w in caught if issubclass(w.category, category)]
    assert found, [str(w.message) for w in caught]
    where = [(w.filename, w.lineno) for w in found]
    assert all(w.filename == __file__ for w in found), where
    assert all(w.lineno == code.co_firstlineno for w in found), (where, code.co_firstlineno)
    return result, found


def _paired(y, a, b, metric="accuracy", **params):
    return prepare_paired(y, a, b, get_metric(metric), **params)


def _small():
    # N = 12 items, 3 discordant: below every small-sample limit
    y = np.array([0, 1] * 6)
    a = y.copy()
    b = y.copy()
    a[[0, 1]] ^= 1
    b[[2]] ^= 1
    return y, a, b


def _identical(n=60):
    rng = np.random.default_rng(3)
    y = rng.integers(0, 3, n)
    a = np.where(rng.random(n) < 0.3, (y + 1) % 3, y)
    return y, a, a.copy()


@pytest.mark.parametrize("make", [
    lambda: sigtest.BergKirkpatrickBootstrap(n_resamples=199, random_state=0),
    lambda: sigtest.BCaInterval(n_resamples=199, random_state=0),
], ids=["bk", "bca"])
def test_small_sample_warning_points_at_the_caller(make):
    y, a, b = _small()
    _caught(lambda: make().test(y, a, b), SmallSampleWarning)
    data = _paired(y, a, b)
    _caught(lambda: make().test_paired(data), SmallSampleWarning)


@pytest.mark.parametrize("make", [
    lambda: sigtest.BergKirkpatrickBootstrap(n_resamples=99, random_state=0),
    lambda: sigtest.BCaInterval(n_resamples=99, random_state=0),
    lambda: sigtest.PairedPermutation(n_resamples=99, random_state=0),
    # macro-F1 has no per-item values: the permutation slow/fast path, not the exact one
    lambda: sigtest.PairedPermutation(n_resamples=99, exact=False, random_state=0),
], ids=["bk", "bca", "permutation", "permutation-mc"])
@pytest.mark.parametrize("metric", ["accuracy", "f1_macro"])
def test_degenerate_warning_points_at_the_caller(make, metric):
    y, a, b = _identical()
    res, _ = _caught(lambda: make().test(y, a, b, metric=metric),
                     DegenerateDistributionWarning)
    assert res.pvalue == 1.0
    data = _paired(y, a, b, metric)
    res, _ = _caught(lambda: make().test_paired(data), DegenerateDistributionWarning)
    assert res.pvalue == 1.0


def test_degenerate_interval_of_a_result_points_at_the_caller():
    y, a, b = _identical()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = sigtest.BCaInterval(n_resamples=99, random_state=0).test(y, a, b)
    ci, _ = _caught(lambda: res.ci(method="percentile"), DegenerateDistributionWarning)
    assert np.isnan(ci.low) and np.isnan(ci.high)


def test_dropped_resamples_warning_points_at_the_caller():
    # binary precision is undefined (zero_division=nan) on resamples where A
    # predicts no positive: those resampled differences are dropped, with a warning
    rng = np.random.default_rng(0)
    n = 200
    y = rng.integers(0, 2, n)
    a = np.zeros(n, dtype=int)
    a[:2] = 1
    b = np.where(rng.random(n) < 0.3, 1 - y, y)
    test = sigtest.BergKirkpatrickBootstrap(n_resamples=500, random_state=0)
    res, found = _caught(
        lambda: test.test(y, a, b, metric="precision", pos_label=1, zero_division=np.nan),
        DegenerateDistributionWarning)
    assert any("not finite" in str(w.message) for w in found)
    assert 0 < res.n_resamples < 500


def test_no_hard_coded_stacklevel_in_the_core():
    # metrics, utils, engine, tests, results, CLI: every warning goes through
    # sigtest.utils.warn_external (a number is right for one call path only)
    import re
    from pathlib import Path

    root = Path(sigtest.__file__).resolve().parent
    files = [*root.glob("metrics/*.py"), *root.glob("utils/*.py"), *root.glob("_engine/*.py"),
             *root.glob("tests_/*.py"), root / "_results.py", root / "cli.py", *root.glob("_cli/*.py"),
             root / "exceptions.py"]
    assert len(files) > 20
    found = [f"{p.relative_to(root)}:{i}" for p in files
             for i, line in enumerate(p.read_text().splitlines(), 1)
             if re.search(r"stacklevel\s*=\s*\d", line)]
    assert not found, found
