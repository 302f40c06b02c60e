"""The class set of compare's label metrics (issue 15: compare vs test())."""

import warnings

import numpy as np
import pytest
from sklearn.metrics import f1_score, precision_score, recall_score

from sigtest import PairedPermutation, SignTest, compare

SKLEARN = {"f1_micro": f1_score, "precision_micro": precision_score,
           "recall_micro": recall_score}


@pytest.fixture
def systems():
    # B predicts a label (9) that never occurs in the gold on ~15 % of the items
    rng = np.random.default_rng(0)
    y = rng.integers(0, 3, 200)
    a = np.where(rng.random(200) < 0.6, y, rng.integers(0, 3, 200))
    b = np.where(rng.random(200) < 0.65, y, rng.integers(0, 3, 200))
    b[rng.random(200) < 0.15] = 9
    return y, a, b


@pytest.mark.parametrize("metric", sorted(SKLEARN))
def test_micro_metrics_count_labels_absent_from_the_gold(systems, metric):
    # compare used the gold labels for every class-averaged metric, so B's
    # predictions of 9 vanished from its micro precision (0.6222 instead of
    # sklearn's 0.56 = its accuracy): compare must equal sklearn and test().
    y, a, b = systems
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # micro metrics use no class set: no warning
        r = compare(y, {"A": a, "B": b}, metrics=[metric], test=SignTest())
    row = r.to_frame().iloc[0]
    assert row.score_a == pytest.approx(SKLEARN[metric](y, a, average="micro"), abs=1e-12)
    assert row.score_b == pytest.approx(SKLEARN[metric](y, b, average="micro"), abs=1e-12)
    assert row.score_b == pytest.approx(np.mean(b == y), abs=1e-12)
    direct = SignTest().test(y, a, b, metric=metric)
    assert row.pvalue == direct.pvalue and row.delta == pytest.approx(direct.delta, abs=1e-12)


def test_macro_metrics_keep_the_gold_class_set(systems):
    # macro averages keep one class set for every pair (the gold labels), as
    # documented in docs/tests.md, with a warning naming the unseen label
    y, a, b = systems
    with pytest.warns(UserWarning, match="9"):
        r = compare(y, {"A": a, "B": b}, metrics=["f1_macro"],
                    test=PairedPermutation(n_resamples=99), random_state=0)
    expected = f1_score(y, b, average="macro", labels=[0, 1, 2])
    assert r.to_frame().iloc[0].score_b == pytest.approx(expected, abs=1e-12)
