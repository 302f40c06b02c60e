"""compare(bootstrap="multiplier"): Gaussian multiplier draws from the jackknife covariance.

References: the covariance against a naive leave-one-out loop scored by
scikit-learn (items, clusters, strata) and the pair variance against a
naive per-pair jackknife of the difference; the draws' mean and covariance
against the covariance they claim (moment check, tolerance from B); the
numba accumulation against its NumPy twin (bit-identical); the family-wise
error and the power of max-T on these draws by seeded simulations (slow).
"""

import itertools
import pickle
import types

import numpy as np
import pytest
from sklearn.metrics import accuracy_score, f1_score

from sigtest import BCaInterval, compare
from sigtest._engine import multiplier as mult
from sigtest._engine.multiplier import jackknife_covariance, multiplier_draws
from sigtest._workflows.compare import maxt as maxt_module
from sigtest._workflows.compare import shared as shared_module
from sigtest._workflows.compare.maxt import resolve_bootstrap
from sigtest.exceptions import DegenerateDistributionWarning
from sigtest.metrics import get_metric
from sigtest._constants import N_RESAMPLES
from test_maxt import _correct, _maxt_rejections, _multiplier_rejections

B = 499

SCORERS = {"accuracy": accuracy_score,
           "f1_macro": lambda y, p: f1_score(y, p, average="macro", labels=[0, 1, 2],
                                             zero_division=0)}


def _systems(k=5, n=90, seed=0):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 3, n)
    preds = {f"s{i}": np.where(rng.random(n) < 0.5 + 0.07 * i, y, rng.integers(0, 3, n))
             for i in range(k)}
    return y, preds


def _capture(monkeypatch):
    """The (estimates, sigma) every multiplier draw of compare is made from."""
    seen = []
    real = shared_module.multiplier_draws

    def spy(estimates, sigma, n_resamples, seed, **kw):
        seen.append((np.array(estimates), np.array(sigma)))
        return real(estimates, sigma, n_resamples, seed, **kw)

    monkeypatch.setattr(shared_module, "multiplier_draws", spy)
    return seen


def _naive_sigma(y, preds, names, scorer, groups=None, strata=None):
    """Jackknife covariance by leaving out each item (or cluster), scored by scikit-learn."""
    n = y.shape[0]
    units = np.arange(n) if groups is None else groups
    ids = np.unique(units)
    theta = np.empty((len(names), ids.size))
    for c, g in enumerate(ids):
        keep = units != g
        for s, name in enumerate(names):
            theta[s, c] = scorer(y[keep], preds[name][keep])
    unit_strata = np.zeros(ids.size, int)
    if strata is not None:
        for c, g in enumerate(ids):
            unit_strata[c] = strata[units == g][0]
    k = len(names)
    sigma = np.zeros((k, k))
    for h in np.unique(unit_strata):
        rows = np.flatnonzero(unit_strata == h)
        n_h = rows.size
        u = theta[:, rows] - theta[:, rows].mean(axis=1, keepdims=True)
        for a in range(k):
            for b in range(k):
                sigma[a, b] += (n_h - 1) / n_h * sum(u[a, i] * u[b, i] for i in range(n_h))
    return sigma, theta


@pytest.mark.filterwarnings("ignore::sigtest.exceptions.SmallSampleWarning")
@pytest.mark.parametrize("design", ["none", "groups", "strata"])
def test_sigma_equals_naive_jackknife_and_pair_variance(design, monkeypatch):
    y, preds = _systems()
    n = y.shape[0]
    kw = {}
    groups = strata = None
    if design == "groups":
        groups = np.arange(n) // 3
        kw["groups"] = groups
    if design == "strata":
        strata = np.arange(n) % 2
        kw["strata"] = strata
    seen = _capture(monkeypatch)
    names = list(preds)[::-1]  # given in reverse: sigma is in sorted-name order
    compare(y, {s: preds[s] for s in names}, metrics=["accuracy", "f1_macro"],
            correction="max-t", bootstrap="multiplier", random_state=0,
            test=BCaInterval(n_resamples=B), **kw)
    assert len(seen) == 2  # one per metric
    canonical = sorted(preds)
    for (est, sigma), metric in zip(seen, ["accuracy", "f1_macro"]):
        ref, theta = _naive_sigma(y, preds, canonical, SCORERS[metric], groups, strata)
        np.testing.assert_allclose(sigma, ref, rtol=1e-9, atol=1e-15)
        np.testing.assert_allclose(est, [SCORERS[metric](y, preds[s]) for s in canonical],
                                   rtol=1e-12)
        # a pair's variance is the jackknife variance of its difference
        for a, b in itertools.combinations(range(len(canonical)), 2):
            d = theta[b] - theta[a]
            if strata is None:
                m = d.size
                naive = (m - 1) / m * sum((x - d.mean()) ** 2 for x in d)
                got = sigma[a, a] + sigma[b, b] - 2 * sigma[a, b]
                np.testing.assert_allclose(got, naive, rtol=1e-8, atol=1e-16)


def test_draws_have_the_claimed_mean_and_covariance():
    """T = T_hat + L z: mean T_hat and covariance Sigma within Monte Carlo error.

    With B draws the sample mean of column s has standard error
    sqrt(Sigma_ss / B) and a sample covariance entry sqrt((Sigma_ss Sigma_tt
    + Sigma_st^2) / B) (normal data); 5 standard errors bound each entry
    (25 entries: a false alarm below 1e-5 for a correct implementation).
    A rank-deficient Sigma (a system that is the sum of two others) is
    reproduced too (its negative rounding eigenvalue clipped).
    """
    rng = np.random.default_rng(1)
    A = rng.normal(size=(4, 4))
    sigma = np.zeros((5, 5))
    sigma[:4, :4] = A @ A.T
    full = np.vstack([np.eye(4), [1.0, 1.0, 0.0, 0.0]])
    sigma = full @ sigma[:4, :4] @ full.T  # rank 4
    est = rng.normal(size=5)
    n_draws = 40_000
    T = multiplier_draws(est, sigma, n_draws, seed=3)
    sd_mean = np.sqrt(np.diag(sigma) / n_draws)
    assert np.all(np.abs(T.mean(axis=0) - est) <= 5 * sd_mean)
    d = np.diag(sigma)
    sd_cov = np.sqrt((np.outer(d, d) + sigma**2) / n_draws)
    assert np.all(np.abs(np.cov(T, rowvar=False) - sigma) <= 5 * sd_cov)
    np.testing.assert_array_equal(T, multiplier_draws(est, sigma, n_draws, seed=3))


def test_identical_systems_share_their_noise():
    sigma = np.array([[2.0, 1.0, 2.0], [1.0, 3.0, 1.0], [2.0, 1.0, 2.0]])
    T = multiplier_draws([0.5, 0.7, 0.6], sigma, 100, seed=0)
    np.testing.assert_allclose(T[:, 2] - T[:, 0], np.full(100, 0.6 - 0.5), rtol=0, atol=1e-15)
    T = multiplier_draws([0.5, 0.7, 0.5], sigma, 100, seed=0)  # the same score too
    np.testing.assert_array_equal(T[:, 2], T[:, 0])
    assert np.std(T[:, 1] - T[:, 0]) > 0
    # a non-finite row: NaN draws for that system only
    bad = sigma.copy()
    bad[1, :] = bad[:, 1] = np.nan
    T = multiplier_draws([0.5, 0.7, 0.6], bad, 10, seed=0)
    assert np.isnan(T[:, 1]).all() and np.isfinite(T[:, [0, 2]]).all()


def test_numba_accumulation_equals_the_numpy_twin():
    rng = np.random.default_rng(0)
    buf = np.zeros((8, 1003))  # rows padded to tiles of 4, as jackknife_covariance does
    buf[:6] = rng.normal(size=(6, 1003))
    got = mult._dots(buf, np.zeros((8, 8)))
    ref = mult._dots_py(buf, np.zeros((8, 8)))
    np.testing.assert_array_equal(got, ref)
    np.testing.assert_allclose(np.triu(ref), np.triu(buf @ buf.T), rtol=1e-12, atol=1e-12)


def test_covariance_chunks_and_codes(monkeypatch):
    """Codes + per-code values give the per-unit result; the chunk size does not matter."""
    rng = np.random.default_rng(2)
    U = 1000
    codes = [rng.integers(0, 4, U) for _ in range(3)]
    tables = [rng.normal(size=4) for _ in range(3)]
    by_code = jackknife_covariance(list(zip(codes, tables)))
    by_unit = jackknife_covariance([(None, t[c]) for c, t in zip(codes, tables)])
    np.testing.assert_array_equal(by_code, by_unit)
    monkeypatch.setattr(mult, "_CHUNK", 96)
    np.testing.assert_allclose(jackknife_covariance(list(zip(codes, tables))), by_code,
                               rtol=1e-12)
    u = np.array([t[c] for c, t in zip(codes, tables)])
    u -= u.mean(axis=1, keepdims=True)
    np.testing.assert_allclose(by_code, (U - 1) / U * u @ u.T, rtol=1e-12)


# ------------------------------------------------------------ compare
def _frame(y, preds, **kw):
    f = compare(y, preds, random_state=5, correction="max-t", test=BCaInterval(n_resamples=B),
                metrics=["accuracy", "f1_macro"], **kw).to_frame()
    f["a"] = np.minimum(f.system_a, f.system_b)
    f["b"] = np.maximum(f.system_a, f.system_b)
    flip = f.system_a != f.a
    f.loc[flip, "delta"] = -f.loc[flip, "delta"]
    lo, hi = f.ci_low.copy(), f.ci_high.copy()
    f.loc[flip, "ci_low"], f.loc[flip, "ci_high"] = -hi[flip], -lo[flip]
    cols = ["metric", "a", "b", "delta", "ci_low", "ci_high", "pvalue", "pvalue_adj"]
    return f[cols].sort_values(["metric", "a", "b"]).reset_index(drop=True)


@pytest.mark.filterwarnings("ignore::UserWarning")
def test_identical_for_system_order_and_n_jobs():
    y, preds = _systems(k=7, n=150)
    ref = _frame(y, preds, bootstrap="multiplier")
    rev = dict(reversed(list(preds.items())))
    for other in (_frame(y, rev, bootstrap="multiplier"),
                  _frame(y, rev, bootstrap="multiplier", n_jobs=2)):
        for col in ref.columns:
            np.testing.assert_array_equal(ref[col].to_numpy(), other[col].to_numpy())


def test_result_metadata_methods_text_and_signature():
    y, preds = _systems(k=3)
    res = compare(y, preds, metrics="accuracy", correction="max-t", bootstrap="multiplier",
                  random_state=0, test=BCaInterval(n_resamples=B))
    assert res.bootstrap == "multiplier"
    assert pickle.loads(pickle.dumps(res)).bootstrap == "multiplier"
    text = res.report("markdown")
    assert "Gaussian multiplier" in text and "Chernozhukov" in text
    assert "draws:multiplier" in res.signature()
    plain = compare(y, preds, metrics="accuracy", correction="max-t", random_state=0,
                    test=BCaInterval(n_resamples=B))
    assert plain.bootstrap == "resample" and "draws:" not in plain.signature()
    assert "Gaussian multiplier" not in plain.report("markdown")
    # recompare keeps the choice and can change it
    assert res.recompare(alpha=0.1).bootstrap == "multiplier"
    assert res.recompare(bootstrap="resample").bootstrap == "resample"


def test_few_systems_max_t_without_shared_tests_uses_the_draws(monkeypatch):
    """Below 6 systems, and when no test consumes the draws, max-T draws them itself."""
    seen = _capture(monkeypatch)
    y, preds = _systems(k=3)
    compare(y, preds, metrics="accuracy", correction="max-t", bootstrap="multiplier",
            random_state=0, test="mcnemar")
    assert len(seen) == 1 and seen[0][1].shape == (3, 3)


@pytest.mark.parametrize("value", ["bogus", "Multiplier", 1, None])
def test_bad_bootstrap_value(value):
    y, preds = _systems(k=3)
    with pytest.raises(ValueError, match="bootstrap"):
        compare(y, preds, metrics="accuracy", bootstrap=value)
    res = compare(y, preds, metrics="accuracy", test="mcnemar")
    with pytest.raises(ValueError, match="bootstrap"):
        res.recompare(bootstrap=value)


def _plan(k, B=10_000, statistics=True):
    spec = ("bca", None, BCaInterval(n_resamples=B), None)
    metric = get_metric("accuracy") if statistics else types.SimpleNamespace(
        has_statistics=False)
    return types.SimpleNamespace(run_specs=[spec], metric_objs=[metric],
                                 names=[f"s{i}" for i in range(k)])


@pytest.mark.parametrize("k, n, correction, statistics, expected", [
    (100, 10_000, "max-t", True, "resample"),       # 10^10: today's resampled draws
    (50, 1_000_000, "max-t", True, "multiplier"),   # 5 x 10^11
    (50, 100_000, "max-t-single-step", True, "multiplier"),  # 5 x 10^10
    (50, 1_000_000, "holm", True, "resample"),      # only for max-T
    (50, 1_000_000, "max-t", False, "resample"),    # no sufficient statistics
])
def test_auto_rule(k, n, correction, statistics, expected):
    got = resolve_bootstrap("auto", correction=correction, plan=_plan(k, statistics=statistics),
                            n_units=n)
    assert got == expected
    assert resolve_bootstrap("resample", correction=correction, plan=_plan(k),
                             n_units=n) == "resample"
    assert resolve_bootstrap("multiplier", correction="holm", plan=_plan(k),
                             n_units=n) == "multiplier"


def test_auto_default_switches_at_the_threshold(monkeypatch):
    y, preds = _systems(k=12, n=60)
    monkeypatch.setattr(maxt_module, "AUTO_MIN_UNITS", 10)
    # B x units x systems with the default B (N_RESAMPLES)
    monkeypatch.setattr(maxt_module, "MULTIPLIER_MIN_COST", 12 * 60 * N_RESAMPLES - 1)
    res = compare(y, preds, metrics="accuracy", random_state=0)
    assert res.correction == "max-t" and res.bootstrap == "multiplier"
    monkeypatch.setattr(maxt_module, "MULTIPLIER_MIN_COST", 12 * 60 * N_RESAMPLES)
    res = compare(y, preds, metrics="accuracy", random_state=0)
    assert res.correction == "max-t" and res.bootstrap == "resample"


def test_identical_systems_in_compare_get_one_with_a_warning():
    y, preds = _systems(k=3)
    preds["copy"] = preds["s0"].copy()
    with pytest.warns(DegenerateDistributionWarning, match="without spread"):
        frame = compare(y, preds, metrics="accuracy", correction="max-t",
                        bootstrap="multiplier", random_state=0,
                        test=BCaInterval(n_resamples=B)).to_frame()
    row = frame[(frame.system_a == "s0") & (frame.system_b == "copy")]
    assert row.pvalue_adj.iloc[0] == 1.0 and not row.significant.iloc[0]


# ------------------------------------------------------------ simulations
# (the family-wise error on the multiplier draws: test_maxt's
# test_fwer_of_holm_and_max_t_at_the_enforced_resamples)
@pytest.mark.slow
def test_power_of_multiplier_at_least_the_resampled_draws():
    """Separated systems: max-T on multiplier draws finds about what it finds on resamples.

    20 systems, accuracies 0.70 to 0.74, N = 10^4, B = 199, 40 replicates
    (the same data for both draws). The two are estimates of the same
    (normal, asymptotically) distribution, so their discoveries should agree
    up to Monte Carlo error; the band allows the multiplier 3 % fewer
    discoveries in total (test_maxt's band for max-T against Holm: the
    paired difference's Monte Carlo error over 40 replicates is about 1 %).
    """
    alpha, n, n_boot, reps, k = 0.05, 10_000, 199, 40, 20
    rng = np.random.default_rng(8)
    ia, ib = map(np.array, zip(*itertools.combinations(range(k), 2)))
    resampled = gauss = 0
    for rep in range(reps):
        correct = _correct(rng, n, np.linspace(0.70, 0.74, k))
        resampled += int(_maxt_rejections(correct, ia, ib, n_boot, rng, alpha).sum())
        gauss += int(_multiplier_rejections(correct, ia, ib, n_boot, rep, alpha).sum())
    assert gauss >= 0.97 * resampled, (gauss / reps, resampled / reps)
    assert resampled > 0


# ------------------------------------------------------------ input checks
def test_input_checks_raise_the_first_error_in_metric_order(monkeypatch):
    """Systems are checked with all their metrics at once (one CellCache); the error is
    still the first in metric -> system -> run order, and the cache is shared."""
    from sigtest._workflows.compare import checks

    y, preds = _systems(k=3)
    view = {"labels": (y, [p[None] for p in preds.values()])}
    metrics = [get_metric("accuracy"), get_metric("f1_macro")]
    calls = []

    def fake(y, pred, metric, kwargs, name, run, cache):
        calls.append((metric.name, name, cache))
        if (metric.name, name) in bad:
            raise ValueError(f"{metric.name} {name}")

    monkeypatch.setattr(checks, "_check_system", fake)
    for bad, expected in [({("f1_macro", "s0"), ("accuracy", "s2")}, "accuracy s2"),
                          ({("f1_macro", "s0"), ("f1_macro", "s1")}, "f1_macro s0"),
                          ({("accuracy", "s1"), ("accuracy", "s2")}, "accuracy s1")]:
        calls.clear()
        with pytest.raises(ValueError, match=expected):
            checks._check_inputs([view], list(preds), metrics, [{}, {}])
    calls.clear()
    bad = set()
    checks._check_inputs([view], list(preds), metrics, [{}, {}])
    by_system = {}
    for metric, name, cache in calls:
        by_system.setdefault(name, set()).add(id(cache))
    assert len(calls) == 6 and all(len(ids) == 1 for ids in by_system.values())


@pytest.mark.filterwarnings("ignore::UserWarning")
def test_sigma_per_item_and_weighted_paths(monkeypatch):
    """Soft probabilities (one influence value per item, no cells) and sample weights
    (the generic path) against the same naive leave-one-out loop."""
    rng = np.random.default_rng(4)
    n, names = 60, ["a", "b", "c", "d"]
    y_soft = rng.dirichlet(np.ones(3), n)
    soft = {s: rng.dirichlet(np.ones(3) * (1 + i), n) for i, s in enumerate(names)}
    seen = _capture(monkeypatch)
    compare(y_soft, soft, metrics="soft_accuracy", correction="max-t", bootstrap="multiplier",
            random_state=0, test=BCaInterval(n_resamples=B))
    scorer = get_metric("soft_accuracy").score_func
    ref, _ = _naive_sigma(y_soft, soft, names, scorer)
    np.testing.assert_allclose(seen[-1][1], ref, rtol=1e-9, atol=1e-15)

    y, preds = _systems(k=4, n=70)
    w = rng.uniform(0.5, 2.0, 70)
    compare(y, preds, metrics="accuracy", correction="max-t", bootstrap="multiplier",
            random_state=0, test=BCaInterval(n_resamples=B), sample_weight=w)
    keep_w = {}

    def weighted(yk, pk):
        return accuracy_score(yk, pk, sample_weight=keep_w["w"])

    # naive: leave item i out of the weighted accuracy
    canonical = sorted(preds)
    theta = np.empty((4, 70))
    for i in range(70):
        keep = np.arange(70) != i
        keep_w["w"] = w[keep]
        for s, name in enumerate(canonical):
            theta[s, i] = weighted(y[keep], preds[name][keep])
    u = theta - theta.mean(axis=1, keepdims=True)
    np.testing.assert_allclose(seen[-1][1], 69 / 70 * u @ u.T, rtol=1e-9, atol=1e-15)


def test_draws_in_blocks_equal_one_draw(monkeypatch):
    """The normals drawn block by block are the rows of one (B, k) draw."""
    rng = np.random.default_rng(5)
    A = rng.normal(size=(4, 4))
    sigma, est = A @ A.T, rng.normal(size=4)
    whole = multiplier_draws(est, sigma, 1000, seed=9)
    monkeypatch.setattr(mult, "_DRAW_BLOCK", 64)
    np.testing.assert_array_equal(multiplier_draws(est, sigma, 1000, seed=9), whole)
    w, V = np.linalg.eigh(sigma)
    z = np.random.default_rng(9).standard_normal((1000, 4))
    np.testing.assert_allclose(whole, est + z @ (V * np.sqrt(w)).T, rtol=1e-10, atol=1e-12)


def _f2_stats(y_true, y_pred, **params):
    t, p = np.asarray(y_true) == 1, np.asarray(y_pred) == 1
    return np.column_stack([t & p, p, t]).astype(np.float64)


def _f2_aggregate(sums, **params):
    tp, pred, true = sums[..., 0], sums[..., 1], sums[..., 2]
    denom = 4 * true + pred
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(denom > 0, 5 * tp / np.where(denom > 0, denom, 1), np.nan)


def test_undefined_leave_one_out_scores_give_nan_draws_with_a_warning():
    """A metric undefined without one item (F2 with a single positive, never predicted):
    that system's draws are NaN, its pairs get p = 1 with warnings, nothing is significant."""
    from sigtest.metrics import Metric

    f2 = Metric("f2_nan", lambda y, p, **kw: float(_f2_aggregate(_f2_stats(y, p).sum(0))),
                statistics=_f2_stats, aggregate=_f2_aggregate, cellwise=True)
    rng = np.random.default_rng(0)
    y = np.zeros(100, int)
    y[0] = 1
    preds = {f"s{i}": (rng.random(100) < 0.05 * (i + 1)).astype(int) for i in range(3)}
    preds["none"] = np.zeros(100, int)
    with pytest.warns(DegenerateDistributionWarning):
        frame = compare(y, preds, metrics=[f2], correction="max-t", bootstrap="multiplier",
                        random_state=0, test=BCaInterval(n_resamples=B)).to_frame()
    assert not frame.significant.any()
    assert (frame.pvalue_adj == 1.0).all()
