"""compare()'s bulk path over all pairs gives the per-pair path's frame.

The per-pair path (one test per pair, ``run.run_pairs``) is the reference.
Scores, ``delta``, ``n_resamples``, ``ci_level``, the adjusted p-values and
the decisions are bit-identical; percentile intervals and p-values too; BCa
intervals and p-values agree to 1e-12 (the bulk path's acceleration is the
closed form of the 0/1 differences' moments, the per-pair one sums the
jackknife values item by item: the last bits differ).
"""

import warnings

import numpy as np
import pandas as pd
import pytest

import sigtest
from sigtest._engine import bulk_select
from sigtest._workflows.compare import api, bulk, bulk_rows, run

from _shared_data import frame_and_warnings, per_pair_rows, rows_by_pair, wrong_elsewhere_systems

_EXACT = ["system_a", "system_b", "metric", "test", "alternative", "score_a", "score_b",
          "delta", "ci_level", "n_resamples", "significant"]


def _scores(k=14, n=2000, seed=0, ps=None):
    rng = np.random.default_rng(seed)
    ps = np.linspace(.5, .8, k) if ps is None else ps
    return {f"s{j:02d}": (rng.random(n) < p).astype(float) for j, p in enumerate(ps)}


def _per_pair(monkeypatch, *args, **kwargs):
    with monkeypatch.context() as m:
        m.setattr(api, "run_all_pairs", per_pair_rows)
        return _run(*args, **kwargs)


def _run(scores, **kwargs):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        frame = sigtest.compare(None, scores, metrics="mean", random_state=0, **kwargs).to_frame()
    return frame, sorted((w.category.__name__, str(w.message)) for w in caught)


def _per_pair_tasks(monkeypatch):
    """Count the tasks the bulk path leaves to the per-pair path."""
    sent = []

    def spy(tasks, n_jobs, verbose):
        sent.extend(tasks)
        return run.run_pairs(tasks, n_jobs, verbose)

    monkeypatch.setattr(bulk, "run_pairs", spy)
    return sent


def _assert_same(got, want, exact):
    (fb, wb), (fp, wp) = got, want
    assert wb == wp
    assert list(fb.columns) == list(fp.columns)
    pd.testing.assert_frame_equal(fb[_EXACT], fp[_EXACT], check_exact=True)
    for column in ("ci_low", "ci_high", "pvalue", "pvalue_adj"):
        if exact:
            assert np.array_equal(fb[column], fp[column], equal_nan=True), column
        else:
            np.testing.assert_allclose(fb[column], fp[column], rtol=0, atol=1e-12)


@pytest.mark.parametrize("method", ["bca", "percentile"])
@pytest.mark.parametrize("correction", ["max-t", "holm", "max-t-single-step"])
def test_bulk_frame_equals_the_per_pair_frame(monkeypatch, method, correction):
    scores = _scores()
    kwargs = dict(test=sigtest.BCaInterval(method=method, n_resamples=999), correction=correction)
    want = _per_pair(monkeypatch, scores, **kwargs)
    sent = _per_pair_tasks(monkeypatch)
    got = _run(scores, **kwargs)
    assert sent == []  # every pair took the bulk path
    _assert_same(got, want, exact=method == "percentile")
    if correction == "max-t":  # the adjusted p-values do not depend on the acceleration
        assert np.array_equal(got[0]["pvalue_adj"] >= got[0]["pvalue"], np.ones(len(got[0]), bool))


def test_bulk_default_test_and_correction_of_a_large_family(monkeypatch):
    # 12 systems, 66 pairs, 10^4 items: "auto" is max-T with the BCa interval
    scores = _scores(k=12, n=10_000, seed=1)
    want = _per_pair(monkeypatch, scores)
    sent = _per_pair_tasks(monkeypatch)
    got = _run(scores)
    assert sent == [] and set(got[0]["test"]) == {"bca"}
    _assert_same(got, want, exact=False)


def test_special_pairs_fall_back_to_the_per_pair_path(monkeypatch):
    # s00 and s01 differ on 6 items (small-sample warning, sign-test floor), s02 = s03
    # (identical: degenerate), s04 has scores 0.5 (not 0/1): per pair; the rest in bulk
    scores = _scores(k=8, n=3000, seed=2)
    scores["s01"] = scores["s00"].copy()
    scores["s01"][:6] = 1 - scores["s01"][:6]
    scores["s03"] = scores["s02"].copy()
    scores["s04"] = scores["s04"] * 0.5
    kwargs = dict(test=sigtest.BCaInterval(n_resamples=999), correction="holm")
    want = _per_pair(monkeypatch, scores, **kwargs)
    sent = _per_pair_tasks(monkeypatch)
    got = _run(scores, **kwargs)
    left = {tuple(sorted((t[1], t[2]))) for t in sent}
    assert {(0, 1), (2, 3)} <= left
    assert {p for p in left if 4 not in p} == {(0, 1), (2, 3)}
    assert {(min(4, s), max(4, s)) for s in range(8) if s != 4} <= left
    assert len(left) == 2 + 7
    _assert_same(got, want, exact=False)
    assert any("SmallSample" in c or "Degenerate" in c for c, _ in got[1])


@pytest.mark.parametrize("kwargs", [
    dict(sample_weight=np.linspace(1, 2, 1500)),
    dict(strata=np.arange(1500) % 3),
    dict(test=sigtest.BCaInterval(n_resamples=999, alternative="non-inferiority", margin=.02),
         pairs="baseline", baseline="s00"),
    dict(test=sigtest.BergKirkpatrickBootstrap(n_resamples=999)),
])
def test_other_comparisons_take_the_per_pair_path(monkeypatch, kwargs):
    scores = _scores(k=7, n=1500, seed=3)
    kwargs = dict(correction="holm", **kwargs)
    if "test" not in kwargs:
        kwargs["test"] = sigtest.BCaInterval(n_resamples=999)
    sent = _per_pair_tasks(monkeypatch)
    got = _run(scores, **kwargs)
    assert len(sent) == (6 if "baseline" in kwargs else 21)
    want = _per_pair(monkeypatch, scores, **kwargs)
    pd.testing.assert_frame_equal(got[0], want[0])


def test_bulk_frame_same_for_any_n_jobs_and_order_of_systems():
    scores = _scores(k=10, n=2000, seed=4)
    kwargs = dict(test=sigtest.BCaInterval(n_resamples=999), correction="max-t")
    first = _run(scores, **kwargs)[0]
    pd.testing.assert_frame_equal(first, _run(scores, n_jobs=2, **kwargs)[0])
    names = list(scores)[::-1]
    other = _run({n: scores[n] for n in names}, **kwargs)[0]
    assert rows_by_pair(first) == rows_by_pair(other)


@pytest.mark.parametrize("method", ["bca", "percentile"])
def test_selected_order_statistics_give_the_sorted_rows_frame(monkeypatch, method):
    # numba's selection (bulk_select) against sorting every pair's differences
    # (the path without numba): the whole frame, bit for bit, with ties at 0
    scores = _scores(k=12, n=400, seed=9, ps=np.r_[np.linspace(.5, .8, 10), .8, .8])
    kwargs = dict(test=sigtest.BCaInterval(method=method, n_resamples=999))
    sent = _per_pair_tasks(monkeypatch)
    selected = _run(scores, **kwargs)
    assert len(sent) <= 1  # the identical pair at most: the rest in bulk
    with monkeypatch.context() as m:
        m.setattr(bulk_select, "_numba_enabled", lambda: False)
        m.setattr(bulk_select, "SORTED_BLOCK_BYTES", 8 * 999 * 7)  # blocks of 7 sorted rows
        _assert_same(selected, _run(scores, **kwargs), exact=True)


@pytest.mark.parametrize("bootstrap", ["resample", "multiplier"])
def test_window_buffers_of_any_budget_give_the_same_frame(monkeypatch, bootstrap):
    # a budget of a few KB cuts the 0/1 pairs into blocks of a dozen (and
    # threads over them): the same frame, bit for bit, as the default budget
    scores = _scores(k=30, n=800, seed=4)
    kwargs = dict(test=sigtest.BCaInterval(n_resamples=999), correction="max-t",
                  bootstrap=bootstrap)
    sent = _per_pair_tasks(monkeypatch)
    default = _run(scores, **kwargs)
    assert len(sent) < 10  # the 435 pairs in bulk (a few special ones per pair)
    blocks = []
    real = bulk_select.PairOrder

    class Counted(real):
        def __init__(self, T, I, *args, **kw):
            blocks.append(I.shape[0])
            super().__init__(T, I, *args, **kw)

    with monkeypatch.context() as m:
        m.setattr(bulk_select, "WINDOW_BLOCK_BYTES", 64 * 2**10)
        m.setattr(bulk_rows, "PairOrder", Counted)
        small = _run(scores, n_jobs=2, **kwargs)
    assert max(blocks) == 64 * 2**10 // bulk_select._WINDOW_PAIR_BYTES and len(blocks) > 30
    _assert_same(small, default, exact=True)


def test_bulk_frame_on_multiplier_draws_equals_the_per_pair_frame(monkeypatch):
    # what "auto" takes for a large leaderboard (B x items x systems > 2 * 10^10)
    scores = _scores(k=12, n=3000, seed=5)
    kwargs = dict(test=sigtest.BCaInterval(n_resamples=999), correction="max-t",
                  bootstrap="multiplier")
    want = _per_pair(monkeypatch, scores, **kwargs)
    sent = _per_pair_tasks(monkeypatch)
    got = _run(scores, **kwargs)
    assert sent == []
    _assert_same(got, want, exact=False)


def _labels(k=10, n=2000, seed=6, n_classes=4):
    return wrong_elsewhere_systems(k, n, seed, n_classes, (.55, .8))


@pytest.mark.parametrize("bootstrap", ["resample", "multiplier"])
def test_accuracy_of_hard_labels_takes_the_bulk_path(monkeypatch, bootstrap):
    # accuracy is the mean of 0/1 correctness: the same bulk rows as the
    # per-pair path, which counts an item both systems get wrong with different
    # labels as concordant (the same statistics [correct, 1])
    y, preds = _labels()
    preds["m03"] = preds["m02"].copy()  # identical: degenerate, per pair
    preds["m03"][:4] = (preds["m03"][:4] + 1) % 4
    kwargs = dict(metrics=["accuracy", "f1_macro"], correction="max-t", bootstrap=bootstrap,
                  test=sigtest.BCaInterval(n_resamples=999))
    with monkeypatch.context() as m:
        m.setattr(api, "run_all_pairs", per_pair_rows)
        want = frame_and_warnings(y, preds, **kwargs)
    sent = _per_pair_tasks(monkeypatch)
    got = frame_and_warnings(y, preds, **kwargs)
    per_pair = {(t[1], t[2], job[1].name) for t in sent for job in t[3]}
    assert {(i, j) for i, j, m in per_pair if m == "accuracy"} == {(2, 3)}
    if bootstrap == "resample":  # f1_macro's bulk path: test_bulk_statistics.py (it
        # gets no multiplier draws here: its pairs draw their own resamples)
        assert {(i, j) for i, j, m in per_pair if m == "f1_macro"} == {(2, 3)}
    _assert_same(got, want, exact=False)
    # string labels: the same rows (the labels are encoded before the pairs run)
    names = np.array(["ant", "bee", "cat", "dog"])
    strings = frame_and_warnings(names[y], {s: names[p] for s, p in preds.items()}, **kwargs)
    pd.testing.assert_frame_equal(strings[0], got[0])


def test_weighted_accuracy_takes_the_per_pair_path(monkeypatch):
    y, preds = _labels(k=6, n=800, seed=7)
    sent = _per_pair_tasks(monkeypatch)
    frame_and_warnings(y, preds, metrics="accuracy", correction="holm",
                       test=sigtest.BCaInterval(n_resamples=499),
                       sample_weight=np.linspace(1, 2, 800))
    assert len(sent) == 15


def test_finite_rows_is_the_check_of_the_copied_rows():
    # naive twin: np.isfinite(T[rows]).all() on the copy, chunks of 64 rows or not
    rng = np.random.default_rng(2)
    T = rng.normal(size=(200, 7))
    T[70, 3], T[150, 0] = np.nan, np.inf
    for rows in ([], [5], list(range(64)), list(range(70)), list(range(71, 150)),
                 [150, 3, 3], rng.integers(0, 200, 300).tolist(), np.arange(200)):
        assert bulk_rows.finite_rows(T, rows) == bool(np.isfinite(T[rows]).all()), rows
