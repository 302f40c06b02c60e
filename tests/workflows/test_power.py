"""sigtest.power, minimum_detectable_effect, sample_size (issue 13, section 1).

References written here, naively:

* the exact power of McNemar's exact test under the perturbation model for
  accuracy: with ``n`` items, each item is discordant in B's favour with
  probability ``pi_f = e p_fix`` and in A's favour with ``pi_b = (1 - e)
  p_break`` (``e``: the pilot's error rate; items are drawn with
  replacement from the pilot), so the discordant counts are multinomial and
  power = sum over (n_f, n_b) of P(n_f, n_b) 1[the exact test rejects with
  B better];
* the population metric of B under the model, computed by sampling a very
  large test set item by item with NumPy and scoring it with scikit-learn.

Monte Carlo tolerances are binomial 99.9 % bands: |p_hat - p| <= 3.29
sqrt(p (1 - p) / S) for S simulations (a false failure 1 time in 1000).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.stats import binom

import sigtest
from sigtest import McNemar, PairedPermutation
from sigtest._workflows.power.simulator import Simulator as _Simulator
from sigtest.metrics import get_metric

Z999 = 3.29  # two-sided 99.9 % normal quantile


def band(p, n_sims):
    return Z999 * math.sqrt(max(p * (1 - p), 1e-4) / n_sims)


def pilot(n=400, acc=0.8, k=2, seed=0):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, k, n)
    a = np.where(rng.random(n) < acc, y, (y + 1 + rng.integers(0, max(k - 1, 1), n)) % k)
    return y, a


# ----------------------------------------------------------------------------
# naive reference: exact power of McNemar's exact test
# ----------------------------------------------------------------------------
def mcnemar_exact_p(n_f, n_b, alternative):
    """Exact McNemar (sign test on the discordant pairs), B better = n_f large."""
    m = n_f + n_b
    if m == 0:
        return 1.0
    upper = binom.sf(n_f - 1, m, 0.5)  # P(X >= n_f)
    if alternative == "greater":
        return upper
    return min(1.0, 2 * binom.sf(max(n_f, n_b) - 1, m, 0.5))


def exact_power(n, pi_f, pi_b, alpha, alternative):
    """sum_{n_f, n_b} Multinomial(n; pi_f, pi_b, rest) * 1[reject with n_f > n_b]."""
    total = 0.0
    for n_f in range(n + 1):
        p_f = binom.pmf(n_f, n, pi_f)
        if p_f < 1e-15:
            continue
        rest = 1 - pi_f
        for n_b in range(n - n_f + 1):
            if n_b >= n_f:
                break
            p = p_f * binom.pmf(n_b, n - n_f, pi_b / rest if rest > 0 else 0.0)
            if p < 1e-15:
                continue
            if mcnemar_exact_p(n_f, n_b, alternative) <= alpha:
                total += p
    return total


def model_rates(y, a, res):
    e = float(np.mean(y != a))
    return e * res.model["p_fix"], (1 - e) * res.model["p_break"]


@pytest.mark.slow
@pytest.mark.parametrize("effect, alternative", [(0.0, "two-sided"), (0.06, "two-sided"),
                                                 (0.06, "greater")])
def test_power_matches_exact_mcnemar(effect, alternative):
    y, a = pilot(400, 0.8)
    n, sims = 80, 1500
    res = sigtest.power(y, a, effect=effect, n_items=n, n_simulations=sims, random_state=1,
                        test=McNemar(alternative=alternative))
    pi_f, pi_b = model_rates(y, a, res)
    # the model's accuracy effect is exact
    assert pi_f - pi_b == pytest.approx(effect, abs=1e-12)
    ref = exact_power(n, pi_f, pi_b, 0.05, alternative)
    assert abs(res.power - ref) <= band(ref, sims), (res.power, ref)


@pytest.mark.slow
def test_permutation_power_matches_exact_mcnemar():
    # the exact permutation test on accuracy is the exact McNemar test
    y, a = pilot(300, 0.75, seed=3)
    n, sims = 120, 1500
    res = sigtest.power(y, a, effect=0.05, n_items=n, n_simulations=sims, random_state=2,
                        test=PairedPermutation(exact=True))
    pi_f, pi_b = model_rates(y, a, res)
    ref = exact_power(n, pi_f, pi_b, 0.05, "two-sided")
    assert abs(res.power - ref) <= band(ref, sims), (res.power, ref)


@pytest.mark.slow
def test_size_at_zero_effect():
    # at effect 0 a one-sided test rejects with its size: the exact size of the
    # exact McNemar test under the model's discordance (below alpha: discrete)
    y, a = pilot(500, 0.85, seed=4)
    n, sims = 200, 2000
    res = sigtest.power(y, a, effect=0.0, n_items=n, n_simulations=sims, random_state=3,
                        test=McNemar(alternative="greater"))
    pi_f, pi_b = model_rates(y, a, res)
    assert pi_f == pytest.approx(pi_b)
    size = exact_power(n, pi_f, pi_b, 0.05, "greater")
    assert 0.02 < size <= 0.05
    assert abs(res.power - size) <= band(size, sims)
    assert res.wrong_sign_rate == 0.0


@pytest.mark.slow
def test_two_sided_default_counts_direction():
    # default test: two-sided permutation; at effect 0, power (B better) and the
    # wrong-sign rate share the size, each about half of it
    y, a = pilot(500, 0.8, seed=5)
    sims = 1000
    res = sigtest.power(y, a, effect=0.0, n_items=300, n_simulations=sims, random_state=0)
    assert res.test == "permutation" and res.alternative == "two-sided"
    total = res.power + res.wrong_sign_rate
    assert total <= 0.05 + band(0.05, sims)
    assert abs(res.power - res.wrong_sign_rate) <= 2 * band(0.025, sims)


# ----------------------------------------------------------------------------
# monotonicity
# ----------------------------------------------------------------------------
def test_power_increases_with_effect_and_n():
    y, a = pilot(400, 0.8, seed=6)
    kw = dict(n_simulations=150, random_state=7)
    by_effect = [sigtest.power(y, a, effect=e, n_items=300, **kw).power
                 for e in (0.0, 0.03, 0.1)]
    assert by_effect == sorted(by_effect) and by_effect[-1] > 0.9 and by_effect[0] < 0.1
    by_n = [sigtest.power(y, a, effect=0.03, n_items=m, **kw).power for m in (50, 200, 800)]
    assert by_n == sorted(by_n) and by_n[-1] > by_n[0] + 0.3


# ----------------------------------------------------------------------------
# the perturbation model hits the effect (checked by brute-force sampling)
# ----------------------------------------------------------------------------
def brute_force_b(y, a, p_fix, p_break, labels, n, rng):
    """Sample n items of (y, a, b) item by item, B built as the model says."""
    idx = rng.integers(0, y.size, n)
    yt, ya = y[idx], a[idx]
    b = ya.copy()
    u = rng.random(n)
    wrong = ya != yt
    b[wrong & (u < p_fix)] = yt[wrong & (u < p_fix)]
    for t in labels:
        others = [w for w in labels if w != t]
        err = a[(y == t) & (a != t)]
        q = np.array([np.sum(err == w) for w in others], dtype=float)
        if q.sum() == 0:
            q = np.ones(len(others))
        q /= q.sum()
        sel = np.flatnonzero((yt == t) & ~wrong & (u < p_break))
        b[sel] = rng.choice(others, size=sel.size, p=q)
    return yt, ya, b


@pytest.mark.parametrize("metric", ["accuracy", "f1_macro", "precision_macro", "f1"])
@pytest.mark.parametrize("discordance", [None, 0.2])
def test_model_reaches_effect(metric, discordance):
    from sklearn import metrics as skm

    y, a = pilot(600, 0.75, k=3 if metric != "f1" else 2, seed=8)
    effect = 0.04
    m = get_metric(metric)
    sim = _Simulator(y, a, m, labels=None, discordance=discordance, step=None,
                     metric_params={"pos_label": 1} if metric == "f1" else {})
    s = sim.solve(effect)
    assert sim.expected_effect(s) == pytest.approx(effect, abs=1e-9)
    model = sim.model(s)
    if discordance is not None:
        assert model["discordance"] == pytest.approx(discordance)
    rng = np.random.default_rng(0)
    yt, ya, b = brute_force_b(y, a, model["p_fix"], model["p_break"], [0, 1, 2][:len(
        np.unique(y))], 400_000, rng)
    func = {"accuracy": skm.accuracy_score,
            "f1_macro": lambda t, p: skm.f1_score(t, p, average="macro"),
            "precision_macro": lambda t, p: skm.precision_score(t, p, average="macro"),
            "f1": skm.f1_score}[metric]
    score_a = func(y, a)
    assert sim.score_a == pytest.approx(score_a, abs=1e-12)
    # 400,000 items: the sampled metric is within ~0.003 of its population value
    assert func(yt, b) - score_a == pytest.approx(effect, abs=0.004)


def test_soft_model_reaches_effect_and_power_runs():
    rng = np.random.default_rng(9)
    n, k = 300, 3
    logits = rng.normal(size=(n, k))
    y = rng.integers(0, k, n)
    logits[np.arange(n), y] += 1.0
    q = np.exp(logits) / np.exp(logits).sum(1, keepdims=True)
    p = np.eye(k)[y]
    for metric, effect in (("soft_accuracy", 0.02), ("cross_entropy", 0.05)):
        m = get_metric(metric)
        sim = _Simulator(p, q, m, labels=None, discordance=None, step=None, metric_params={})
        s = sim.solve(effect)
        model = sim.model(s)
        # naive expected B: each item in its three versions with the model's probabilities
        gold = y
        masked = q.copy()
        masked[np.arange(n), gold] = -np.inf
        away = np.eye(k)[masked.argmax(1)]
        lam = model["step"]
        up, down = (1 - lam) * q + lam * p, (1 - lam) * q + lam * away
        if metric == "soft_accuracy":
            val = lambda x: np.mean(np.sum(p * x, axis=1))  # noqa: E731
            delta = (model["p_up"] * val(up) + model["p_down"] * val(down)
                     + (1 - model["discordance"]) * val(q)) - val(q)
        else:
            val = lambda x: np.mean(-np.sum(p * np.log(x), axis=1))  # noqa: E731
            delta = val(q) - (model["p_up"] * val(up) + model["p_down"] * val(down)
                              + (1 - model["discordance"]) * val(q))
        assert delta == pytest.approx(effect, rel=1e-6)
        res = sigtest.power(p, q, effect=effect, metric=metric, n_simulations=50,
                            random_state=0)
        assert 0 <= res.power <= 1 and res.model["kind"] == "soft"


# ----------------------------------------------------------------------------
# inverse questions
# ----------------------------------------------------------------------------
@pytest.mark.slow
def test_mde_consistent_with_power():
    y, a = pilot(400, 0.8, seed=10)
    s1, s2 = 300, 600
    mde = sigtest.minimum_detectable_effect(y, a, power=0.8, n_simulations=s1,
                                            random_state=0)
    assert mde.solved_for == "effect" and mde.power >= 0.8
    # with the same seeds, a slightly smaller effect has less than the target power
    below = sigtest.power(y, a, effect=mde.effect - 2e-3 * 0.2 - 1e-3, n_simulations=s1,
                          random_state=0)
    assert below.power < 0.8 + band(0.8, s1)
    # an independent simulation at the MDE: within MC error of the target (both
    # estimates carry error: sd = sqrt(.16/300 + .16/600))
    check = sigtest.power(y, a, effect=mde.effect, n_simulations=s2, random_state=99)
    assert abs(check.power - 0.8) <= Z999 * math.sqrt(0.16 / s1 + 0.16 / s2)


@pytest.mark.slow
def test_sample_size_consistent_with_power():
    y, a = pilot(300, 0.8, seed=11)
    res = sigtest.sample_size(y, a, effect=0.05, power=0.8, n_simulations=300,
                              random_state=0)
    assert res.solved_for == "n_items" and res.power >= 0.8 and res.n_items > 2
    check = sigtest.power(y, a, effect=0.05, n_items=res.n_items, n_simulations=600,
                          random_state=5)
    assert abs(check.power - 0.8) <= Z999 * math.sqrt(0.16 / 300 + 0.16 / 600) + 0.02


def test_mde_unreachable_warns_nan():
    y, a = pilot(30, 0.8, seed=12)
    with pytest.warns(UserWarning, match="largest effect"):
        res = sigtest.minimum_detectable_effect(y, a, n_items=5, n_simulations=50,
                                                random_state=0)
    assert math.isnan(res.effect)


def test_sample_size_limit_warns():
    y, a = pilot(50, 0.8, seed=13)
    with pytest.warns(UserWarning, match="max_n_items"):
        res = sigtest.sample_size(y, a, effect=0.001, n_simulations=50, random_state=0,
                                  max_n_items=100)
    assert res.n_items == -1


# ----------------------------------------------------------------------------
# determinism, result
# ----------------------------------------------------------------------------
def test_deterministic_and_result():
    y, a = pilot(300, 0.8, seed=14)
    r1 = sigtest.power(y, a, effect=0.03, n_simulations=100, random_state=3)
    r2 = sigtest.power(y, a, effect=0.03, n_simulations=100, random_state=3)
    assert r1 == r2
    d = r1.to_dict()
    assert d["power"] == r1.power and d["power_low"] <= r1.power <= d["power_high"]
    assert "Power (permutation" in str(r1)
    # Clopper-Pearson interval, checked against scipy's beta quantiles
    from scipy.stats import beta

    k, n = r1.n_rejected, r1.n_simulations
    lo = beta.ppf(0.025, k, n - k + 1) if k else 0.0
    hi = beta.ppf(0.975, k + 1, n - k) if k < n else 1.0
    assert r1.power_interval.low == pytest.approx(lo) and r1.power_interval.high == \
        pytest.approx(hi)


@pytest.mark.slow
def test_n_jobs_bit_identical():
    y, a = pilot(300, 0.8, seed=15)
    r1 = sigtest.power(y, a, effect=0.03, n_simulations=60, random_state=3, n_jobs=1)
    r2 = sigtest.power(y, a, effect=0.03, n_simulations=60, random_state=3, n_jobs=2)
    assert r1 == r2


def test_labels_strings_and_order_invariance():
    y, a = pilot(300, 0.8, seed=16)
    names = np.array(["neg", "pos"])
    r1 = sigtest.power(y, a, effect=0.03, n_simulations=50, random_state=3)
    r2 = sigtest.power(names[y], names[a], effect=0.03, n_simulations=50, random_state=3)
    assert r1.power == r2.power


# ----------------------------------------------------------------------------
# bad inputs
# ----------------------------------------------------------------------------
@pytest.mark.parametrize("kwargs, name", [
    (dict(effect=-0.01), "effect"),
    (dict(effect=float("nan")), "effect"),
    (dict(effect=0.5), "effect"),            # accuracy 0.8 + 0.5 > 1
    (dict(effect=0.01, n_items=1), "n_items"),
    (dict(effect=0.01, alpha=1.5), "alpha"),
    (dict(effect=0.01, n_simulations=0), "n_simulations"),
    (dict(effect=0.01, discordance=1.5), "discordance"),
    (dict(effect=0.01, discordance=0.05), "effect"),   # special-cased below
    (dict(effect=0.01, step=0.5), "step"),   # soft only
    (dict(effect=0.01, test=McNemar(alternative="less")), "test"),
    (dict(effect=0.01, metric="multilabel_f1_macro"), "metric"),
])
def test_bad_inputs_power(kwargs, name):
    y, a = pilot(100, 0.8, seed=17)
    if kwargs == dict(effect=0.01, discordance=0.05):
        # reachable: a small discordance still allows a small effect
        sigtest.power(y, a, n_simulations=5, random_state=0, **kwargs)
        with pytest.raises(ValueError, match="'effect'"):
            sigtest.power(y, a, effect=0.06, discordance=0.05, n_simulations=5)
        return
    with pytest.raises(ValueError, match=f"'{name}'"):
        sigtest.power(y, a, n_simulations=kwargs.pop("n_simulations", 5), **kwargs)


def test_bad_inputs_inverse():
    y, a = pilot(100, 0.8, seed=18)
    for bad in (0.0, 1.0, 1.2, -0.1):
        with pytest.raises(ValueError, match="'power'"):
            sigtest.minimum_detectable_effect(y, a, power=bad, n_simulations=5)
        with pytest.raises(ValueError, match="'power'"):
            sigtest.sample_size(y, a, effect=0.05, power=bad, n_simulations=5)
    with pytest.raises(ValueError, match="'effect'"):
        sigtest.sample_size(y, a, effect=0.9, n_simulations=5)
    with pytest.raises(ValueError, match="'max_n_items'"):
        sigtest.sample_size(y, a, effect=0.05, n_simulations=5, max_n_items=1)


def test_unknown_keyword_is_named():
    y, a = pilot(100, 0.8, seed=19)
    with pytest.raises(TypeError, match="bogus"):
        sigtest.power(y, a, effect=0.01, bogus=3, n_simulations=5)
    with pytest.raises(TypeError, match="bogus"):
        sigtest.minimum_detectable_effect(y, a, bogus=3, n_simulations=5)


# ----------------------------------------------------------------------------
# ComparisonResult.minimum_detectable_effects
# ----------------------------------------------------------------------------
def test_comparison_result_mde_table():
    rng = np.random.default_rng(20)
    n = 200
    y = rng.integers(0, 2, n)
    preds = {"a": np.where(rng.random(n) < 0.75, y, 1 - y),
             "b": np.where(rng.random(n) < 0.76, y, 1 - y)}
    res = sigtest.compare(y, preds, metrics=["accuracy"], random_state=0)
    assert not res.to_frame()["significant"].any()
    tab = res.minimum_detectable_effects(n_simulations=40, random_state=0, tol=0.01)
    assert list(tab["system_a"]) == ["a"] and tab["n_items"].iloc[0] == n
    # the same search as minimum_detectable_effect on system a's predictions
    # (seed derived from the names), so equal to a direct call with that seed
    import zlib

    seed = int(np.random.SeedSequence(0, spawn_key=(zlib.crc32(b"a\0accuracy"),))
               .generate_state(1)[0])
    direct = sigtest.minimum_detectable_effect(y, preds["a"], n_simulations=40,
                                               random_state=seed, tol=0.01)
    assert tab["mde"].iloc[0] == direct.effect
    assert tab["statement"].iloc[0].startswith("not significant, and this test set could "
                                               "not have detected less than +")
    # with the Monte Carlo interval of the MDE, in the table and in the sentence
    row = tab.iloc[0]
    assert (row["mde_low"], row["mde_high"]) == tuple(direct.effect_interval)
    assert row["mde_low"] <= row["mde"] <= row["mde_high"]
    assert row["statement"].endswith(
        f"(power 0.8; Monte Carlo interval [{row['mde_low']:+.3g}, {row['mde_high']:+.3g}])")
    with pytest.raises(ValueError, match="'power'"):
        res.minimum_detectable_effects(power=1.5, n_simulations=5)


# ----------------------------------------------------------------------------
# common random numbers (what the searches rely on)
# ----------------------------------------------------------------------------
def test_common_random_numbers():
    from sigtest._workflows.power.simulate import key_offsets as _offsets

    y, a = pilot(300, 0.8, k=3, seed=21)
    sim = _Simulator(y, a, get_metric("accuracy"), labels=None, discordance=None, step=None,
                     metric_params={})
    key = np.uint64(12345)
    s1, s2 = sim.solve(0.01), sim.solve(0.05)
    off = _offsets(3 * 500)
    small, large = sim.counts(key, 200, s1, off), sim.counts(key, 500, s1, off)
    assert np.all(small <= large) and small.sum() == 200 and large.sum() == 500
    c1, c2 = sim.counts(key, 500, s1, off), sim.counts(key, 500, s2, off)
    fix = sim.fix_row[sim.fix_row >= 0]
    assert c2[fix].sum() >= c1[fix].sum()
    assert c2[sim.break_rows].sum() <= c1[sim.break_rows].sum()
    # the same items: the count of each pilot cell is unchanged
    stay_a = sim.universe.stats_a
    assert np.array_equal(c1 @ stay_a, c2 @ stay_a)


def test_verbose_progress_bar(capsys):
    y, a = pilot(100, 0.8, seed=22)
    res = sigtest.power(y, a, effect=0.05, n_simulations=20, random_state=0, verbose=True)
    quiet = sigtest.power(y, a, effect=0.05, n_simulations=20, random_state=0)
    assert res == quiet
    assert "power" in capsys.readouterr().err


def test_comparison_result_mde_refuses_runs_and_groups():
    rng = np.random.default_rng(23)
    n = 120
    y = rng.integers(0, 2, n)
    runs = {"a": [np.where(rng.random(n) < 0.7, y, 1 - y) for _ in range(2)],
            "b": [np.where(rng.random(n) < 0.7, y, 1 - y) for _ in range(2)]}
    res = sigtest.compare(y, runs, metrics=["accuracy"], random_state=0)
    with pytest.raises(ValueError, match="one run per system"):
        res.minimum_detectable_effects(n_simulations=5)
    single = {k: v[0] for k, v in runs.items()}
    res = sigtest.compare(y, single, metrics=["accuracy"], random_state=0,
                          groups=np.repeat(np.arange(30), 4))
    with pytest.raises(ValueError, match="groups"):
        res.minimum_detectable_effects(n_simulations=5)


# ----------------------------------------------------------------------------
# the compressed simulated pair equals the item-level pair (naive twin)
# ----------------------------------------------------------------------------
@pytest.mark.parametrize("metric, test", [
    ("accuracy", McNemar()),
    ("f1_macro", PairedPermutation(exact=True)),
    ("cross_entropy", sigtest.PairedTTest()),
    ("soft_f1_macro", sigtest.BCaInterval(n_resamples=199)),
])
def test_compressed_pair_equals_items(metric, test):
    from sigtest._workflows.power.simulate import key_offsets as _offsets

    rng = np.random.default_rng(24)
    n, k = 150, 3
    y = rng.integers(0, k, n)
    if metric in ("accuracy", "f1_macro"):
        yt, a = y, np.where(rng.random(n) < 0.7, y, (y + 1) % k)
    else:
        logits = rng.normal(size=(n, k))
        logits[np.arange(n), y] += 1.0
        a = np.exp(logits) / np.exp(logits).sum(1, keepdims=True)
        yt = np.eye(k)[y]
    sim = _Simulator(yt, a, get_metric(metric), labels=None, discordance=None, step=None,
                     metric_params={})
    s = sim.solve(0.02)
    n_items = 90
    counts = sim.counts(np.uint64(7), n_items, s, _offsets(3 * n_items))
    data = sim.paired(counts, n_items)
    # the item-level arrays: every row repeated by its count
    items = [np.repeat(r, counts, axis=0) for r in sim.rows]
    # BCa's bootstrap draws depend on the rows' layout: compare its observed
    # scores only; the others are exact given the data
    compressed, full = test.test_paired(data), test.test(*items, metric=metric)
    assert compressed.n_samples == full.n_samples == n_items
    assert compressed.score_a == pytest.approx(full.score_a, abs=1e-12)
    assert compressed.score_b == pytest.approx(full.score_b, abs=1e-12)
    if metric != "soft_f1_macro":
        assert compressed.pvalue == pytest.approx(full.pvalue, rel=1e-9, abs=1e-12)


# ----------------------------------------------------------------------------
# Monte Carlo interval of the minimum detectable effect; one default
# ----------------------------------------------------------------------------
def _binom_ppf(q, n, p):
    """Smallest j with P(Binomial(n, p) <= j) >= q, by summing the pmf naively."""
    total = 0.0
    for j in range(n + 1):
        total += math.comb(n, j) * p ** j * (1 - p) ** (n - j)
        if total >= q - 1e-12:
            return j
    return n


def test_mde_interval_is_the_order_statistic_interval_of_the_quantile():
    # the simulated power is the empirical CDF of the simulations' detection
    # thresholds; evaluated at every threshold, the interval is exactly the
    # distribution-free interval of the target quantile: [d_(l), d_(u)]
    from sigtest._workflows.power.result import mde_interval

    rng = np.random.default_rng(4)
    s = 400
    thresholds = np.sort(rng.gamma(4.0, 0.01, s))
    search = [(float(d), (j + 1) / s) for j, d in enumerate(thresholds)]
    rng.shuffle(search)  # the search's order does not matter
    for target, level in [(0.8, 0.95), (0.5, 0.9), (0.9, 0.99)]:
        low, high = mde_interval(search, target, s, level)
        lo_j = _binom_ppf((1 - level) / 2, s, target)
        hi_j = _binom_ppf((1 + level) / 2, s, target) + 1
        assert low == pytest.approx(thresholds[lo_j - 1])
        assert high == pytest.approx(thresholds[min(hi_j, s) - 1])
    # between two evaluated effects: linear interpolation; beyond the last: the last
    two = [(0.01, 0.5), (0.03, 0.9)]
    low, high = mde_interval(two, 0.8, 100, 0.95)
    share_lo = _binom_ppf(0.025, 100, 0.8) / 100
    assert low == pytest.approx(0.01 + (share_lo - 0.5) / 0.4 * 0.02)
    assert high == 0.03 or high == pytest.approx(
        0.01 + ((_binom_ppf(0.975, 100, 0.8) + 1) / 100 - 0.5) / 0.4 * 0.02)


def test_mde_result_prints_its_monte_carlo_interval():
    y, a = pilot(300, 0.8, seed=21)
    res = sigtest.minimum_detectable_effect(y, a, n_simulations=100, random_state=0,
                                            test=McNemar())
    low, high = res.effect_interval
    assert low <= res.effect <= high and low < high
    text = str(res)
    assert (f"minimum detectable effect {res.effect:+.4g} [{low:+.4g}, {high:+.4g}] "
            "(95% Monte Carlo interval, 100 simulations)") in text
    d = res.to_dict()
    assert (d["effect_low"], d["effect_high"]) == (low, high)
    assert sigtest.power(y, a, effect=0.05, n_simulations=20,
                         random_state=0).to_dict()["effect_low"] is None


def test_one_default_number_of_simulations_for_every_route():
    # the same question (power, MDE of a pilot, MDE of a comparison's row)
    # gets the same Monte Carlo precision whichever route asks it
    import inspect

    defaults = {f.__name__: inspect.signature(f).parameters["n_simulations"].default
                for f in (sigtest.power, sigtest.minimum_detectable_effect,
                          sigtest.sample_size,
                          sigtest.ComparisonResult.minimum_detectable_effects)}
    from sigtest._workflows.power.table import comparison_mde_table

    defaults["table"] = inspect.signature(comparison_mde_table).parameters[
        "n_simulations"].default
    assert set(defaults.values()) == {1000}, defaults


def _bisection_points(thresholds, target, hi):
    """The (effect, power) points minimum_detectable_effect evaluates (default tol),
    when simulation s detects B from thresholds[s] on (common random numbers)."""
    ordered = np.sort(thresholds)

    def power_at(effect):
        return np.searchsorted(ordered, effect, side="right") / len(ordered)

    points, lo, tol = [(hi, power_at(hi))], 0.0, hi / 256
    while hi - lo > tol:
        mid = 0.5 * (lo + hi)
        points.append((mid, power_at(mid)))
        hi, lo = (mid, lo) if points[-1][1] >= target else (hi, mid)
    return points


@pytest.mark.slow  # about 10 s
@pytest.mark.parametrize("n_sims", [200, 1000])
def test_mde_interval_covers_the_true_mde(n_sims):
    # R searches, each on S independent detection thresholds from a known
    # distribution (the true MDE is its target quantile), each read off the
    # points a bisection evaluates. Coverage of the 95 % interval: at least
    # 0.95 minus the 99.9 % binomial band of R draws (the order-statistic
    # interval is conservative; the interpolation must not break that).
    from scipy.stats import gamma

    from sigtest._workflows.power.result import mde_interval

    rng = np.random.default_rng(5)
    reps, target = 2000, 0.8
    dist = gamma(4.0, scale=0.01)
    truth = dist.ppf(target)
    covered = 0
    for _ in range(reps):
        points = _bisection_points(dist.rvs(n_sims, random_state=rng), target, 0.2)
        low, high = mde_interval(points, target, n_sims, 0.95)
        covered += low <= truth <= high
    assert covered / reps >= 0.95 - band(0.95, reps), covered / reps
