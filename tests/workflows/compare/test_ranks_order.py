"""ranks(): the kernels give the NumPy formulation's bits, and the order of the systems does
not matter.

``_intervals_and_set`` sorts the systems by name before the rank intervals and the
model confidence set, so its output is that of the NumPy formulation
(``tests/engine/_ranking_reference.py``) on the systems in name order, whatever
order they were given in, and in the layout of ``T`` the comparison passes
(F-contiguous kept draws, C-contiguous own draws).
"""

import importlib.util
from pathlib import Path

import numpy as np
import pytest

import sigtest
from sigtest._workflows.compare.ranks import _intervals_and_set

_spec = importlib.util.spec_from_file_location(
    "_ranking_reference", Path(__file__).parents[2] / "engine" / "_ranking_reference.py")
ref = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(ref)


def _name_rank(names):
    return np.argsort(np.argsort(np.asarray(names, dtype=object), kind="stable"), kind="stable")


def _matrix(seed, k=24, B=400, n=60):
    """Means of 0/1 scores of few items (ties) with a block of identical systems."""
    rng = np.random.default_rng(seed)
    X = (rng.random((n, k)) < np.linspace(0.45, 0.8, k)).astype(np.float64)
    X[:, 5] = X[:, 4]
    counts = rng.multinomial(n, np.full(n, 1 / n), size=B).astype(np.float64)
    return X.mean(axis=0), counts @ X / n


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("layout", ["C", "F"])
def test_intervals_and_set_are_the_reference_on_name_order_for_any_order(seed, layout):
    theta, T = _matrix(seed)
    k = theta.shape[0]
    names = [f"sys{j:02d}" for j in range(k)]
    rng = np.random.default_rng(seed)
    want = None
    for _ in range(3):
        perm = rng.permutation(k)
        th, Tp = theta[perm], T[:, perm]
        Tp = np.asfortranarray(Tp) if layout == "F" else np.ascontiguousarray(Tp)
        nr = _name_rank([names[j] for j in perm])
        low, high, in_set = _intervals_and_set(th, Tp, 0.95, nr, 2)
        back = np.argsort(perm)  # rows in name order
        got = (low[back], high[back], in_set[back])
        if want is None:
            X = np.asfortranarray(T) if layout == "F" else np.ascontiguousarray(T)
            r_low, r_high, _ = ref.rank_intervals(theta, X, 0.95)
            r_set, _ = ref.model_confidence_set(theta, X, 0.95, tie_order=np.arange(k))
            want = (r_low, r_high, r_set)
        for g, w in zip(got, want):
            np.testing.assert_array_equal(g, w)


def test_ranks_do_not_depend_on_the_order_of_the_systems():
    rng = np.random.default_rng(4)
    scores = {f"sys{j:02d}": (rng.random(300) < p).astype(float)
              for j, p in enumerate(np.linspace(0.5, 0.8, 12))}
    tables = []
    for names in (sorted(scores), sorted(scores, reverse=True)):
        res = sigtest.compare(None, {n: scores[n] for n in names}, metrics="mean",
                              random_state=0)
        tables.append(res.ranks().set_index("system").sort_index())
    a, b = tables
    for col in ("rank", "rank_low", "rank_high", "in_best_set"):
        np.testing.assert_array_equal(a[col].to_numpy(), b[col].to_numpy())


def test_observed_scores_are_the_last_row_of_each_system():
    import pandas as pd

    from sigtest._workflows.compare.tables import observed_scores

    def naive(frame, systems):  # the row-by-row lookup it replaced
        score = dict(zip(frame["system_a"], frame["score_a"]))
        score.update(zip(frame["system_b"], frame["score_b"]))
        return np.array([score.get(n, np.nan) for n in systems], dtype=np.float64)

    rng = np.random.default_rng(0)
    names = [f"s{j}" for j in range(9)]
    for n_rows in (0, 1, 7, 60):
        frame = pd.DataFrame({
            "system_a": rng.choice(names[:7] + ["other"], n_rows),
            "system_b": rng.choice(names[:6], n_rows),
            "score_a": rng.random(n_rows), "score_b": rng.random(n_rows)})
        np.testing.assert_array_equal(observed_scores(frame, names), naive(frame, names))
