"""Significance tests keep scikit-learn's parameter protocol without importing scikit-learn.

``SignificanceTest`` is built on ``sigtest.utils._estimator.ParamsMixin``
instead of ``sklearn.base.BaseEstimator`` (importing which doubled the time
of a first test in a new process). What scikit-learn's tools use must be
unchanged: ``get_params``/``set_params`` semantics, ``sklearn.base.clone``,
the ``repr`` (checked against a ``BaseEstimator`` twin of every registered
test), and parameter validation (the import-free fast path never accepts a
value scikit-learn rejects).
"""

from __future__ import annotations

import math
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest
import scipy.sparse
from sklearn.base import BaseEstimator, clone
from sklearn.model_selection import ParameterGrid
from sklearn.utils._param_validation import make_constraint

from sigtest import BergKirkpatrickBootstrap, SignificanceTest, TestOutcome, compare, get_test
from sigtest.tests_ import get_test_names
from sigtest.tests_._base import _COMMON_CONSTRAINTS
from sigtest.utils._param_validation import _resolve, _surely_valid

#: non-default values per parameter name, used when a test has the parameter
CHANGES = {
    "n_resamples": 123, "random_state": 7, "n_jobs": 2, "alternative": "less",
    "confidence_level": 0.9, "sample_size": 0.5, "method": None, "mid_p": True,
    "exact": False, "correction": False, "zero_method": "pratt",
}


def _twin(cls, **params):
    """A BaseEstimator with the test's name, __init__ signature and parameter values.

    (Built without calling ``__init__``: a subclass's ``super().__init__``
    needs the real class.)
    """
    klass = type(cls.__name__, (BaseEstimator,), {"__init__": cls.__init__})
    twin = klass.__new__(klass)
    twin.__dict__.update(cls(**params).get_params(deep=False))
    return twin


def _classes():
    return sorted({type(get_test(n)) for n in get_test_names()}, key=lambda c: c.__name__)


def _changed(cls):
    params = cls().get_params()
    out = {}
    for key in params:
        if key in CHANGES and CHANGES[key] is not None:
            out[key] = CHANGES[key]
    return out


@pytest.mark.parametrize("cls", _classes(), ids=lambda c: c.__name__)
def test_repr_is_scikit_learns(cls):
    for params in ({}, _changed(cls)):
        assert repr(cls(**params)) == repr(_twin(cls, **params))
    # a long repr wraps exactly as scikit-learn wraps it
    long = {**_changed(cls), "random_state": np.random.SeedSequence(12345678901234567890)}
    if "random_state" in cls().get_params():
        assert repr(cls(**long)) == repr(_twin(cls, **long))
    assert not isinstance(cls(), BaseEstimator)


@pytest.mark.parametrize("cls", _classes(), ids=lambda c: c.__name__)
def test_get_set_params_and_clone_as_scikit_learn(cls):
    params = _changed(cls)
    est, twin = cls(**params), _twin(cls, **params)
    assert est.get_params() == twin.get_params()
    assert est.get_params(deep=False) == twin.get_params(deep=False)
    copy = clone(est)
    assert type(copy) is cls and copy is not est and copy.get_params() == est.get_params()
    assert est.set_params() is est
    with pytest.raises(ValueError, match="Invalid parameter 'nope' for estimator"):
        est.set_params(nope=1)
    with pytest.raises(ValueError, match="Invalid parameter 'nope' for estimator"):
        twin.set_params(nope=1)


def test_set_params_grid_and_nested():
    est = BergKirkpatrickBootstrap()
    for params in ParameterGrid({"n_resamples": [10, 20], "alternative": ["less", "greater"]}):
        clone(est).set_params(**params)
        assert clone(est).set_params(**params).get_params()["n_resamples"] == params["n_resamples"]

    class Wrapper(SignificanceTest):
        def __init__(self, inner=None):
            self.inner = inner

        def evaluate(self, data, random_state):
            return TestOutcome(pvalue=1.0)

    wrapped = Wrapper(inner=BergKirkpatrickBootstrap(n_resamples=5))
    assert wrapped.get_params()["inner__n_resamples"] == 5
    wrapped.set_params(inner__n_resamples=9)
    assert wrapped.inner.n_resamples == 9
    assert clone(wrapped).inner.n_resamples == 9
    assert repr(wrapped) == "Wrapper(inner=BergKirkpatrickBootstrap(n_resamples=9))"


@pytest.mark.parametrize("cls", _classes(), ids=lambda c: c.__name__)
def test_compare_clone_is_sklearn_clone(cls):
    # compare copies sigtest's tests without scikit-learn, by clone's rule
    from sigtest._workflows.compare.plan import clone as compare_clone

    est = cls(**_changed(cls))
    if "random_state" in est.get_params():
        est.set_params(random_state=np.random.SeedSequence(5))
    ours, theirs = compare_clone(est), clone(est)
    assert type(ours) is cls and ours is not est
    assert repr(ours) == repr(theirs) == repr(est)
    if "random_state" in est.get_params():
        assert ours.random_state is not est.random_state  # copied, not shared
        assert ours.random_state.entropy == est.random_state.entropy


def test_compare_clone_nested_and_bad_constructor():
    from sigtest._workflows.compare.plan import clone as compare_clone

    class Wrapper(SignificanceTest):
        def __init__(self, inner=None):
            self.inner = inner

        def evaluate(self, data, random_state):
            return TestOutcome(pvalue=1.0)

    class Rounding(SignificanceTest):
        def __init__(self, level=0.5):
            self.level = round(level, 1)  # modifies its parameter: clone refuses

        def evaluate(self, data, random_state):
            return TestOutcome(pvalue=1.0)

    inner = BergKirkpatrickBootstrap(n_resamples=5)
    out = compare_clone(Wrapper(inner=inner))
    assert out.inner is not inner and out.inner.n_resamples == 5
    with pytest.raises(RuntimeError, match="modifies parameter level"):
        clone(Rounding(level=0.25))
    with pytest.raises(RuntimeError, match="modifies parameter level"):
        compare_clone(Rounding(level=0.25))


def test_get_test_with_params_copies():
    est = BergKirkpatrickBootstrap(n_resamples=50, random_state=np.random.SeedSequence(3))
    other = get_test(est, alternative="less")
    assert other is not est and other.alternative == "less" and est.alternative == "two-sided"
    assert other.random_state is not est.random_state  # a copy, as clone makes
    assert other.random_state.entropy == est.random_state.entropy


VALUES = [None, 0, 1, -1, 2, 5, 2**32 - 1, 2**32, 10**400, 0.0, 0.5, 1.0, 1.5, -0.5,
          math.nan, math.inf, -math.inf, True, False, np.True_, np.int64(3), np.int32(-2),
          np.float32(0.5), np.float64(2.0), "auto", "two-sided", "less", "greater", "bca",
          "exact", "pratt", "wilcox", "asymptotic", "chi2", "percentile", "x", "", b"auto", [1], object(), len, np.random.SeedSequence(1),
          np.random.default_rng(0), np.random.RandomState(0),
          # array-likes and not (compare's y_true, labels, sample_weight, test)
          "all", "baseline", "holm", "average", "marginal",
          np.arange(3), np.array(2.0), np.float64(1.0), (1, 2), {"a": [1]}, "ab",
          pd.Series([1, 2]), pd.DataFrame({"a": [1]}), pd.Index([1]),
          scipy.sparse.csr_matrix(np.eye(2)), range(3), memoryview(b"ab"),
          BergKirkpatrickBootstrap(), BergKirkpatrickBootstrap, type("T", (), {"test": 1})()]


def _all_constraints():
    out = [("common", k, c) for k, c in _COMMON_CONSTRAINTS.items()]
    # compare's arguments take the same fast path (array-likes, HasMethods)
    out += [("compare", k, c) for k, c in compare._skl_parameter_constraints.items()]
    for cls in _classes():
        out += [(cls.__name__, k, c) for k, c in cls._parameter_constraints.items()]
    return out


@pytest.mark.parametrize("owner, name, constraints", _all_constraints(),
                         ids=lambda x: x if isinstance(x, str) else "")
def test_fast_validation_never_accepts_what_sklearn_rejects(owner, name, constraints):
    made = [make_constraint(c) for c in _resolve({name: constraints})[name]]
    fast_accepts = 0
    for value in VALUES:
        if _surely_valid(constraints, value):
            fast_accepts += 1
            assert any(c.is_satisfied_by(value) for c in made), (owner, name, value)
    assert fast_accepts  # the fast path recognises at least one valid value


def test_first_test_imports_no_sklearn():
    # the first significance test in a new process needs neither scikit-learn
    # nor pandas (nor SciPy's stats for the bootstrap); a bad parameter still
    # gets scikit-learn's error
    code = (
        "import sys, numpy as np, sigtest\n"
        "y = np.array([0, 1, 2] * 20); a = y.copy(); a[:9] = 0\n"
        "assert 0 < sigtest.BergKirkpatrickBootstrap(n_resamples=99).test(y, a, y).pvalue\n"
        "assert 'scipy.stats' not in sys.modules\n"
        "for t in (sigtest.BergKirkpatrickBootstrap(n_resamples=99, random_state=0),\n"
        "          sigtest.PairedPermutation(n_resamples=99, random_state=0),\n"
        "          sigtest.get_test('bca', n_resamples=99, random_state=0)):\n"
        "    assert 0 < t.test(y, a, y).pvalue <= 1\n"
        "print(sorted(m for m in ('sklearn', 'pandas') if m in sys.modules))\n"
        "try:\n"
        "    sigtest.PairedPermutation(n_resamples=0).test(y, a, y)\n"
        "except ValueError as e:\n"
        "    print(type(e).__name__)\n"
    )
    out = subprocess.run([sys.executable, "-W", "ignore", "-c", code], capture_output=True,
                         text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split("\n")[:2] == ["[]", "InvalidParameterError"]


def test_validate_params_fast_path_keeps_sklearns_semantics():
    # without scikit-learn loaded, a valid call runs without importing it, an
    # outer function with prefer_skip_nested_validation=True still makes the
    # functions it calls skip their validation (as scikit-learn's config does),
    # and an invalid value still gets scikit-learn's error naming the function
    code = (
        "import sys\n"
        "from numbers import Real\n"
        "from sigtest.utils._param_validation import lazy, validate_params\n"
        "@validate_params({'x': [lazy.Interval(Real, 0, 1, closed='both')]},\n"
        "                 prefer_skip_nested_validation=True)\n"
        "def inner(x):\n"
        "    return x\n"
        "@validate_params({'x': [lazy.Interval(Real, 0, 1, closed='both')]},\n"
        "                 prefer_skip_nested_validation=True)\n"
        "def outer(x):\n"
        "    return inner(x + 5)\n"
        "@validate_params({'x': [lazy.Interval(Real, 0, 1, closed='both')]},\n"
        "                 prefer_skip_nested_validation=False)\n"
        "def strict_outer(x):\n"
        "    return inner(x + 5)\n"
        "print(inner(0.5), outer(0.5), 'sklearn' in sys.modules)\n"
        "for f in (inner, strict_outer):\n"
        "    try:\n"
        "        f(2.0) if f is inner else f(0.5)\n"
        "    except ValueError as e:\n"
        "        print(type(e).__name__, str(e).split(' must')[0])\n"
        "print(outer(0.5))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines() == [
        "0.5 5.5 False",
        "InvalidParameterError The 'x' parameter of inner",
        "InvalidParameterError The 'x' parameter of strict_outer",
        "5.5",
    ]
