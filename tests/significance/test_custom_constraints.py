"""A user's test gets its common parameters validated by the base class.

``random_state``, ``n_jobs``, ``alternative``, ``confidence_level`` and
``n_resamples`` of a :class:`sigtest.SignificanceTest` subclass are checked
before every run without the subclass declaring anything (so without
importing sigtest's or scikit-learn's private constraint classes); a
constraint the subclass declares itself wins.
"""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.base import clone

from sigtest import PairedPermutation, SignificanceTest, TestOutcome


class SignFlip(SignificanceTest):
    """Monte Carlo sign flips of per-item differences (public names only)."""

    name = "sign_flip_constraints_test"

    def __init__(self, *, n_resamples=199, alternative="two-sided", confidence_level=0.95,
                 random_state=None, n_jobs=None):
        self.n_resamples = n_resamples
        self.alternative = alternative
        self.confidence_level = confidence_level
        self.random_state = random_state
        self.n_jobs = n_jobs

    def evaluate(self, data, random_state):
        d, w = data.item_differences()
        d = np.repeat(d, w.astype(int))
        signs = np.random.default_rng(random_state).choice([-1, 1], (self.n_resamples, d.size))
        return TestOutcome(null_distribution=data.orient(signs @ d / d.size))


class OnlyTwoSided(SignFlip):
    """Declares its own ``alternative`` constraint: it replaces the common one."""

    _parameter_constraints = {"alternative": [callable]}


def _data():
    y = np.array([0, 1] * 20)
    return y, np.where(np.arange(40) < 6, 1 - y, y), y


@pytest.mark.parametrize("param, bad", [
    ("random_state", -1),
    ("random_state", 2**32),
    ("random_state", "seed"),
    ("random_state", 1.5),
    ("n_jobs", 0),
    ("n_jobs", 2.0),
    ("alternative", "bigger"),
    ("confidence_level", 1.0),
    ("confidence_level", 95),
    ("n_resamples", 0),
])
def test_bad_common_parameter_is_refused_naming_it(param, bad):
    y, a, b = _data()
    test = SignFlip(**{param: bad})
    with pytest.raises((ValueError, TypeError), match=f"'{param}' parameter of SignFlip"):
        test.test(y, a, b)
    with pytest.raises((ValueError, TypeError), match=f"'{param}' parameter of SignFlip"):
        test.test_paired(_paired(y, a, b))


def _paired(y, a, b):
    # prepared data, as compare prepares it once per (pair, metric)
    from sigtest._engine import prepare_paired
    from sigtest.metrics import get_metric

    return prepare_paired(y, a, b, get_metric("accuracy"))


@pytest.mark.parametrize("random_state", [
    None, 0, 2**32 - 1, np.random.SeedSequence(1), np.random.default_rng(2),
    np.random.RandomState(3),
])
@pytest.mark.parametrize("n_jobs", [None, 1, 2, -1])
def test_good_common_parameters_run(random_state, n_jobs):
    y, a, b = _data()
    res = SignFlip(random_state=random_state, n_jobs=n_jobs, alternative="greater").test(y, a, b)
    assert 0 < res.pvalue <= 1 and res.n_resamples == 199


def test_a_declared_constraint_wins():
    y, a, b = _data()
    with pytest.raises((ValueError, TypeError), match="'alternative' parameter of OnlyTwoSided"):
        OnlyTwoSided(alternative="greater").test(y, a, b)
    # the other common parameters are still checked
    with pytest.raises((ValueError, TypeError), match="'n_jobs' parameter of OnlyTwoSided"):
        OnlyTwoSided(alternative=len, n_jobs=0).test(y, a, b)


def test_builtin_constraints_unchanged():
    # a built-in test declares its own constraints; the common ones do not override them
    y, a, b = _data()
    with pytest.raises((ValueError, TypeError), match="'random_state' parameter"):
        PairedPermutation(random_state=-1).test(y, a, b)
    assert clone(SignFlip(random_state=4)).get_params()["random_state"] == 4
