"""DeLong's test: its speed against MLstatkit, and its size with few positives or negatives.

1. Speed. ``DeLong().test(y, a, b)`` at N = 10^6 against MLstatkit's
   ``Delong_test`` (the fast algorithm of Sun & Xu 2014 as that package
   writes it: midranks of each system among all items, the positives and the
   negatives, three sorts per system) and against a NumPy reference of the
   same algorithm written here (:func:`sun_xu_delong`: the midranks by
   ``scipy.stats.rankdata``, vectorised), on the same data in one run. The
   three must give the same z (to 1e-12 relative); the table prints wall and
   CPU seconds (``time.process_time``, which holds under load), their ratios
   and the load average. MLstatkit is a benchmark-only dependency: without it
   the script says so and times the NumPy reference only.
2. Size (``--only size``). The null of two equally good scorers: binormal,
   positives ``mu + e``, negatives ``e``, ``(e_A, e_B)`` bivariate normal
   with correlation .5, N = 1,000 items of which ``m`` positives (the
   negatives are few in the mirror case: DeLong's variance treats the two
   classes alike), and balanced small samples. Rejection rate of the
   two-sided test at .05 over ``--reps`` data sets a cell (4,000 by default:
   Monte Carlo standard error .0034 at .05, so the band [.041, .059] is 2.6
   standard errors) and, at few positives, the rate of ``PairedPermutation``
   (1,000 data sets, B = 999). These figures set ``DELONG_MIN_CLASS``
   (sigtest/_engine/delong.py), below which DeLong warns.

Usage: ``python benchmarks/bench_delong.py [--only speed|size] [--quick]``.
"""

from __future__ import annotations

import argparse
import math
import os
import time
import warnings

import numpy as np


# --------------------------------------------------------------------------
# 1. speed
# --------------------------------------------------------------------------
def speed_data(n, seed=0):
    """Labels and two real-valued scorers of AUC about .76 and .72 (no ties)."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    common = rng.normal(size=n)
    a = common + rng.normal(size=n) + 1.0 * y
    b = common + rng.normal(size=n) + 0.8 * y
    return y, a, b


def sun_xu_delong(y, a, b):
    """Sun & Xu (2014) in NumPy: V10 = (T_Z - T_X) / n, V01 = 1 - (T_Z - T_Y) / m.

    ``T_Z``, ``T_X``, ``T_Y`` are the midranks of a system's scores among all
    items, among the positives and among the negatives (three sorts per
    system, by ``scipy.stats.rankdata``). Returns z of AUC(B) - AUC(A).
    """
    from scipy.stats import rankdata

    pos = y == 1
    m, n = int(pos.sum()), int((~pos).sum())
    v10, v01 = [], []
    for s in (a, b):
        tz = rankdata(s)
        v10.append((tz[pos] - rankdata(s[pos])) / n)
        v01.append(1.0 - (tz[~pos] - rankdata(s[~pos])) / m)
    v10, v01 = np.stack(v10), np.stack(v01)
    auc = v10.mean(axis=1)
    cov = np.cov(v10) / m + np.cov(v01) / n
    return (auc[1] - auc[0]) / math.sqrt(cov[0, 0] + cov[1, 1] - 2 * cov[0, 1])


def _timed(fn, repeats):
    """Best wall and CPU seconds of ``repeats`` calls (after one warm-up call), and the output."""
    out = fn()
    best_wall = best_cpu = math.inf
    for _ in range(repeats):
        w0, c0 = time.perf_counter(), time.process_time()
        out = fn()
        best_wall = min(best_wall, time.perf_counter() - w0)
        best_cpu = min(best_cpu, time.process_time() - c0)
    return best_wall, best_cpu, out


def speed(n, repeats):
    from sigtest import DeLong

    y, a, b = speed_data(n)
    rows = [("sigtest DeLong().test", lambda: DeLong().test(y, a, b).params["test_statistic"])]
    try:
        from MLstatkit import Delong_test
        from importlib.metadata import version

        rows.append((f"MLstatkit {version('MLstatkit')} Delong_test",
                     lambda: Delong_test(y, a, b, return_ci=False, return_auc=False)[0]))
    except ImportError:
        print("MLstatkit is not installed (pip install MLstatkit): its row is left out.")
    rows.append(("NumPy Sun & Xu (rankdata)", lambda: sun_xu_delong(y, a, b)))
    print(f"\nDeLong at N = {n:,} ({int(y.sum()):,} positives), best of {repeats} "
          f"after a warm-up; load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} "
          "cores")
    results = [(name, *_timed(fn, repeats)) for name, fn in rows]
    ref_wall, ref_cpu, ref_z = results[0][1:]
    print(f"{'':30s} {'wall s':>8} {'CPU s':>8} {'CPU / sigtest':>14} {'z':>20}")
    for name, wall, cpu, z in results:
        same = abs(z - ref_z) <= 1e-12 * max(1.0, abs(ref_z))
        print(f"{name:30s} {wall:8.3f} {cpu:8.3f} {cpu / ref_cpu:13.2f}x {z:20.14f}"
              + ("" if same else "  (differs!)"))
    print(f"load average after: {os.getloadavg()[0]:.2f}")


# --------------------------------------------------------------------------
# 2. size with few positives / negatives
# --------------------------------------------------------------------------
def binormal(rng, m, n, mu, rho=0.5):
    """Two equally good scorers: ``n`` negatives then ``m`` positives (shift ``mu``)."""
    cov = [[1.0, rho], [rho, 1.0]]
    e = rng.multivariate_normal([0.0, 0.0], cov, size=m + n)
    y = np.r_[np.zeros(n, dtype=int), np.ones(m, dtype=int)]
    return y, e[:, 0] + mu * y, e[:, 1] + mu * y


def delong_p(y, a, b):
    """DeLong's two-sided p from the structural components (the test's numbers)."""
    from scipy.special import ndtr

    from sigtest.tests_._delong import delong_components

    auc, cov, _, _ = delong_components(y, a, b)
    var = cov[0, 0] + cov[1, 1] - 2 * cov[0, 1]
    return float(2 * ndtr(-abs(auc[1] - auc[0]) / math.sqrt(var))) if var > 0 else 1.0


def size(reps, perm_reps, seed=2026):
    from sigtest import PairedPermutation

    se = math.sqrt(0.05 * 0.95 / reps)
    print(f"\nDeLong under H0 (two equally good binormal scorers, correlation .5): "
          f"rejection rate at .05 over {reps} data sets a cell (s.e. {se:.4f}; band "
          f"[{0.05 - 2.6 * se:.3f}, {0.05 + 2.6 * se:.3f}])")
    cells = [(m, 1000 - m) for m in (5, 10, 15, 20, 25, 30, 40, 50)]
    cells += [(1000 - 10, 10), (1000 - 25, 25), (15, 15), (25, 25), (30, 30), (6, 24)]
    print(f"{'positives':>9} {'negatives':>9} " + " ".join(
        f"{'AUC ' + format(0.5 * (1 + math.erf(mu / 2)), '.2f'):>9}" for mu in (1.0, 2.0)))
    for m, n in cells:
        rates = []
        for mu in (1.0, 2.0):
            rng = np.random.default_rng([seed, m, n, int(10 * mu)])
            hits = sum(delong_p(*binormal(rng, m, n, mu)) <= 0.05 for _ in range(reps))
            rates.append(hits / reps)
        print(f"{m:>9} {n:>9} " + " ".join(f"{r:>9.3f}" for r in rates), flush=True)
    print(f"\nPairedPermutation (B = 999) at few positives, N = 1,000, AUC .76: "
          f"{perm_reps} data sets")
    test = PairedPermutation(n_resamples=999, n_jobs=1)
    for m in (5, 10):
        rng = np.random.default_rng([seed, m, 7])
        hits = 0
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for r in range(perm_reps):
                test.set_params(random_state=r)
                y, a, b = binormal(rng, m, 1000 - m, 1.0)
                hits += test.test(y, a, b, metric="roc_auc").pvalue <= 0.05
        print(f"{m:>9} positives: {hits / perm_reps:.3f}", flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", choices=("speed", "size"))
    parser.add_argument("--quick", action="store_true",
                        help="N = 10^5 and a quarter of the data sets")
    parser.add_argument("--reps", type=int, default=4000)
    args = parser.parse_args()
    if args.only in (None, "speed"):
        speed(10**5 if args.quick else 10**6, 3)
    if args.only in (None, "size"):
        reps = args.reps // 4 if args.quick else args.reps
        size(reps, 250 if args.quick else 1000)


if __name__ == "__main__":
    main()
