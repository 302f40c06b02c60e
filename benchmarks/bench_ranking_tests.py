"""Size and power of the tests of "do the two AUCs differ?" (binary ROC AUC).

The measurement behind the choice of the default test for rank metrics
(docs/which_test.md, "Do the AUCs differ?"). Seeded: ``python
benchmarks/bench_ranking_tests.py`` prints the same table every run (about 7
minutes of CPU; ``--quick`` divides the data sets by 4).

Design: N = 200 items, 10, 30 or 100 positives; two binormal scorers whose
noises are correlated (rho = .5); B's scores are reported on the scale
``exp(2 s)`` (a strictly increasing transform: the AUCs are unchanged).

* ``same``: equally good scorers (AUC .76 both): exchangeable scores;
* ``shape``: equal AUCs (.76) with B's positives twice as spread (crossing
  ROC curves): the null "equal AUCs" without exchangeable scores;
* ``power``: B's AUC .86 against A's .76.

Columns: the permutation of the RAW scores (what ``PairedPermutation`` did
before it swapped ranks; here a plain NumPy permutation of the raw scores
with scipy's ranks for the AUCs), ``PairedPermutation`` (within-system
normalised ranks), ``DeLong``, ``BergKirkpatrickBootstrap`` (its default,
one-sided "B better") and ``BCaInterval``; rejection rates at .05, B = 999.
Warnings are silenced: the point is to measure what the tests return.
"""

from __future__ import annotations

import argparse
import time
import warnings

import numpy as np
from scipy.stats import rankdata

from sigtest import BCaInterval, BergKirkpatrickBootstrap, DeLong, PairedPermutation

ALPHA = 0.05
B = 999


def _data(rng, n, n_pos, design):
    y = np.zeros(n, dtype=int)
    y[:n_pos] = 1
    z = rng.standard_normal((n, 3))
    ea = (z[:, 0] + z[:, 2]) / np.sqrt(2)
    eb = (z[:, 1] + z[:, 2]) / np.sqrt(2)
    if design == "null_same":
        a, b = 1.0 * y + ea, 1.0 * y + eb
    elif design == "null_shape":  # AUC = Phi(mu / sqrt(1 + sigma^2)) = Phi(1 / sqrt 2) both
        a, b = 1.0 * y + ea, np.where(y == 1, np.sqrt(5 / 2) + 2 * eb, eb)
    else:
        a, b = 1.0 * y + ea, 1.5 * y + eb
    return y, a, np.exp(2 * b)


def _auc_rows(y, scores):
    ranks = rankdata(scores, axis=-1)
    p = int(y.sum())
    return (ranks[..., y == 1].sum(axis=-1) - p * (p + 1) / 2.0) / (p * (y.size - p))


def raw_permutation_pvalue(y, a, b, rng):
    """Two-sided Monte Carlo p of the AUC difference, swapping raw scores per item."""
    obs = abs(_auc_rows(y, b) - _auc_rows(y, a))
    swap = rng.random((B, y.size)) < 0.5
    null = np.abs(_auc_rows(y, np.where(swap, a, b)) - _auc_rows(y, np.where(swap, b, a)))
    return (np.count_nonzero(null >= obs - 1e-12) + 1) / (B + 1)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a quarter of the data sets")
    args = parser.parse_args(argv)
    reps = 250 if args.quick else 1000
    tests = {"perm_rank": PairedPermutation(n_resamples=B, n_jobs=1), "delong": DeLong(),
             "bk": BergKirkpatrickBootstrap(n_resamples=B, alternative="greater", n_jobs=1),
             "bca": BCaInterval(n_resamples=B, n_jobs=1)}
    t0, c0 = time.perf_counter(), time.process_time()
    print(f"N = 200, rejection rate at .05, {reps} data sets a cell, B = {B}")
    print(f"{'design':>10} {'pos':>4} {'perm raw':>9} " + " ".join(f"{k:>9}" for k in tests))
    for design in ("null_same", "null_shape", "power"):
        for n, n_pos in ((200, 10), (200, 30), (200, 100)):
            rng = np.random.default_rng([n, n_pos, len(design)])
            raw_rng = np.random.default_rng([n, n_pos, len(design), 1])
            hits = dict.fromkeys(["raw", *tests], 0)
            for r in range(reps):
                y, a, b = _data(rng, n, n_pos, design)
                hits["raw"] += raw_permutation_pvalue(y, a, b, raw_rng) <= ALPHA
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    for name, test in tests.items():
                        if "random_state" in test.get_params():
                            test.set_params(random_state=r)
                        hits[name] += test.test(y, a, b, metric="roc_auc").pvalue <= ALPHA
            print(f"{design:>10} {n_pos:>4} " + " ".join(f"{hits[k] / reps:>9.3f}"
                                                        for k in hits), flush=True)
    print(f"\n{time.perf_counter() - t0:.0f} s wall, {time.process_time() - c0:.0f} s CPU")


if __name__ == "__main__":
    main()
