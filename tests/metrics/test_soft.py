"""Soft-label metrics: hand values, reductions, bounds, contract, numerics."""

import math
import warnings
from decimal import Decimal, getcontext

import numpy as np
import pytest
import sklearn.metrics as skm
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.spatial.distance import jensenshannon
from scipy.special import entr, xlogy
from scipy.stats import pearsonr

from sigtest.exceptions import UndefinedMetricWarning
from sigtest.metrics import (
    cross_entropy_loss,
    entropy_correlation_score,
    entropy_similarity_score,
    get_metric,
    get_metric_names,
    jensen_shannon_distance,
    jensen_shannon_divergence,
    po_jsd_score,
    soft_accuracy_score,
    soft_f1_score,
    soft_precision_score,
    soft_recall_score,
)
from sigtest.metrics._soft import _jsd_terms

SOFT_NAMES = [
    "soft_accuracy",
    "soft_precision_micro",
    "soft_precision_macro",
    "soft_recall_micro",
    "soft_recall_macro",
    "soft_f1_micro",
    "soft_f1_macro",
    "po_jsd",
    "entropy_correlation",
    "multilabel_po_jsd",
    "multilabel_entropy_correlation",
    "multilabel_soft_f1_micro",
    "multilabel_soft_f1_macro",
    "cross_entropy",
    "jsd",
    "entropy_similarity",
]


def dirichlet(rng, alpha, n, k):
    return rng.dirichlet(np.full(k, alpha), size=n)


def data_for(metric, rng, n=60, k=4):
    """Realistic (P, Q) for a metric: distributions or multilabel memberships."""
    if metric.input_type == "multilabel":
        P = rng.beta(0.5, 0.5, size=(n, k))
        Q = np.clip(0.6 * P + 0.4 * rng.uniform(size=(n, k)), 0, 1)
        return P, Q
    P = dirichlet(rng, 0.7, n, k)
    Q = 0.5 * P + 0.5 * dirichlet(rng, 1.0, n, k)
    return P, Q


# --------------------------------------------------------------------------- #
# hand-computed values
# --------------------------------------------------------------------------- #
def test_soft_accuracy_hand_value():
    P = [[0.5, 0.5], [1.0, 0.0]]
    Q = [[0.2, 0.8], [0.6, 0.4]]
    # row 0: min = 0.2 + 0.5 = 0.7; row 1: 0.6 + 0 = 0.6
    assert soft_accuracy_score(P, Q) == pytest.approx(0.65, abs=1e-15)
    assert soft_accuracy_score(P, Q, sample_weight=[3, 1]) == pytest.approx(
        (3 * 0.7 + 0.6) / 4, abs=1e-15
    )
    # Figure 1 of the paper: p = (0.5, 0.5), q = (0.2, 0.8): soft acc 0.7, PO-JSD > 0.9
    assert soft_accuracy_score([[0.5, 0.5]], [[0.2, 0.8]]) == pytest.approx(0.7, abs=1e-15)
    assert po_jsd_score([[0.5, 0.5]], [[0.2, 0.8]]) > 0.9


def test_soft_prf_hand_values():
    P = np.array([[1.0, 0.0], [0.5, 0.5], [0.2, 0.8]])
    Q = np.array([[0.8, 0.2], [0.5, 0.5], [0.6, 0.4]])
    # per class: sum min = [0.8+0.5+0.2, 0+0.5+0.4] = [1.5, 0.9]
    # sum P = [1.7, 1.3], sum Q = [1.9, 1.1]
    np.testing.assert_allclose(soft_precision_score(P, Q, average=None), [1.5 / 1.9, 0.9 / 1.1], rtol=1e-15)
    np.testing.assert_allclose(soft_recall_score(P, Q, average=None), [1.5 / 1.7, 0.9 / 1.3], rtol=1e-15)
    f1 = np.array([3.0 / 3.6, 1.8 / 2.4])
    np.testing.assert_allclose(soft_f1_score(P, Q, average=None), f1, rtol=1e-15)
    assert soft_f1_score(P, Q, average="macro") == pytest.approx(f1.mean(), rel=1e-15)
    assert soft_f1_score(P, Q, average="micro") == pytest.approx(2 * 2.4 / 6.0, rel=1e-15)
    assert soft_precision_score(P, Q, average="micro") == pytest.approx(2.4 / 3.0, rel=1e-15)
    assert soft_recall_score(P, Q, average="micro") == pytest.approx(2.4 / 3.0, rel=1e-15)


def _jsd_bits_reference(p, q):
    """Textbook JSD (bits) with math.log2, 0 log 0 = 0."""
    m = [(a + b) / 2 for a, b in zip(p, q)]
    kl = lambda a, b: sum(x * math.log2(x / y) for x, y in zip(a, b) if x > 0)  # noqa: E731
    return 0.5 * kl(p, m) + 0.5 * kl(q, m)


def test_jsd_hand_values():
    assert po_jsd_score([[1.0, 0.0]], [[0.0, 1.0]]) == 0.0
    assert po_jsd_score([[0.3, 0.7]], [[0.3, 0.7]]) == 1.0
    ref = _jsd_bits_reference([0.5, 0.5], [0.2, 0.8])
    assert jensen_shannon_divergence([[0.5, 0.5]], [[0.2, 0.8]]) == pytest.approx(ref, rel=1e-14)
    assert po_jsd_score([[0.5, 0.5]], [[0.2, 0.8]]) == pytest.approx(1 - ref, rel=1e-15)
    # multilabel: each entry is the binary distribution [x, 1 - x]
    P = [[0.5, 1.0]]
    Q = [[0.2, 0.0]]
    expected = 1 - (_jsd_bits_reference([0.5, 0.5], [0.2, 0.8]) + 1.0) / 2
    assert po_jsd_score(P, Q, multilabel=True) == pytest.approx(expected, rel=1e-14)
    assert jensen_shannon_divergence(P, Q, multilabel=True) == pytest.approx(1 - expected, rel=1e-14)


def test_jsd_matches_scipy_distance_squared():
    rng = np.random.default_rng(1)
    P = dirichlet(rng, 0.3, 200, 5)
    Q = dirichlet(rng, 2.0, 200, 5)
    per_row = np.array([jensenshannon(p, q, base=2) ** 2 for p, q in zip(P, Q)])
    stats = get_metric("jsd").statistics(P, Q)
    np.testing.assert_allclose(stats[:, 0], per_row, rtol=1e-10, atol=1e-15)
    assert jensen_shannon_divergence(P, Q) == pytest.approx(per_row.mean(), rel=1e-12)
    assert po_jsd_score(P, Q) == pytest.approx(1 - jensen_shannon_divergence(P, Q), abs=1e-15)
    # BooStSa's quantity: the scipy distance (natural log), averaged
    dist = np.mean([jensenshannon(p, q) for p, q in zip(P, Q)])
    assert jensen_shannon_distance(P, Q) == pytest.approx(dist, rel=1e-10)
    dist2 = np.mean([jensenshannon(p, q, base=2) for p, q in zip(P, Q)])
    assert jensen_shannon_distance(P, Q, base=2) == pytest.approx(dist2, rel=1e-10)


def _jsd_nats_decimal(p, q):
    """High-precision reference (60 digits) for the elementwise JSD terms."""
    getcontext().prec = 60
    total = Decimal(0)
    for a, b in zip(p, q):
        a, b = Decimal(float(a)), Decimal(float(b))  # exact binary values
        s = a + b
        for x in (a, b):
            if x > 0:
                total += x * (2 * x / s).ln()
    return total / 2


@pytest.mark.parametrize(
    "p, q",
    [
        ([5e-324, 1.0], [0.0, 1.0]),  # smallest subnormal mass
        ([1e-310, 1.0 - 1e-12, 1e-12], [0.3, 0.7, 0.0]),
        ([0.5 + 1e-9, 0.5 - 1e-9], [0.5, 0.5]),  # near-identical: tiny divergence
        ([0.25 + 1e-13, 0.75 - 1e-13], [0.25, 0.75]),
        ([1e-300, 1.0], [1e-300, 1.0]),
        ([1e-200, 1.0], [0.0, 1.0]),
        ([0.1, 0.2, 0.7], [0.7, 0.2, 0.1]),
    ],
)
def test_jsd_exact_conventions_and_relative_accuracy(p, q):
    ours = 0.5 * _jsd_terms(np.array(p), np.array(q)).sum()
    ref = float(_jsd_nats_decimal(p, q))
    assert np.isfinite(ours) and ours >= 0
    # full relative accuracy even for tiny divergences (no cancellation, no epsilon)
    assert ours == pytest.approx(ref, rel=1e-12, abs=1e-320)


@pytest.mark.parametrize("k", [3, 100, 40_000])
def test_row_blocks_give_the_bits_of_one_call(k):
    # the per-row JSD and redundancy are computed on blocks of rows: the same
    # bits as the naive one-call twins, on rows long and short, dense and
    # sparse, with exact zeros, equal entries, subnormal masses and disjoint rows
    from sigtest.metrics._soft import _BLOCK_ENTRIES, _row_jsd_bits
    from sigtest.metrics._soft_entropy import _normalised_redundancy

    rng = np.random.default_rng(k)
    n = max(4, 5 * _BLOCK_ENTRIES // k + 7)  # several blocks and a short last one
    P = rng.dirichlet(np.full(k, 0.1), n)
    Q = np.where(rng.random((n, k)) < 0.3, P, rng.dirichlet(np.full(k, 10.0), n))
    Q[::7] = P[::7]
    P[1::5, 0], P[1::5, 1:] = 1.0, 0.0  # one-hot rows, disjoint from Q in column 0
    Q[1::5, 0] = 0.0
    Q[1::5] /= Q[1::5].sum(axis=1, keepdims=True)
    P[2::9, -1] = 5e-324
    assert P.size > 2 * _BLOCK_ENTRIES

    def naive_jsd(P, Q):
        return np.minimum(0.5 * _jsd_terms(P, Q).sum(axis=-1) / np.log(2.0), 1.0)

    def naive_redundancy(P):
        K = P.shape[-1]
        return np.maximum(xlogy(P, K * P).sum(axis=-1) / np.log(K), 0.0)

    np.testing.assert_array_equal(_row_jsd_bits(P, Q), naive_jsd(P, Q))
    np.testing.assert_array_equal(_normalised_redundancy(P), naive_redundancy(P))
    np.testing.assert_array_equal(_normalised_redundancy(Q), naive_redundancy(Q))


def test_entropy_correlation_hand_value():
    P = np.array([[0.5, 0.5], [0.9, 0.1], [1.0, 0.0], [0.7, 0.3]])
    Q = np.array([[0.6, 0.4], [0.8, 0.2], [0.95, 0.05], [0.5, 0.5]])

    def h(row):
        return -sum(x * math.log(x) for x in row if x > 0) / math.log(2)

    x = [h(r) for r in P]
    y = [h(r) for r in Q]
    mx, my = sum(x) / 4, sum(y) / 4
    num = sum((a - mx) * (b - my) for a, b in zip(x, y))
    den = math.sqrt(sum((a - mx) ** 2 for a in x) * sum((b - my) ** 2 for b in y))
    assert entropy_correlation_score(P, Q) == pytest.approx(num / den, rel=1e-12)
    cos = sum(a * b for a, b in zip(x, y)) / math.sqrt(sum(a * a for a in x) * sum(b * b for b in y))
    assert entropy_similarity_score(P, Q) == pytest.approx(cos, rel=1e-13)


def test_multilabel_entropy_correlation_is_mean_over_labels():
    rng = np.random.default_rng(2)
    P = rng.uniform(size=(80, 3))
    Q = np.clip(P + rng.normal(0, 0.2, size=P.shape), 0, 1)

    def hb(v):
        v = np.asarray(v)
        with np.errstate(divide="ignore", invalid="ignore"):
            t = -(v * np.log2(v) + (1 - v) * np.log2(1 - v))
        return np.nan_to_num(t)

    r = [pearsonr(hb(P[:, k]), hb(Q[:, k]))[0] for k in range(3)]
    assert entropy_correlation_score(P, Q, multilabel=True) == pytest.approx(np.mean(r), rel=1e-10)


def test_cross_entropy_hand_value_and_log_loss():
    assert cross_entropy_loss([[0.5, 0.5]], [[0.25, 0.75]]) == pytest.approx(
        -(0.5 * math.log(0.25) + 0.5 * math.log(0.75)), rel=1e-15
    )
    rng = np.random.default_rng(3)
    y = rng.integers(0, 4, size=100)
    Q = dirichlet(rng, 1.0, 100, 4)
    assert cross_entropy_loss(np.eye(4)[y], Q) == pytest.approx(
        skm.log_loss(y, Q, labels=range(4)), rel=1e-12
    )


def test_cross_entropy_clipping_is_documented_behaviour():
    eps = np.finfo(np.float64).eps
    P, Q = [[1.0, 0.0]], [[0.0, 1.0]]
    assert cross_entropy_loss(P, Q) == pytest.approx(-math.log(eps), rel=1e-15)
    assert cross_entropy_loss(P, Q, eps=1e-15) == pytest.approx(-math.log(1e-15), rel=1e-15)
    assert cross_entropy_loss(P, Q, eps=0.0) == np.inf
    # q = 0 where p = 0 costs nothing (0 log 0 = 0), also with eps = 0
    assert cross_entropy_loss([[0.0, 1.0]], [[0.0, 1.0]], eps=0.0) == 0.0
    # exact (unclipped) when q >= eps, and monotone below
    assert cross_entropy_loss(P, [[1e-10, 1 - 1e-10]]) == pytest.approx(-math.log(1e-10), rel=1e-15)
    assert cross_entropy_loss(P, [[1e-20, 1 - 1e-20]]) == cross_entropy_loss(P, Q)


# --------------------------------------------------------------------------- #
# reductions to hard metrics on one-hot / 0-1 input
# --------------------------------------------------------------------------- #
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_one_hot_reduces_to_hard_multiclass(seed):
    rng = np.random.default_rng(seed)
    K = 5
    y = rng.integers(0, K, size=70)
    z = np.where(rng.uniform(size=70) < 0.6, y, rng.integers(0, K, size=70))
    P, Q = np.eye(K)[y], np.eye(K)[z]
    labels = list(range(K))
    assert soft_accuracy_score(P, Q) == pytest.approx(skm.accuracy_score(y, z), abs=1e-15)
    for ours, theirs in [
        (soft_precision_score, skm.precision_score),
        (soft_recall_score, skm.recall_score),
        (soft_f1_score, skm.f1_score),
    ]:
        for average in ("micro", "macro", None):
            np.testing.assert_allclose(
                ours(P, Q, average=average, zero_division=0.0),
                theirs(y, z, labels=labels, average=average, zero_division=0.0),
                rtol=1e-14,
            )


def test_zero_one_reduces_to_hard_multilabel():
    rng = np.random.default_rng(4)
    Y = (rng.uniform(size=(50, 4)) < 0.4).astype(float)
    Z = np.where(rng.uniform(size=Y.shape) < 0.8, Y, 1 - Y)
    for average in ("micro", "macro", None):
        np.testing.assert_allclose(
            soft_f1_score(Y, Z, average=average, multilabel=True, zero_division=0.0),
            skm.f1_score(Y, Z, average=average, zero_division=0.0),
            rtol=1e-14,
        )


def test_soft_micro_f1_equals_soft_accuracy_when_rows_sum_to_one():
    rng = np.random.default_rng(5)
    P = dirichlet(rng, 0.5, 300, 6)
    Q = dirichlet(rng, 2.0, 300, 6)
    assert soft_f1_score(P, Q, average="micro") == pytest.approx(soft_accuracy_score(P, Q), rel=1e-12)
    assert soft_precision_score(P, Q, average="micro") == pytest.approx(
        soft_accuracy_score(P, Q), rel=1e-12
    )


# --------------------------------------------------------------------------- #
# bounds, symmetry, Theorem 3.1
# --------------------------------------------------------------------------- #
@pytest.mark.parametrize("alpha", [0.05, 1.0, 20.0])
def test_bounds(alpha):
    rng = np.random.default_rng(6)
    P = dirichlet(rng, alpha, 100, 7)
    Q = dirichlet(rng, alpha, 100, 7)
    for f in (soft_accuracy_score, po_jsd_score, jensen_shannon_divergence, entropy_similarity_score):
        assert 0.0 <= f(P, Q) <= 1.0
    for f in (soft_precision_score, soft_recall_score, soft_f1_score):
        v = f(P, Q, average=None)
        assert np.all((v >= 0) & (v <= 1))
    assert -1.0 <= entropy_correlation_score(P, Q) <= 1.0
    assert 0.0 <= jensen_shannon_distance(P, Q) <= math.sqrt(math.log(2))
    # cross entropy >= mean entropy of P (Gibbs), equality at Q = P
    H = -np.sum(P * np.log(np.where(P > 0, P, 1)), axis=1).mean()
    assert cross_entropy_loss(P, Q) >= H
    assert cross_entropy_loss(P, P, eps=0.0) == pytest.approx(H, rel=1e-12)
    # perfect prediction
    assert soft_accuracy_score(P, P) == pytest.approx(1.0, abs=1e-12)
    assert po_jsd_score(P, P) == 1.0
    assert soft_f1_score(P, P) == pytest.approx(1.0, abs=1e-12)
    assert entropy_correlation_score(P, P) == pytest.approx(1.0, abs=1e-12)


def test_symmetry():
    rng = np.random.default_rng(7)
    P = dirichlet(rng, 0.4, 120, 4)
    Q = dirichlet(rng, 1.5, 120, 4)
    for f in (
        soft_accuracy_score,
        po_jsd_score,
        jensen_shannon_divergence,
        jensen_shannon_distance,
        entropy_correlation_score,
        entropy_similarity_score,
    ):
        assert f(P, Q) == pytest.approx(f(Q, P), rel=1e-13)
    np.testing.assert_allclose(soft_f1_score(P, Q, average=None), soft_f1_score(Q, P, average=None))
    np.testing.assert_allclose(
        soft_precision_score(P, Q, average=None), soft_recall_score(Q, P, average=None)
    )
    assert cross_entropy_loss(P, Q) != pytest.approx(cross_entropy_loss(Q, P))  # not symmetric


_mass = st.one_of(
    st.just(0.0),
    st.sampled_from([5e-324, 1e-310, 1e-200, 1e-12]),
    st.floats(0.0, 1.0, allow_nan=False, allow_infinity=False),
)


@st.composite
def distribution_pairs(draw):
    k = draw(st.integers(1, 6))
    rows = []
    for _ in range(2):
        w = np.array(draw(st.lists(_mass, min_size=k, max_size=k)))
        if not w.sum() > 0:
            w[draw(st.integers(0, k - 1))] = 1.0
        rows.append(w / w.sum())
    return rows


@settings(max_examples=300, deadline=None)
@given(distribution_pairs())
def test_theorem_3_1_soft_accuracy_below_po_jsd_per_instance(pq):
    p, q = (r[None, :] for r in pq)
    if abs(p.sum() - 1) > 1e-6 or abs(q.sum() - 1) > 1e-6:
        return  # normalisation of extreme subnormal rows can miss the tolerance
    sa = soft_accuracy_score(p, q)
    pj = po_jsd_score(p, q)
    # 1e-12: rounding of the two sides; the bound is tight at p = q and disjoint p, q
    assert sa <= pj + 1e-12
    assert 0.0 <= pj <= 1.0


# --------------------------------------------------------------------------- #
# sufficient-statistic contract
# --------------------------------------------------------------------------- #
def test_all_soft_metrics_registered():
    names = set(get_metric_names())
    assert set(SOFT_NAMES) <= names
    for name in SOFT_NAMES:
        m = get_metric(name)
        assert m.response_method == "predict_proba"
        assert m.input_type == ("multilabel" if name.startswith("multilabel_") else "proba")
        assert m.has_statistics
        assert m.greater_is_better == (name not in ("cross_entropy", "jsd"))
    assert get_metric("neg_jsd") is get_metric("jsd")
    assert get_metric("neg_cross_entropy") is get_metric("cross_entropy")


@pytest.mark.parametrize("name", SOFT_NAMES)
def test_aggregate_of_sums_equals_score(name):
    m = get_metric(name)
    rng = np.random.default_rng(8)
    P, Q = data_for(m, rng)
    stats = m.statistics(P, Q, **m.kwargs)
    assert stats.dtype == np.float64 and stats.shape[0] == P.shape[0]
    direct = m(P, Q)
    assert isinstance(direct, float)
    assert float(m.aggregate(stats.sum(0), **m.kwargs)) == pytest.approx(direct, rel=1e-12, abs=1e-12)


@pytest.mark.parametrize("name", SOFT_NAMES)
def test_integer_weights_equal_repeated_rows(name):
    m = get_metric(name)
    rng = np.random.default_rng(9)
    P, Q = data_for(m, rng, n=40)
    w = rng.integers(0, 4, size=40)
    w[0] = 2
    idx = np.repeat(np.arange(40), w)
    assert m(P, Q, sample_weight=w) == pytest.approx(m(P[idx], Q[idx]), rel=1e-12, abs=1e-12)


@pytest.mark.parametrize("name", SOFT_NAMES)
def test_aggregate_is_vectorised_over_batch_axes(name):
    m = get_metric(name)
    rng = np.random.default_rng(10)
    P, Q = data_for(m, rng, n=50)
    stats = m.statistics(P, Q, **m.kwargs)
    counts = rng.multinomial(50, np.full(50, 1 / 50), size=(2, 3))  # bootstrap counts
    sums = counts @ stats  # (2, 3, s)
    batch = m.aggregate(sums, **m.kwargs)
    assert batch.shape == (2, 3)
    for i in range(2):
        for j in range(3):
            idx = np.repeat(np.arange(50), counts[i, j])
            assert batch[i, j] == pytest.approx(m(P[idx], Q[idx]), rel=1e-12, abs=1e-12)


def test_entropy_correlation_matches_numpy_and_scipy_on_realistic_data():
    # K = 100, alpha = 10: entropies near 0.98 with a small spread, the worst
    # realistic case for the raw-moment formula (see the docstring).
    rng = np.random.default_rng(11)
    P = dirichlet(rng, 10.0, 1000, 100)
    Q = dirichlet(rng, 10.0, 1000, 100)
    x = entr(P).sum(axis=1) / np.log(100)
    y = entr(Q).sum(axis=1) / np.log(100)
    assert x.std() / x.mean() < 0.01  # the data really are ill-conditioned
    ours = entropy_correlation_score(P, Q)
    assert ours == pytest.approx(np.corrcoef(x, y)[0, 1], abs=1e-10)
    assert ours == pytest.approx(pearsonr(x, y)[0], abs=1e-10)
    # the registered statistics hold 1 - x (same r, better conditioned)
    stats = get_metric("entropy_correlation").statistics(P, Q)
    np.testing.assert_allclose(stats[:, 1], 1 - x, atol=1e-14)
    # weighted moments against a two-pass weighted Pearson
    w = rng.uniform(0.1, 3.0, size=1000)
    mx, my = np.average(x, weights=w), np.average(y, weights=w)
    r = np.sum(w * (x - mx) * (y - my)) / np.sqrt(
        np.sum(w * (x - mx) ** 2) * np.sum(w * (y - my) ** 2)
    )
    assert entropy_correlation_score(P, Q, sample_weight=w) == pytest.approx(r, abs=1e-10)


# --------------------------------------------------------------------------- #
# undefined values
# --------------------------------------------------------------------------- #
def test_constant_entropy_gives_nan_and_warning():
    rng = np.random.default_rng(12)
    P = dirichlet(rng, 1.0, 30, 3)
    Q_const = np.tile([0.2, 0.3, 0.5], (30, 1))  # e.g. a DummyClassifier
    one_hot = np.eye(3)[rng.integers(0, 3, size=30)]
    for a, b in [(P, Q_const), (one_hot, P), (Q_const, Q_const)]:
        with pytest.warns(UndefinedMetricWarning, match="constant"):
            assert np.isnan(entropy_correlation_score(a, b))
    with pytest.warns(UndefinedMetricWarning, match="one-hot"):
        assert np.isnan(entropy_similarity_score(one_hot, P))
    # the aggregate is vectorised: only the degenerate entries are nan
    m = get_metric("entropy_correlation")
    s_ok = m.statistics(P, P[::-1]).sum(0)
    s_bad = m.statistics(P, Q_const).sum(0)
    with pytest.warns(UndefinedMetricWarning):
        out = m.aggregate(np.stack([s_ok, s_bad]))
    assert np.isfinite(out[0]) and np.isnan(out[1])


def test_multilabel_entropy_correlation_skips_constant_labels():
    rng = np.random.default_rng(13)
    P = rng.uniform(size=(40, 3))
    Q = np.clip(P + rng.normal(0, 0.1, size=P.shape), 0, 1)
    P[:, 2] = 0.0  # a label nobody ever assigns: constant zero entropy
    with pytest.warns(UndefinedMetricWarning, match="1 label"):
        got = entropy_correlation_score(P, Q, multilabel=True)
    expected = np.mean([entropy_correlation_score(
        np.c_[P[:, k], 1 - P[:, k]], np.c_[Q[:, k], 1 - Q[:, k]]) for k in range(2)])
    assert got == pytest.approx(expected, rel=1e-10)
    with pytest.warns(UndefinedMetricWarning):
        assert np.isnan(entropy_correlation_score(np.zeros((5, 2)), np.zeros((5, 2)), multilabel=True))


def test_zero_division():
    # class 2 has no true and no predicted mass
    P = np.array([[1.0, 0.0, 0.0], [0.5, 0.5, 0.0]])
    Q = np.array([[0.5, 0.5, 0.0], [0.5, 0.5, 0.0]])
    f = np.array([2 * 1.0 / 2.5, 2 * 0.5 / 1.5])
    with pytest.warns(UndefinedMetricWarning, match="F-score is ill-defined"):
        assert soft_f1_score(P, Q, average="macro") == pytest.approx(f.sum() / 3)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert soft_f1_score(P, Q, average="macro", zero_division=0.0) == pytest.approx(f.sum() / 3)
        assert soft_f1_score(P, Q, average="macro", zero_division=1.0) == pytest.approx((f.sum() + 1) / 3)
        assert soft_f1_score(P, Q, average="macro", zero_division=np.nan) == pytest.approx(f.mean())
        v = soft_f1_score(P, Q, average=None, zero_division=np.nan)
        assert np.isnan(v[2])
        # micro is defined: the total mass is positive
        assert soft_f1_score(P, Q, average="micro") == pytest.approx(2 * 1.5 / 4)
    # one-hot: the same conventions as scikit-learn for an absent class
    y, z = np.array([0, 1, 1]), np.array([0, 0, 1])
    for zd in (0.0, 1.0, np.nan):
        for ours, theirs in [(soft_precision_score, skm.precision_score), (soft_f1_score, skm.f1_score)]:
            np.testing.assert_allclose(
                ours(np.eye(3)[y], np.eye(3)[z], average="macro", zero_division=zd),
                theirs(y, z, labels=[0, 1, 2], average="macro", zero_division=zd),
            )
    # multilabel micro with no mass at all
    with pytest.warns(UndefinedMetricWarning):
        assert soft_f1_score(np.zeros((2, 2)), np.zeros((2, 2)), average="micro", multilabel=True) == 0.0
    assert np.isnan(
        soft_f1_score(np.zeros((2, 2)), np.zeros((2, 2)), multilabel=True, zero_division=np.nan)
    )


@pytest.mark.parametrize("k", [2, 50, 500])
@pytest.mark.parametrize("name", ["soft_precision_micro", "soft_recall_micro", "soft_f1_micro",
                                  "multilabel_soft_f1_micro"])
def test_soft_micro_statistics_do_not_grow_with_the_classes(name, k):
    # issue 20: micro statistics held min/P/Q per class (3K columns), so every
    # resample cost K times what the items cost; micro needs the totals only
    from sigtest.metrics import get_metric

    rng = np.random.default_rng(k)
    n = 30
    P, Q = rng.random((n, k)), rng.random((n, k))
    if not name.startswith("multilabel"):
        P, Q = P / P.sum(1, keepdims=True), Q / Q.sum(1, keepdims=True)
    metric = get_metric(name)
    stats = metric.statistics(P, Q, **metric.kwargs)
    assert stats.shape == (n, 3)
    mn, sp, sq = np.minimum(P, Q).sum(), P.sum(), Q.sum()  # naive micro totals
    want = {"soft_precision_micro": mn / sq, "soft_recall_micro": mn / sp}.get(
        name, 2 * mn / (sp + sq))
    assert float(metric.aggregate(stats.sum(0), **metric.kwargs)) == pytest.approx(want, 1e-12)
    assert metric(P, Q) == pytest.approx(want, rel=1e-12)
    macro = get_metric(name.replace("micro", "macro"))
    assert macro.statistics(P, Q, **macro.kwargs).shape == (n, 3 * k)
