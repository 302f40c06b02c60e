"""Cell codes of hard labels never overflow (issue 15, item 1).

``(t * K + a) * K + b`` overflows int64 once K**3 >= 2**63 (more than
2,097,151 distinct labels); the cells then silently merged unrelated items
and e.g. BergKirkpatrickBootstrap reported accuracy 0.1547 for a system whose
accuracy is 0.5.
"""

import numpy as np
import pytest

from sigtest._engine import prepare_paired
from sigtest._engine.cells import _cells


def _naive_cells(y, a, b):
    """Occupied (true, A, B) triples and their counts, by np.unique on rows."""
    rows, counts = np.unique(np.stack([y, a, b], axis=1), axis=0, return_counts=True)
    return rows, counts


@pytest.fixture(scope="module")
def many_labels():
    # the example: 3.3 million distinct labels, K**3 ~ 3.6e19 > 2**63
    i = np.arange(1_100_000)
    y = i + 2_200_000
    a = np.where(i % 2 == 0, y, i)
    b = np.where(i % 3 == 0, y, i + 1_100_000)
    return y, a, b


def test_cells_match_naive_triples_beyond_int64(many_labels):
    y, a, b = many_labels
    union, yt, ya, yb, counts, rows = _cells(y, a, b, with_rows=True)
    assert union.shape[0] ** 3 >= 2**63  # the overflow regime
    got = np.stack([yt, ya, yb], axis=1)
    order = np.lexsort(got.T[::-1])
    want_rows, want_counts = _naive_cells(y, a, b)
    np.testing.assert_array_equal(got[order], want_rows)
    np.testing.assert_array_equal(counts[order], want_counts)
    # every item maps to its own cell
    np.testing.assert_array_equal(yt[rows], y)
    np.testing.assert_array_equal(ya[rows], a)
    np.testing.assert_array_equal(yb[rows], b)


def test_scores_right_beyond_int64(many_labels):
    y, a, b = many_labels
    paired = prepare_paired(y, a, b, "accuracy")
    assert paired.score_a == np.mean(a == y) == 0.5
    assert paired.score_b == np.mean(b == y)
    sums_a, sums_b = paired.totals()
    assert sums_a[0] == np.sum(a == y) and sums_b[0] == np.sum(b == y)


def test_cells_small_k_unchanged():
    rng = np.random.default_rng(0)
    y, a, b = (rng.integers(0, 5, 300) for _ in range(3))
    union, yt, ya, yb, counts, rows = _cells(y, a, b, with_rows=True)
    want_rows, want_counts = _naive_cells(y, a, b)
    np.testing.assert_array_equal(np.stack([yt, ya, yb], axis=1), want_rows)
    np.testing.assert_array_equal(counts, want_counts)
    np.testing.assert_array_equal(yt[rows], y)
