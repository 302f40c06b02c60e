"""API of the significance tests: parameters, clone, registry, input validation."""

import numpy as np
import pytest
from sklearn.base import clone

import sigtest
from sigtest import (
    BCaInterval,
    BergKirkpatrickBootstrap,
    ConfidenceInterval,
    PairedPermutation,
    SignificanceResult,
    SignificanceTest,
    TestOutcome,
    get_test,
    get_test_names,
    register_test,
)
from sigtest.tests_ import BooStSaBootstrap
from sigtest._engine import prepare_paired
from sigtest.tests_._registry import _TESTS
from sigtest.utils._param_validation import InvalidParameterError

ALL_TESTS = [BergKirkpatrickBootstrap, BCaInterval, PairedPermutation]


@pytest.fixture
def data():
    rng = np.random.default_rng(0)
    y = rng.integers(0, 3, 120)
    a = np.where(rng.random(120) < 0.7, y, (y + 1) % 3)
    b = np.where(rng.random(120) < 0.8, y, (y + 2) % 3)
    return y, a, b


def test_public_names_exported():
    for name in ("SignificanceTest", "BergKirkpatrickBootstrap", "BCaInterval",
                 "PairedPermutation", "SignificanceResult", "ConfidenceInterval",
                 "register_test", "get_test", "get_test_names", "PairedData",
                 "TestOutcome"):
        assert name in sigtest.__all__
        assert hasattr(sigtest, name)


@pytest.mark.parametrize("cls", ALL_TESTS)
def test_get_set_params_and_clone(cls):
    est = cls(n_resamples=123, random_state=7)
    params = est.get_params()
    assert params["n_resamples"] == 123 and params["random_state"] == 7
    twin = clone(est)
    assert twin is not est and twin.get_params() == params
    assert est.set_params(n_resamples=5) is est and est.n_resamples == 5
    with pytest.raises(ValueError):
        est.set_params(no_such_parameter=1)


@pytest.mark.parametrize("cls", ALL_TESTS)
def test_init_stores_only(cls):
    # invalid values are accepted at construction (sklearn convention) and
    # rejected when test() runs
    est = cls(n_resamples=0)
    assert est.n_resamples == 0


def test_defaults_follow_the_naming_table():
    # n_resamples: sigtest._constants.N_RESAMPLES (9999); alternative: two-sided
    assert BergKirkpatrickBootstrap().get_params() == dict(
        n_resamples=9999, sample_size=1.0, alternative="two-sided", random_state=None,
        n_jobs=None)
    assert BCaInterval().get_params() == dict(
        confidence_level=0.95, n_resamples=9999, method="bca", alternative="two-sided",
        margin=None, random_state=None, n_jobs=None)
    assert PairedPermutation().get_params() == dict(
        n_resamples=9999, alternative="two-sided", exact="auto", mid_p=False,
        random_state=None, n_jobs=None)


INVALID = [
    (BergKirkpatrickBootstrap, dict(n_resamples=0), "n_resamples"),
    (BergKirkpatrickBootstrap, dict(n_resamples=2.5), "n_resamples"),
    (BergKirkpatrickBootstrap, dict(sample_size=0.0), "sample_size"),
    (BergKirkpatrickBootstrap, dict(sample_size=1.5), "sample_size"),
    (BergKirkpatrickBootstrap, dict(sample_size=-3), "sample_size"),
    (BergKirkpatrickBootstrap, dict(alternative="bigger"), "alternative"),
    (BergKirkpatrickBootstrap, dict(random_state="seed"), "random_state"),
    (BergKirkpatrickBootstrap, dict(n_jobs=0), "n_jobs"),
    (BCaInterval, dict(confidence_level=0.0), "confidence_level"),
    (BCaInterval, dict(confidence_level=1.0), "confidence_level"),
    (BCaInterval, dict(confidence_level=95), "confidence_level"),
    (BCaInterval, dict(method="bc"), "method"),
    (BCaInterval, dict(n_resamples=-1), "n_resamples"),
    (PairedPermutation, dict(n_resamples=0), "n_resamples"),
    (PairedPermutation, dict(alternative="one-sided"), "alternative"),
    (PairedPermutation, dict(exact="always"), "exact"),
    (BooStSaBootstrap, dict(sample_size=0.6), "sample_size"),
    (BooStSaBootstrap, dict(sample_size=0.04), "sample_size"),
    (BooStSaBootstrap, dict(sample_size=1.0), "sample_size"),
]


@pytest.mark.parametrize("cls, params, name", INVALID)
def test_invalid_parameters_raise(cls, params, name, data):
    with pytest.raises(InvalidParameterError, match=f"'{name}' parameter"):
        cls(**params).test(*data)
    assert issubclass(InvalidParameterError, ValueError)


def test_sample_size_int_bounds(data):
    y, a, b = data
    with pytest.raises(ValueError, match="sample_size.*at most n_samples=120"):
        BergKirkpatrickBootstrap(sample_size=121, n_resamples=10).test(y, a, b)
    res = BergKirkpatrickBootstrap(sample_size=30, n_resamples=10, random_state=0).test(y, a, b)
    assert res.params["resample_size"] == 30 and res.resampling == "subsample bootstrap"
    res = BergKirkpatrickBootstrap(sample_size=0.25, n_resamples=10, random_state=0).test(y, a, b)
    assert res.params["resample_size"] == 30
    res = BergKirkpatrickBootstrap(sample_size=1.0, n_resamples=10, random_state=0).test(y, a, b)
    assert res.params["resample_size"] == 120 and res.resampling == "bootstrap"


def test_boostsa_preset(data):
    y, a, b = data
    est = BergKirkpatrickBootstrap.boostsa()
    assert isinstance(est, BergKirkpatrickBootstrap)
    assert est.get_params()["sample_size"] == 0.1 and est.n_resamples == 1000
    assert est.alternative == "greater"
    assert clone(est).get_params() == est.get_params()
    # 5 % and 50 % are inclusive (BooStSa: "constrained between .05 and .5 (inclusive)")
    for frac, m in ((0.05, 6), (0.5, 60)):
        res = BergKirkpatrickBootstrap.boostsa(sample_size=frac, n_resamples=20,
                                               random_state=0).test(y, a, b)
        assert res.params["resample_size"] == m and res.test == "boostsa"
    # int sizes are checked against 5-50 % of N at test time
    BergKirkpatrickBootstrap.boostsa(sample_size=60, n_resamples=5).test(y, a, b)
    with pytest.raises(ValueError, match="between 5 % and 50 %"):
        BergKirkpatrickBootstrap.boostsa(sample_size=61, n_resamples=5).test(y, a, b)
    with pytest.raises(ValueError, match="between 5 % and 50 %"):
        BergKirkpatrickBootstrap.boostsa(sample_size=5, n_resamples=5).test(y, a, b)
    with pytest.raises(ValueError, match="sample_size"):
        BergKirkpatrickBootstrap.boostsa(sample_size=0.8).test(y, a, b)


@pytest.mark.parametrize("cls", ALL_TESTS)
def test_mismatched_lengths(cls, data):
    y, a, b = data
    with pytest.raises(ValueError):
        cls(n_resamples=10).test(y, a, b[:-1])
    with pytest.raises(ValueError):
        cls(n_resamples=10).test(y[:-1], a, b)


@pytest.mark.parametrize("cls", ALL_TESTS)
def test_hard_soft_mixed(cls, data):
    y, a, b = data
    proba = np.eye(3)[b] * 0.8 + 0.2 / 3
    with pytest.raises(ValueError):
        cls(n_resamples=10).test(y, a, proba, metric="accuracy")


@pytest.mark.parametrize("cls", ALL_TESTS)
def test_unknown_metric(cls, data):
    with pytest.raises(ValueError, match="not a known metric"):
        cls(n_resamples=10).test(*data, metric="no_such_metric")


def test_registry():
    names = get_test_names()
    assert names == sorted(names)
    assert {"bootstrap", "berg_kirkpatrick", "bca", "permutation", "boostsa"} <= set(names)
    assert isinstance(get_test("bootstrap"), BergKirkpatrickBootstrap)
    assert isinstance(get_test("berg_kirkpatrick"), BergKirkpatrickBootstrap)
    assert isinstance(get_test("permutation", n_resamples=9), PairedPermutation)
    assert get_test("bca", method="basic").method == "basic"
    est = PairedPermutation()
    assert get_test(est) is est
    other = get_test(est, n_resamples=5)
    assert other is not est and other.n_resamples == 5 and est.n_resamples == 9999
    assert isinstance(get_test(BCaInterval), BCaInterval)
    with pytest.raises(ValueError, match="not a known significance test.*bootstrap"):
        get_test("t-test")
    with pytest.raises(TypeError):
        get_test(3)
    with pytest.raises(ValueError, match="already registered"):
        register_test("bca", BCaInterval)
    with pytest.raises(TypeError):
        register_test("not_a_test", int)


def test_register_decorator():
    try:
        @register_test("tmp_perm")
        class TmpPerm(PairedPermutation):
            _name = "tmp_perm"

        assert isinstance(get_test("tmp_perm"), TmpPerm)
    finally:
        _TESTS.pop("tmp_perm", None)


def test_result_fields_and_dict(data):
    res = BCaInterval(n_resamples=500, random_state=0).test(*data)
    assert isinstance(res, SignificanceResult)
    assert isinstance(res.confidence_interval, ConfidenceInterval)
    assert res.delta == pytest.approx(res.score_b - res.score_a)
    assert res.statistic == res.delta
    d = res.to_dict()
    for key in ("metric", "test", "score_a", "score_b", "delta", "pvalue", "ci_low",
                "ci_high", "n_resamples", "alternative", "confidence_level"):
        assert key in d
    assert d["ci_low"] == res.confidence_interval.low
    assert "null_distribution" not in d
    assert len(res.to_dict(include_distribution=True)["null_distribution"]) == 500
    with pytest.raises(Exception):
        res.pvalue = 0.0  # frozen
    with pytest.raises(ValueError):
        res.null_distribution[0] = 1.0  # read-only
    text = str(res)
    assert "bca" in text and "accuracy" in text and "CI of delta" in text
    assert "SignificanceResult(" in repr(res)
    assert res.params["n_resamples"] == 500 and isinstance(res.params["seed"], int)


def test_result_ci_recompute(data):
    res = BCaInterval(n_resamples=2000, random_state=1).test(*data)
    assert res.ci() == res.confidence_interval
    narrow = res.ci(confidence_level=0.5)
    assert res.confidence_interval.low < narrow.low < narrow.high < res.confidence_interval.high
    pct = res.ci(method="percentile")
    np.testing.assert_allclose(pct, np.quantile(res.null_distribution, [0.025, 0.975]))
    with pytest.raises(ValueError, match="confidence_level"):
        res.ci(confidence_level=1.5)
    with pytest.raises(ValueError, match="method"):
        res.ci(method="bootstrap-t")
    perm = PairedPermutation(n_resamples=100, exact=False, random_state=0).test(*data)
    with pytest.raises(ValueError, match="no\\s+paired bootstrap distribution"):
        perm.ci()
    sub = BergKirkpatrickBootstrap(sample_size=0.5, n_resamples=100, random_state=0).test(*data)
    with pytest.raises(ValueError, match="bootstrap distribution of size N"):
        sub.ci()
    full = BergKirkpatrickBootstrap(n_resamples=2000, random_state=1).test(*data)
    # same seed, same scheme: BK's stored distribution is BCa's distribution
    np.testing.assert_array_equal(full.null_distribution, res.null_distribution)
    assert full.ci(method="bca") == res.confidence_interval
    assert np.isnan(full.confidence_interval.low)


def test_n_jobs_does_not_change_results(data):
    for cls in ALL_TESTS:
        r1 = cls(n_resamples=300, random_state=3, n_jobs=1).test(*data, metric="f1_macro")
        r2 = cls(n_resamples=300, random_state=3, n_jobs=2).test(*data, metric="f1_macro")
        r3 = cls(n_resamples=300, random_state=3).test(*data, metric="f1_macro")
        np.testing.assert_array_equal(r1.null_distribution, r2.null_distribution)
        np.testing.assert_array_equal(r1.null_distribution, r3.null_distribution)
        assert r1.pvalue == r2.pvalue == r3.pvalue or np.isnan(r1.pvalue)


def test_random_state_kinds(data):
    y, a, b = data
    est = PairedPermutation(n_resamples=200, exact=False)
    p_seq = est.set_params(random_state=np.random.SeedSequence(5)).test(y, a, b).pvalue
    p_seq2 = est.set_params(random_state=np.random.SeedSequence(5)).test(y, a, b).pvalue
    assert p_seq == p_seq2
    est.set_params(random_state=np.random.default_rng(1)).test(y, a, b)
    with pytest.raises(ValueError):
        est.set_params(random_state=-1).test(y, a, b)


def test_custom_subclass_minimal(data):
    class Half(SignificanceTest):
        name = "half"

        def evaluate(self, data, random_state):
            return TestOutcome(pvalue=0.5)

    res = Half().test(*data)
    assert res.test == "half" and res.pvalue == 0.5 and np.isnan(res.confidence_interval.low)
    assert res.alternative == "two-sided" and Half._name == "half"  # former spelling kept
    with pytest.raises(TypeError):
        SignificanceTest()  # abstract

    class Legacy(Half):
        _name = "legacy"

    assert Legacy().test(*data).test == "legacy" and Legacy.name == "legacy"

    class NotAnOutcome(Half):
        def evaluate(self, data, random_state):
            return {"pvalue": 0.5}

    with pytest.raises(TypeError, match="TestOutcome"):
        NotAnOutcome().test(*data)


def test_base_class_owns_the_pvalue_from_a_null_distribution(data):
    """A test returning only its RAW null distribution gets the permutation p of the base."""
    y, a, b = data

    class Reuse(SignificanceTest):
        def __init__(self, *, alternative="two-sided", random_state=None):
            self.alternative = alternative
            self.random_state = random_state

        def evaluate(self, data, random_state):
            res = PairedPermutation(n_resamples=499, exact=False,
                                    random_state=random_state).test_paired(data)
            return TestOutcome(null_distribution=res.null_distribution)

    for alternative in ("two-sided", "greater", "less"):
        mine = Reuse(alternative=alternative, random_state=3).test(y, a, b)
        # the same null distribution: the inner test was seeded with mine's integer seed
        ref = PairedPermutation(n_resamples=499, exact=False, alternative=alternative,
                                random_state=mine.params["seed"]).test(y, a, b)
        np.testing.assert_array_equal(mine.null_distribution, ref.null_distribution)
        # naive count: (c + 1) / (B + 1) with c the resamples as extreme (oriented)
        t_star, t = ref.null_distribution, ref.statistic
        extreme = {"two-sided": np.abs(t_star) >= abs(t) - 1e-12,
                   "greater": t_star >= t - 1e-12, "less": t_star <= t + 1e-12}[alternative]
        naive = (np.count_nonzero(extreme) + 1) / (t_star.size + 1)
        assert mine.pvalue == ref.pvalue == pytest.approx(naive, rel=1e-12)
        assert mine.n_resamples == 499 and mine.test == "Reuse"


def test_test_paired_equals_test_and_checks_its_input(data):
    y, a, b = data
    est = BCaInterval(n_resamples=300, random_state=1)
    res = est.test_paired(prepare_paired(y, a, b, "accuracy"))
    assert res == est.test(y, a, b)
    with pytest.raises(TypeError, match="PairedData"):
        est.test_paired((y, a, b))
    with pytest.raises(ValueError, match="confidence_level"):
        BCaInterval(confidence_level=2.0).test_paired(prepare_paired(y, a, b, "accuracy"))


@pytest.mark.parametrize("keyword", ["zero_divison", "n_resample", "group", "stratum"])
def test_unknown_keyword_raises_type_error_naming_it(data, keyword):
    """Issue 9: a keyword that neither the test nor the metric accepts is not swallowed."""
    y, a, b = data
    for test in (PairedPermutation(n_resamples=99), BergKirkpatrickBootstrap(n_resamples=99)):
        for metric in ("accuracy", "f1_macro"):
            with pytest.raises(TypeError, match=keyword):
                test.test(y, a, b, metric=metric, **{keyword: np.zeros(len(y))})


def test_documented_metric_keywords_are_accepted(data):
    y, a, b = data
    test = PairedPermutation(n_resamples=99, random_state=0)
    test.test(y, a, b, metric="f1_macro", zero_division=0.0)
    test.test(y, a, b, metric="f1", pos_label=1)
    with pytest.raises(TypeError, match="eps_typo"):
        test.test(y, a, b, metric="accuracy", eps_typo=1e-3)


def _id(bad):
    """The repr of a bad value, with the options of a "not a or b" string sorted.

    sklearn joins the options of a ``StrOptions`` (a set) in the order of
    the set, which changes with the string hash seed of the process: sorted,
    the test ids are the same in every process (pytest-xdist requires it).
    """
    if isinstance(bad, str) and bad.startswith("not "):
        return repr("not " + " or ".join(sorted(bad[4:].split(" or "))))
    return repr(bad)


def _generated_invalid_cases():
    """(class, param, bad value) from each class's _parameter_constraints (sklearn style)."""
    from sklearn.utils._param_validation import generate_invalid_param_val, make_constraint

    from sigtest.utils._param_validation import _resolve  # lazy recipes -> sklearn objects

    cases = []
    for cls in ALL_TESTS + [BooStSaBootstrap]:
        for name, constraints in _resolve(cls._parameter_constraints).items():
            made = [make_constraint(c) for c in constraints]
            for constraint in made:
                try:
                    bad = generate_invalid_param_val(constraint)
                except NotImplementedError:
                    continue
                if any(c.is_satisfied_by(bad) for c in made):
                    continue
                cases.append(pytest.param(cls, name, bad, id=f"{cls.__name__}-{name}-{_id(bad)}"))
            # a value of a type no constraint accepts
            if not any(c.is_satisfied_by(object()) for c in made):
                cases.append(pytest.param(cls, name, object(), id=f"{cls.__name__}-{name}-object"))
    return cases


@pytest.mark.parametrize("cls, name, bad", _generated_invalid_cases())
def test_invalid_parameters_generated_from_constraints(cls, name, bad, data):
    with pytest.raises(InvalidParameterError, match=f"The '{name}' parameter of {cls.__name__}"):
        cls(**{name: bad}).test(*data)
