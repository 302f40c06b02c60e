"""compare's workflow modules (plan / run / assemble), the experiment store,
warnings that point at the user's call, the immutable ComparisonResult, and
one input path shared with ``SignificanceTest.test``."""

import json
import os
import warnings

import numpy as np
import pytest

from sigtest import (
    BCaInterval,
    Experiment,
    PairedPermutation,
    compare,
    cross_val_compare,
)

B = 99


def _data(n=120, seed=0):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 3, n)
    a = np.where(rng.random(n) < 0.6, y, rng.integers(0, 3, n))
    b = np.where(rng.random(n) < 0.8, y, rng.integers(0, 3, n))
    return y, a, b


def _fast():
    return (PairedPermutation(n_resamples=B), BCaInterval(n_resamples=B))


# ------------------------------------------------------- warnings location
def _located_here(caught, category=Warning, match=""):
    hits = [w for w in caught if issubclass(w.category, category) and match in str(w.message)]
    assert hits, [str(w.message) for w in caught]
    for w in hits:
        assert os.path.abspath(w.filename) == os.path.abspath(__file__), (w.filename, w.message)
    return hits


@pytest.mark.parametrize("n_jobs", [1, 2])
def test_worker_warning_of_compare_points_at_the_call(n_jobs):
    # identical systems: the permutation distribution is degenerate (warned in
    # the worker, re-emitted by compare in the caller)
    y, a, _ = _data()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        compare(y, {"A": a, "B": a.copy()}, metrics="accuracy", test=_fast(),
                random_state=0, n_jobs=n_jobs)
    _located_here(caught, match="single point")


def test_plan_and_assemble_warnings_point_at_the_call():
    y, a, b = _data()
    b = b.copy()
    b[:3] = 9  # a label outside the gold set: warned while planning
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        res = compare(y, {"A": a, "B": b, "C": a[::-1].copy()}, metrics="f1_macro",
                      test=PairedPermutation(n_resamples=9), random_state=0)
    _located_here(caught, UserWarning, "absent from")
    _located_here(caught, UserWarning, "n_resamples")  # too few for the family (assemble)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        res.recompare(random_state=1)
    _located_here(caught, UserWarning, "n_resamples")


def test_pool_warning_points_at_the_call():
    y, a, b = _data()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        compare(y, {"A": [a, b], "B": [b, a]}, metrics="accuracy", test=_fast(),
                runs="pool", random_state=0)
    _located_here(caught, UserWarning, "runs='pool'")


def test_experiment_run_warnings_point_at_the_call(tmp_path):
    y, a, _ = _data()
    exp = Experiment(tmp_path)
    exp.feed("A", a, y_true=y)
    exp.feed("B", a[:100].copy(), ids=np.arange(100))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        exp.run(metrics="accuracy", test=_fast(), on_missing="intersect")
    _located_here(caught, UserWarning, "on_missing='intersect'")  # the store
    _located_here(caught, match="single point")  # compare's worker, through Experiment.run
