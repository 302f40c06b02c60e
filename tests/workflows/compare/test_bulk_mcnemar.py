"""compare()'s bulk McNemar over all pairs gives the per-pair path's frame, bit for bit.

The per-pair path (one McNemar test per pair, ``run.run_pairs``) is the
reference: every column and the warnings are the same, with the rows the
bulk path cannot take (no discordant item, weights, one-sided tests, several
runs) left to it.
"""

import numpy as np
import pandas as pd
import pytest

import sigtest

from _shared_data import (bulk_and_per_pair, frame_and_warnings, rows_by_pair,
                          wrong_elsewhere_systems)


def _labels(k=12, n=400, seed=0, n_classes=3):
    return wrong_elsewhere_systems(k, n, seed, n_classes, (.55, .85))


@pytest.mark.parametrize("test", ["mcnemar", sigtest.McNemar(method="mid-p"),
                                  sigtest.McNemar(method="chi2", continuity=False),
                                  sigtest.McNemar(confidence_level=0.9)])
@pytest.mark.parametrize("correction", ["holm", "bonferroni"])
def test_bulk_mcnemar_frame_is_the_per_pair_frame(monkeypatch, test, correction):
    y, preds = _labels()
    preds["m05"] = preds["m04"].copy()  # no discordant item: the per-pair test warns
    preds["m07"] = preds["m06"].copy()
    preds["m07"][:2] = y[:2]  # two discordant items: p = .5, interval extended to 0
    preds["m07"][2:4] = (y[2:4] + 1) % 3
    got, want, sent = bulk_and_per_pair(monkeypatch, y, preds, metrics="accuracy", test=test,
                            correction=correction)
    pd.testing.assert_frame_equal(got[0], want[0], check_exact=True)
    assert got[1] == want[1]
    assert {(t[1], t[2]) for t in sent} == {(4, 5)}


def test_mcnemar_next_to_a_resampling_test_and_on_0_1_scores(monkeypatch):
    y, preds = _labels(k=6, seed=1)
    tests = ["mcnemar", sigtest.BCaInterval(n_resamples=499)]
    got, want, sent = bulk_and_per_pair(monkeypatch, y, preds, metrics="accuracy", test=tests,
                            correction="holm")
    # two jobs a pair, both in bulk: McNemar's rows bit for bit, the BCa
    # interval's to rounding (its closed-form acceleration: test_bulk_pairs.py)
    mc = got[0]["test"] == "mcnemar"
    assert mc.sum() == 15 and mc.equals(want[0]["test"] == "mcnemar")
    pd.testing.assert_frame_equal(got[0][mc], want[0][mc], check_exact=True)
    pd.testing.assert_frame_equal(got[0][~mc], want[0][~mc], check_exact=False, rtol=0,
                                  atol=1e-12)
    assert sent == []
    scores = {s: (p == y).astype(float) for s, p in preds.items()}
    got, want, sent = bulk_and_per_pair(monkeypatch, None, scores, metrics="mean", test="mcnemar")
    pd.testing.assert_frame_equal(got[0], want[0], check_exact=True)
    assert sent == []
    # the same tables from labels and from their 0/1 correctness
    labels = frame_and_warnings(y, preds, metrics="accuracy", test="mcnemar")[0]
    np.testing.assert_array_equal(labels["pvalue"], got[0]["pvalue"])


@pytest.mark.parametrize("kwargs", [
    dict(sample_weight=np.ones(400)),
    dict(test=sigtest.McNemar(alternative="greater"), pairs="baseline", baseline="m00"),
    dict(test=sigtest.McNemar(method="chi2"), groups=np.arange(400) // 4),
])
def test_other_mcnemar_comparisons_take_the_per_pair_path(monkeypatch, kwargs):
    y, preds = _labels(k=5, seed=2)
    kwargs = {"test": "mcnemar", **kwargs}
    got, want, sent = bulk_and_per_pair(monkeypatch, y, preds, metrics="accuracy", **kwargs)
    pd.testing.assert_frame_equal(got[0], want[0], check_exact=True)
    assert len(sent) == (4 if "baseline" in kwargs else 10)


def test_bulk_mcnemar_same_for_any_order_of_systems():
    y, preds = _labels(k=8, seed=3)
    first = frame_and_warnings(y, preds, metrics="accuracy", test="mcnemar")[0]
    other = frame_and_warnings(y, dict(reversed(list(preds.items()))), metrics="accuracy",
                               test="mcnemar")[0]
    assert rows_by_pair(first) == rows_by_pair(other)
