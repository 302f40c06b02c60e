"""The comparison frame as assemble builds it: column dtypes and per-family corrections."""

import numpy as np
import pandas as pd

import sigtest
from sigtest import BCaInterval, PairedPermutation


def _holm(p):
    """Holm's adjusted p-values, written out (the naive twin)."""
    order = np.argsort(p, kind="stable")
    m = len(p)
    adj = np.maximum.accumulate([(m - r) * p[i] for r, i in enumerate(order)])
    out = np.empty(m)
    out[order] = np.minimum(adj, 1.0)
    return out


def _data(k=5, n=300, seed=0):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 3, n)
    preds = {f"s{j}": np.where(rng.random(n) < q, y, rng.integers(0, 3, n))
             for j, q in enumerate(np.linspace(0.55, 0.8, k))}
    return y, preds


def test_string_columns_have_the_dtype_pandas_gives_such_strings():
    y, preds = _data()
    frame = sigtest.compare(y, preds, random_state=0).to_frame()
    inferred = pd.DataFrame({"c": np.array(["a", "b"], dtype=object)})["c"].dtype
    for column in ("system_a", "system_b", "metric", "test", "alternative"):
        assert frame[column].dtype == inferred, column
    assert frame["significant"].dtype == bool and frame["n_resamples"].dtype == np.int64


def test_each_metric_and_test_family_is_corrected_on_its_own():
    y, preds = _data(seed=3)
    tests = [PairedPermutation(n_resamples=499),
             (PairedPermutation(n_resamples=299), BCaInterval(n_resamples=299))]
    res = sigtest.compare(y, preds, metrics=("accuracy", "f1_macro"), test=tests,
                          correction="holm", random_state=0)
    frame = res.to_frame()
    assert frame.groupby(["metric", "test"]).ngroups == 4
    for _, rows in frame.groupby(["metric", "test"]):
        want = _holm(rows["pvalue"].to_numpy())
        assert np.array_equal(rows["pvalue_adj"].to_numpy(), want)
    assert np.array_equal(frame["significant"].to_numpy(),
                          (frame["pvalue_adj"] <= res.alpha).to_numpy())
