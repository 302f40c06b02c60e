"""Table 2 of Kurniawan et al. (2025) via examples/reproduce_hlv_table2.py.

The paper's correlations come from one simulation draw, and so do ours: the
two differ by sampling noise. Measured over seeds 0-5 (B=500, N=1000), the
J-S correlation has a draw-to-draw sd of 0.002-0.006 per cell, and the mean
over seeds lies within 0.004 of the paper in seven cells and 0.013 above it
in the K=100, alpha=beta=10 cell (paper 0.924, ours 0.928-0.944; the paper's
draw is ~2.3 sd low there). Hence:

* the default test checks the K=10 cells on one draw (seed 0, ~5 s), where
  the 0.02 tolerance of issue 2 is more than 4 sd from the expectation;
* the slow test checks the K=100 cells on the Fisher-z mean of 3 draws
  (sd ~0.003), where 0.02 is about 2 sd from the 0.013 offset of the
  alpha=beta=10 cell and more than 5 sd elsewhere.
"""

import importlib.util
from pathlib import Path

import numpy as np
import pytest

_PATH = Path(__file__).resolve().parents[2] / "examples" / "reproduce_hlv_table2.py"
_spec = importlib.util.spec_from_file_location("reproduce_hlv_table2", _PATH)
t2 = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(t2)

JS = t2.PAIRS.index("J-S")


def _check_row(alpha, beta, k, seed=0):
    ours = t2.simulate(alpha, beta, k, seed=seed)
    paper = t2.PAPER_TABLE2[(alpha, beta, k)]
    assert abs(ours["J-S"] - paper[JS]) < 0.02, (alpha, beta, k, ours["J-S"], paper[JS])
    # the paper's finding: soft accuracy and PO-JSD are by far the most correlated pair
    assert ours["J-S"] > 0.9
    assert ours["J-S"] == max(ours.values())
    assert all(-1.0 <= v <= 1.0 for v in ours.values())
    return ours


@pytest.mark.parametrize("alpha, beta", t2.SETTINGS)
def test_table2_js_column_k10(alpha, beta):
    _check_row(alpha, beta, 10)


def test_table2_hard_soft_accuracy_agree_for_sparse_dirichlet():
    # alpha = beta = 0.1, K = 10: nearly one-hot rows, so hard and soft accuracy
    # correlate strongly (paper: A-S = 0.734), unlike the dense settings (0.290).
    sparse = t2.simulate(0.1, 0.1, 10, n_pairs=200)
    dense = t2.simulate(10.0, 10.0, 10, n_pairs=200)
    assert sparse["A-S"] > 0.6 > 0.4 > dense["A-S"]


def test_simulate_is_reproducible_and_chunk_invariant():
    a = t2.simulate(0.1, 10.0, 10, n_pairs=30, n_samples=200, chunk=7)
    b = t2.simulate(0.1, 10.0, 10, n_pairs=30, n_samples=200, chunk=30)
    assert a.keys() == b.keys()
    np.testing.assert_allclose(list(a.values()), list(b.values()), rtol=0, atol=1e-12)


@pytest.mark.slow
def test_table2_js_column_k100_replicated():
    ours = t2.table((100,), seed=0, replicates=3)
    for key, row in ours.items():
        paper = t2.PAPER_TABLE2[key]
        assert abs(row["J-S"] - paper[JS]) < 0.02, (key, row["J-S"], paper[JS])
        assert row["J-S"] == max(row.values())
