"""compare()'s bulk BCa path for hard-label metrics with statistics gives the per-pair frame.

The per-pair path (one :class:`~sigtest.BCaInterval` per pair, ``run.run_pairs``)
is the reference. Scores, ``delta``, ``n_resamples``, ``ci_level`` and the
decisions are bit-identical, the warnings the same; intervals and p-values
agree to 1e-12 relative (the bulk acceleration sums the cells' jackknife
values one after the other, the per-pair one with numpy's ``dot``). The
per-pair quantities of the kernel (discordant items, the class count the
small-sample rule reads, acceleration, effective number of items) are
checked against the engine's scalar functions on each pair's own data.
"""

import numpy as np
import pandas as pd
import pytest

import sigtest
from sigtest._engine import prepare_paired
from sigtest._engine.concentration import paired_concentration
from sigtest._engine.intervals import jackknife_acceleration
from sigtest._engine.pairs_jackknife import encode_labels, pairs_jackknife
from sigtest._engine.small_sample import class_discordant_counts
from sigtest._workflows.compare import bulk_statistics
from sigtest.metrics import get_metric

from _shared_data import (bulk_and_per_pair, frame_and_warnings, rows_by_pair,
                          wrong_elsewhere_systems)

_EXACT = ["system_a", "system_b", "metric", "test", "alternative", "score_a", "score_b",
          "delta", "ci_level", "n_resamples", "significant"]

_METRICS = ["f1_macro", "f1_micro", "precision_macro", "recall_macro", "balanced_accuracy",
            "cohen_kappa", "matthews_corrcoef", "f1_weighted", "jaccard_macro"]


def _labels(k=8, n=2000, seed=0, n_classes=5):
    """Gold labels and ``k`` systems (compare shares its draws from 6 systems on)."""
    return wrong_elsewhere_systems(k, n, seed, n_classes, (.55, .85))


def _both(monkeypatch, y, preds, **kwargs):
    """(bulk frame and warnings, per-pair ones, the (i, j, metric) left to the per-pair path)."""
    kwargs.setdefault("test", sigtest.BCaInterval(n_resamples=999))
    kwargs.setdefault("correction", "max-t")
    got, want, sent = bulk_and_per_pair(monkeypatch, y, preds, **kwargs)
    return got, want, {(t[1], t[2], job[1].name) for t in sent for job in t[3]}


def _assert_same(got, want):
    (fb, wb), (fp, wp) = got, want
    assert wb == wp
    assert list(fb.columns) == list(fp.columns)
    pd.testing.assert_frame_equal(fb[_EXACT], fp[_EXACT], check_exact=True)
    for column in ("ci_low", "ci_high", "pvalue", "pvalue_adj"):
        np.testing.assert_allclose(fb[column], fp[column], rtol=1e-12, atol=1e-15,
                                   err_msg=column)
    rest = [c for c in fb.columns if c not in _EXACT + ["ci_low", "ci_high", "pvalue",
                                                       "pvalue_adj"]]
    pd.testing.assert_frame_equal(fb[rest], fp[rest], check_exact=True)


@pytest.mark.parametrize("bootstrap", ["resample", "multiplier"])
def test_every_metric_with_statistics_takes_the_bulk_path(monkeypatch, bootstrap):
    y, preds = _labels()
    got, want, left = _both(monkeypatch, y, preds, metrics=["accuracy"] + _METRICS,
                            bootstrap=bootstrap)
    assert left == set()  # every pair of every metric took a bulk path
    _assert_same(got, want)


def test_binary_metrics_of_one_class(monkeypatch):
    # binary F1 and precision of the positive class, the likelihood ratios: the class
    # rule reads the positive class alone (pos_label)
    y, preds = _labels(k=7, n=1500, seed=10, n_classes=2)
    got, want, left = _both(monkeypatch, y, preds, metrics=[
        "f1", "precision", "jaccard", "negative_likelihood_ratio", "positive_likelihood_ratio"])
    assert left == set()
    _assert_same(got, want)


@pytest.mark.parametrize("method", ["bca", "percentile"])
def test_holm_and_percentile(monkeypatch, method):
    y, preds = _labels(k=6, n=1500, seed=1)
    got, want, left = _both(monkeypatch, y, preds, metrics=["f1_macro", "precision_micro"],
                            test=sigtest.BCaInterval(n_resamples=499, method=method),
                            correction="holm")
    assert left == set()
    _assert_same(got, want)


def test_special_pairs_stay_on_the_per_pair_path(monkeypatch):
    # m01 = m00 but on 8 items (few discordant items: small sample, sign-test floor);
    # m03 = m02 (identical: degenerate); m04 never predicts class 4 (its precision of
    # class 4 is undefined: a warning, per pair); m05 differs from m06 only about the
    # rare class 4 (9 items discordant about it: the class rule of f1_macro)
    y, preds = _labels(k=8, n=3000, seed=2)
    y[:60] = 4
    preds["m01"] = preds["m00"].copy()
    preds["m01"][100:108] = (preds["m01"][100:108] + 1) % 4
    preds["m03"] = preds["m02"].copy()
    preds["m04"] = np.where(preds["m04"] == 4, 0, preds["m04"])
    preds["m06"] = preds["m05"].copy()
    rare = np.flatnonzero(y != 4)[:9]
    preds["m06"][rare] = 4
    swap = np.flatnonzero((y != 4) & (preds["m05"] != y))[20:60]
    preds["m06"][swap] = y[swap]
    got, want, left = _both(monkeypatch, y, preds, metrics=["f1_macro", "precision_macro"])
    _assert_same(got, want)
    assert {(0, 1), (2, 3), (5, 6)} <= {(i, j) for i, j, m in left if m == "f1_macro"}
    assert {(i, j) for i, j, m in left if m == "precision_macro" and 4 not in (i, j)} <= {
        (0, 1), (2, 3), (5, 6)}
    assert {(min(4, s), max(4, s)) for s in range(8) if s != 4} <= {
        (i, j) for i, j, m in left if m == "precision_macro"}
    assert any("SmallSample" in c for c, _ in got[1])
    assert any("Degenerate" in c for c, _ in got[1])
    assert len(left) < 2 * 28  # the other pairs in bulk


def test_ties_of_the_difference_with_zero(monkeypatch):
    # m01 swaps right and wrong answers of m00 on 30 pairs of items of one class: the
    # same confusion matrix (delta exactly 0) and bootstrap differences tied with it
    y, preds = _labels(k=6, n=2000, seed=3)
    a = preds["m00"]
    b = a.copy()
    for t in range(5):
        right = np.flatnonzero((y == t) & (a == y))[:6]
        wrong = np.flatnonzero((y == t) & (a == (t + 1) % 5))[:6]
        b[right], b[wrong] = (t + 1) % 5, t
    preds["m01"] = b
    got, want, left = _both(monkeypatch, y, preds, metrics=["f1_macro", "f1_micro"],
                            test=sigtest.BCaInterval(n_resamples=999))
    _assert_same(got, want)
    row = got[0][(got[0].system_a == "m00") & (got[0].system_b == "m01")]
    assert (row.delta == 0).all()
    assert (0, 1, "f1_macro") not in left


@pytest.mark.parametrize("n", [12, 40])
def test_tiny_data(monkeypatch, n):
    y, preds = _labels(k=6, n=n, seed=4, n_classes=3)
    got, want, left = _both(monkeypatch, y, preds, metrics=["f1_macro", "balanced_accuracy"],
                            test=sigtest.BCaInterval(n_resamples=199), correction="holm")
    _assert_same(got, want)
    # N < 30 items: every pair per pair; at 40 items fewer than 20 items are
    # discordant about some class of f1_macro (the class rule), while pairs of
    # balanced accuracy with 20 discordant items may take the bulk path
    assert sum(m == "f1_macro" for *_, m in left) == 15
    assert len(left) == 30 or n == 40


def test_same_rows_for_any_order_of_systems_n_jobs_and_label_type(monkeypatch):
    y, preds = _labels(k=7, n=1500, seed=5)
    kwargs = dict(metrics=["f1_macro", "recall_macro"], correction="max-t",
                  test=sigtest.BCaInterval(n_resamples=499))
    first = frame_and_warnings(y, preds, **kwargs)[0]
    pd.testing.assert_frame_equal(first, frame_and_warnings(y, preds, n_jobs=2, **kwargs)[0])
    other = frame_and_warnings(y, {s: preds[s] for s in list(preds)[::-1]}, **kwargs)[0]
    for metric in kwargs["metrics"]:
        assert (rows_by_pair(first[first.metric == metric])
                == rows_by_pair(other[other.metric == metric]))
    names = np.array(["ant", "bee", "cat", "dog", "eel"])
    strings = frame_and_warnings(names[y], {s: names[p] for s, p in preds.items()}, **kwargs)
    pd.testing.assert_frame_equal(strings[0], first)


def test_a_label_outside_the_class_set(monkeypatch):
    # m02 predicts 7, a label no gold item has: not a class of f1_macro, a false
    # positive of f1_micro (the union); compare warns once, the rows are the per-pair ones
    y, preds = _labels(k=6, n=1500, seed=6)
    preds["m02"] = np.where(np.arange(1500) % 50 == 0, 7, preds["m02"])
    got, want, left = _both(monkeypatch, y, preds, metrics=["f1_macro", "f1_micro"])
    _assert_same(got, want)
    assert left == set()


@pytest.mark.parametrize("kwargs", [dict(sample_weight=np.linspace(1, 2, 900)),
                                    dict(strata=np.arange(900) % 3)])
def test_weights_and_strata_take_the_per_pair_path(monkeypatch, kwargs):
    y, preds = _labels(k=6, n=900, seed=7)
    got, want, left = _both(monkeypatch, y, preds, metrics="f1_macro", correction="holm",
                            **kwargs)
    assert len(left) == 15
    pd.testing.assert_frame_equal(got[0], want[0])


@pytest.mark.parametrize("metric", ["f1_macro", "precision_macro", "balanced_accuracy",
                                    "cohen_kappa"])
def test_kernel_quantities_equal_the_scalar_ones(metric):
    # per pair: d, the class count of the small-sample rule, acceleration and n_eff of
    # the kernel against the engine's functions on the pair's PairedData
    y, preds = _labels(k=5, n=700, seed=8, n_classes=4)
    y[:15] = 3
    preds["m01"] = preds["m00"].copy()
    preds["m01"][:5] = 3
    m = get_metric(metric)
    labels = np.arange(4)
    tables = bulk_statistics._system_tables({"labels": (y, {s: [p] for s, p in preds.items()})},
                                            m, {"labels": labels}, list(preds))
    systems = list(preds)
    I, J = np.triu_indices(len(systems), 1)
    d, watched, acc, n_eff = pairs_jackknife(
        tables["y"], tables["codes"], I, J, tables["loo"], tables["differ"],
        tables["class_differ"], tables["present"], tables["watch"])
    for p, (i, j) in enumerate(zip(I, J)):
        paired = prepare_paired(y, preds[systems[i]], preds[systems[j]], m, labels=labels)
        assert d[p] == paired.n_discordant
        counts, present = class_discordant_counts(paired)
        if counts is None or metric != "f1_macro" and metric != "precision_macro":
            assert watched[p] == -1
        else:
            candidates = counts[present & (counts > 0)]
            assert watched[p] == (candidates.min() if candidates.size else -1)
        # rounding of a sum of cubes that nearly cancel: relative to the terms' size
        np.testing.assert_allclose(acc[p], jackknife_acceleration(paired), rtol=1e-12,
                                   atol=1e-14)
        found = paired_concentration(paired)
        want = np.inf if found is None else found.n_effective
        np.testing.assert_allclose(n_eff[p], want, rtol=1e-12)
        assert tables["scores"][i] == paired.score_a and tables["scores"][j] == paired.score_b


def test_encode_labels_sorts_as_numpy():
    rng = np.random.default_rng(9)
    y = rng.integers(-3, 5, 50)
    preds = [rng.integers(-3, 9, 50) for _ in range(3)]
    union, yc, codes = encode_labels(y, preds)
    np.testing.assert_array_equal(union, np.unique(np.concatenate([y] + preds)))
    np.testing.assert_array_equal(union[yc], y)
    for p, c in zip(preds, codes):
        np.testing.assert_array_equal(union[c], p)
    words = np.array(["b", "a", "c"])
    union, yc, codes = encode_labels(words, [words[::-1]])
    assert list(union) == ["a", "b", "c"] and list(union[codes[0]]) == ["c", "a", "b"]
    assert encode_labels(np.arange(40), [np.arange(40)]) is None  # more than MAX_LABELS
