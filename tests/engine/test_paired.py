"""prepare_paired: validation, label fixing, compression, weights, zero_division."""

import warnings

import numpy as np
import pytest

from sigtest.exceptions import UndefinedMetricWarning
from sigtest._engine import prepare_paired
from sigtest._engine.paired import PairedStatistics

from _naive_engine import ACC, ACC_SLOW, F1, SOFT, metric_value


def _hard_data(n=300, k=4, seed=0):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, k, n)
    a = np.where(rng.random(n) < 0.6, y, rng.integers(0, k, n))
    b = np.where(rng.random(n) < 0.75, y, rng.integers(0, k, n))
    return y, a, b


@pytest.mark.parametrize("metric", [ACC, F1])
def test_compressed_and_generic_agree(metric):
    y, a, b = _hard_data()
    cells = prepare_paired(y, a, b, metric)
    rows = prepare_paired(y, a, b, metric, compress=False)
    assert cells.compressed and not rows.compressed
    assert cells.counts.sum() == rows.n_samples == cells.n_samples == 300
    assert cells.stats_a.shape[0] <= 4**3
    for x, z in zip(cells.totals(), rows.totals()):
        np.testing.assert_allclose(x, z, rtol=0, atol=1e-9)
    assert cells.score_a == pytest.approx(rows.score_a, abs=1e-12)
    assert cells.score_b == pytest.approx(rows.score_b, abs=1e-12)
    assert cells.score_a == pytest.approx(metric_value(metric, y, a), abs=1e-12)
    assert cells.score_b == pytest.approx(metric_value(metric, y, b), abs=1e-12)
    assert cells.delta == pytest.approx(cells.score_b - cells.score_a)


def test_cells_are_the_occupied_triples():
    y = np.array([0, 0, 1, 1, 1, 2])
    a = np.array([0, 0, 1, 0, 0, 2])
    b = np.array([0, 1, 1, 0, 0, 2])
    p = prepare_paired(y, a, b, ACC)
    # cells (0,0,0) (0,0,1) (1,0,0)x2 (1,1,1) (2,2,2), in code order
    np.testing.assert_array_equal(p.counts, [1, 1, 2, 1, 1])
    np.testing.assert_array_equal(p.stats_a[:, 0], [1, 1, 0, 1, 1])
    np.testing.assert_array_equal(p.stats_b[:, 0], [1, 0, 0, 1, 1])


def test_labels_are_the_union_of_all_three():
    # Class 3 occurs only in B's predictions: A's macro-F1 must still average
    # over it (F1 = 0 for A on class 3), so both systems use 4 classes.
    y = np.array([0, 1, 2, 0, 1, 2])
    a = np.array([0, 1, 2, 0, 1, 2])
    b = np.array([0, 1, 2, 0, 1, 3])
    p = prepare_paired(y, a, b, F1, zero_division=0.0)
    np.testing.assert_array_equal(p.params["labels"], [0, 1, 2, 3])
    assert p.score_a == pytest.approx(0.75)  # (1 + 1 + 1 + 0) / 4
    assert p.score_b == pytest.approx(metric_value(F1, y, b, labels=[0, 1, 2, 3]))
    user = prepare_paired(y, a, b, F1, labels=[0, 1, 2, 3, 4], zero_division=0.0)
    assert user.score_a == pytest.approx(0.6)
    np.testing.assert_array_equal(user.params["labels"], [0, 1, 2, 3, 4])


@pytest.mark.parametrize(
    "convert",
    [
        lambda x: np.array(["cat", "dog", "emu", "fox"])[x],
        lambda x: np.array(["cat", "dog", "emu", "fox"], dtype=object)[x],
        lambda x: x * 1_000_003 - 7,  # integers with a huge range: np.unique path
        lambda x: (x % 2).astype(bool),
        lambda x: x.astype(np.int8).tolist(),
    ],
    ids=["str", "object", "wide-int", "bool", "list"],
)
def test_label_dtypes(convert):
    y, a, b = _hard_data()
    ref = prepare_paired(convert(y), convert(a), convert(b), F1, compress=False)
    got = prepare_paired(convert(y), convert(a), convert(b), F1)
    assert got.compressed
    assert got.score_a == pytest.approx(ref.score_a, abs=1e-12)
    assert got.score_b == pytest.approx(ref.score_b, abs=1e-12)


def test_sample_weight_uses_generic_weighted_rows():
    y, a, b = _hard_data(50)
    w = np.random.default_rng(1).random(50)
    p = prepare_paired(y, a, b, ACC, sample_weight=w)
    assert not p.compressed
    np.testing.assert_allclose(p.stats_a[:, 1], w)
    assert p.score_a == pytest.approx(np.average(y == a, weights=w))
    with pytest.raises(ValueError, match="sample_weight"):
        prepare_paired(y, a, b, ACC, sample_weight=w, compress=True)


def test_soft_metric_is_generic():
    rng = np.random.default_rng(2)
    y = rng.integers(0, 3, 40)
    qa, qb = rng.dirichlet(np.ones(3), 40), rng.dirichlet(np.ones(3), 40)
    p = prepare_paired(y, qa, qb, SOFT)
    assert not p.compressed and p.stats_a.shape == (40, 2)
    assert p.score_a == pytest.approx(qa[np.arange(40), y].mean())
    with pytest.raises(ValueError, match="cellwise"):
        prepare_paired(y, qa, qb, SOFT, compress=True)


def test_slow_path_keeps_data():
    y, a, b = _hard_data(30)
    p = prepare_paired(y, a, b, ACC_SLOW)
    assert isinstance(p, PairedStatistics) and not p.has_statistics
    assert p.n_statistics == 0 and p.data[0] is not None
    assert p.score_b == pytest.approx(np.mean(y == b))
    with pytest.raises(ValueError, match="compress"):
        prepare_paired(y, a, b, ACC_SLOW, compress=True)


def test_zero_division_warns_on_observed_data_only():
    # Class 2 never occurs in y_true and only in B's predictions... and in A
    # never: A's F1 on class 2 is 0/0.
    y = np.array([0, 1, 0, 1])
    a = np.array([0, 1, 1, 1])
    b = np.array([0, 1, 2, 1])
    with pytest.warns(UndefinedMetricWarning):
        p = prepare_paired(y, a, b, F1)
    assert p.params.get("zero_division", "warn") == "warn"
    assert p.resample_params["zero_division"] == 0.0
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        p.values(np.tile(p.totals()[0], (5, 1)))
    nan = prepare_paired(y, a, b, F1, zero_division=np.nan)
    assert np.isnan(nan.score_a) and np.isnan(nan.resample_params["zero_division"])


# ------------------------------------------------------------------ bad input
def test_length_mismatch_names_the_argument():
    y, a, b = _hard_data(20)
    with pytest.raises(ValueError, match="'y_pred_b'"):
        prepare_paired(y, a, b[:-1], ACC)
    with pytest.raises(ValueError, match="'y_pred_a'"):
        prepare_paired(y, a[:5], b, ACC)
    with pytest.raises(ValueError, match="'sample_weight'"):
        prepare_paired(y, a, b, ACC, sample_weight=np.ones(3))
    with pytest.raises(ValueError, match="'sample_weight'"):
        prepare_paired(y, a, b, ACC, sample_weight=-np.ones(20))


def test_hard_and_soft_mixed():
    y, a, _ = _hard_data(20)
    q = np.full((20, 4), 0.25)
    with pytest.raises(ValueError, match="Mixed hard and soft.*'y_pred_a'"):
        prepare_paired(y, a, q, ACC)
    with pytest.raises(ValueError, match="Mixed hard and soft"):
        prepare_paired(y, q, a, SOFT)
    with pytest.raises(ValueError, match="1-D hard labels"):
        prepare_paired(y, q, q, ACC)
    with pytest.raises(ValueError, match="soft predictions"):
        prepare_paired(y, a, a, SOFT)


def test_other_bad_input():
    y, a, b = _hard_data(20)
    with pytest.raises(ValueError, match="empty"):
        prepare_paired([], [], [], ACC)
    with pytest.raises(ValueError, match="'compress'"):
        prepare_paired(y, a, b, ACC, compress="yes")
    with pytest.raises(ValueError, match="'compress'"):
        prepare_paired(y, a, b, ACC, compress=2)
    with pytest.raises(ValueError, match="Mixed label types"):
        prepare_paired(y.astype(str), a, b, ACC)
    with pytest.raises(ValueError, match="duplicates"):
        prepare_paired(y, a, b, F1, labels=[0, 1, 1, 2, 3])
    with pytest.raises(ValueError, match="'y_true'"):
        prepare_paired(None, a, b, ACC)
    with pytest.raises(ValueError, match="scalar"):
        prepare_paired(3, a, b, ACC)
    with pytest.raises(ValueError, match="not a known metric"):
        prepare_paired(y, a, b, "no_such_metric_xyz")


def test_sample_weight_must_be_numbers_with_a_positive_sum():
    """Issue 9 s2: the input path refuses what the metrics refuse (was: silent NaN / str)."""
    from sigtest import PairedPermutation

    y, a, b = np.array([0, 1, 1, 0]), np.array([0, 1, 0, 0]), np.array([0, 1, 1, 1])
    with pytest.raises(ValueError, match="sample_weight.*positive sum"):
        PairedPermutation().test(y, a, b, sample_weight=np.zeros(4))
    with pytest.raises(ValueError, match="sample_weight.*numbers"):
        PairedPermutation().test(y, a, b, sample_weight=np.array(["1", "1", "1", "1"]))
    with pytest.raises(ValueError, match="sample_weight.*positive sum"):
        prepare_paired(y, a, b, "f1_macro", sample_weight=[0, 0, 0, 0])


def test_one_rounding_rule_for_the_resample_size():
    """Issue 9 s2: the engine and BergKirkpatrickBootstrap round a fraction the same way."""
    from sigtest import BergKirkpatrickBootstrap
    from sigtest._engine.resampling import resolve_sample_size

    rng = np.random.default_rng(0)
    y = rng.integers(0, 2, 10)
    a, b = y.copy(), np.where(rng.random(10) < 0.5, y, 1 - y)
    for f in (0.15, 0.25, 0.35, 0.5, 1.0):
        m = resolve_sample_size(f, 10)
        assert m == int(np.floor(f * 10 + 1e-9))  # floor, not round: 0.15 -> 1, 0.35 -> 3
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # N = 10: SmallSampleWarning
            res = BergKirkpatrickBootstrap(n_resamples=50, sample_size=f,
                                           random_state=0).test(y, a, b)
        assert res.params["resample_size"] == m
