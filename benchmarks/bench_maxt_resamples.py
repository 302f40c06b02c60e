"""Family-wise error of compare's max-T correction against the number of resamples B.

``compare(..., correction="max-t")`` studentizes every pair's difference by the
standard deviation of its B bootstrap differences and compares the largest
observed statistic with the largest resampled one (``sigtest._engine.maxt``).
With few resamples the family-wise error (FWER) exceeds alpha: the observed
statistics carry the noise of their estimated standard errors (relative error
about ``1 / sqrt(2 B)``), the resampled ones, standardized by those same
draws, do not, and the maximum over many pairs sits far in the tail, where a
few percent of scale matter. This script measures the FWER under the
complete null (all systems equally good) for families of m pairs and a grid
of B, to choose the smallest B at which max-T holds
(``sigtest._engine.maxt.maxt_min_resamples``), then checks that rule.

Part 1, the Gaussian limit: the system scores are ``X ~ N(0, I_k)`` and their
bootstrap draws ``X + Z_b`` with ``Z_b ~ N(0, I_k)``. This is *exactly* the
distribution of compare's multiplier draws given the data
(``sigtest._engine.multiplier``: ``T_b = T + L z_b``), and the large-N limit
of the resampled draws; for k exchangeable systems the pairs' studentized
differences do not depend on the systems' correlation, so ``I_k`` is no
loss of generality. Column ``oracle`` uses the true standard error instead
of the bootstrap one (at the smallest B of the grid): the excess disappears,
which locates its cause. The draws of the smaller B are the first rows of
the largest (nested), so a row's B values share their data sets.

Part 3: the same Gaussian limit at ``B = maxt_min_resamples(m)`` for each
family, the rule compare enforces.

Part 2, the resampled bootstrap on the model of ``tests/workflows/compare/test_maxt.py``
(binary correctness with a shared item difficulty on the logit scale, every
system right with probability ``sigmoid(0.85 + u_i)``, N = 10^4 items), at
B = 199 and at the enforced minimum: checks that the Gaussian limit is the
right guide at N = 10^4.

Part 4, the engine's multiplier draws (``sigtest._engine.multiplier``) of the
same binary systems at their default B (9,999: ``BCaInterval()``'s, which
compare's max-T default uses) for 50 systems (1,225 pairs).

Under the complete null the step-down max-T rejects some pair iff its first
step does (the largest statistic against the maximum over all pairs), which
is what is computed here; the script checks it against
``sigtest._engine.maxt.maxt_pvalues`` on its first replicates.

Usage (seeded; CPU seconds and the load average are printed)::

    python benchmarks/bench_maxt_resamples.py            # the published grid
    python benchmarks/bench_maxt_resamples.py --quick    # a smoke run
"""

from __future__ import annotations

import argparse
import itertools
import os
import time

import numpy as np
from scipy import stats

from sigtest._engine.maxt import maxt_min_resamples, maxt_pvalues

ALPHA = 0.05


def pairs_of(k, family):
    """Index arrays ``(ia, ib)`` of a family: all pairs of k systems, or k - 1 against system 0."""
    if family == "all":
        return map(np.array, zip(*itertools.combinations(range(k), 2)))
    return np.zeros(k - 1, dtype=int), np.arange(1, k)


def first_step_rejects(delta, centred, alpha=ALPHA, se=None):
    """Whether the max-T step-down rejects any pair: ``1 + #{M*_b >= max t} <= alpha (B + 1)``.

    ``centred`` holds the bootstrap differences minus ``delta`` (B, m); the
    standard errors are their standard deviations (``ddof=1``) unless ``se``.
    """
    B = centred.shape[0]
    if se is None:
        se = centred.std(axis=0, ddof=1)
    t = np.max(np.abs(delta) / se)
    maxima = np.max(np.abs(centred) / se, axis=1)
    return 1 + np.count_nonzero(maxima >= t) <= alpha * (B + 1)


def gaussian_fwer(k, family, grid, reps, seed):
    """Rejection counts per B of the Gaussian limit, and of the oracle-se test at grid[0]."""
    rng = np.random.default_rng(seed)
    ia, ib = pairs_of(k, family)
    b_max = max(grid)
    counts = dict.fromkeys(grid, 0)
    oracle = 0
    for r in range(reps):
        x = rng.normal(size=k)
        z = rng.normal(size=(b_max, k))
        delta = x[ib] - x[ia]
        centred = z[:, ib] - z[:, ia]
        for B in grid:
            counts[B] += bool(first_step_rejects(delta, centred[:B]))
        oracle += bool(first_step_rejects(delta, centred[:grid[0]], se=np.sqrt(2.0)))
        if r < 3:  # the shortcut is the engine's first step
            boot = x + z[:grid[0]]
            res = maxt_pvalues(delta, boot[:, ib] - boot[:, ia])
            assert (res.step_down.min() <= ALPHA) == first_step_rejects(delta, centred[:grid[0]])
    return counts, oracle


def binary_fwer(k, grid, reps, seed, n=10_000, spread=2.0, logit=0.85):
    """Rejection counts per B of the resampled bootstrap on correlated binary systems."""
    rng = np.random.default_rng(seed)
    ia, ib = pairs_of(k, "all")
    b_max = max(grid)
    counts = dict.fromkeys(grid, 0)
    for _ in range(reps):
        correct = binary_systems(rng, n, k, spread, logit)
        full = correct.mean(axis=0)
        boot = np.empty((b_max, k))
        for start in range(0, b_max, 500):  # items drawn with replacement, 500 resamples at a time
            size = min(500, b_max - start)
            idx = rng.integers(0, n, (size, n)) + (n * np.arange(size))[:, None]
            w = np.bincount(idx.ravel(), minlength=size * n).reshape(size, n)
            boot[start:start + size] = w.astype(np.float64) @ correct / n
        delta = full[ib] - full[ia]
        centred = boot[:, ib] - boot[:, ia] - delta
        for B in grid:
            counts[B] += bool(first_step_rejects(delta, centred[:B]))
    return counts


def binary_systems(rng, n, k, spread=2.0, logit=0.85):
    """Per-item correctness (n, k) of k null systems sharing an item difficulty."""
    u = rng.normal(0.0, spread, n)[:, None] + logit
    return (rng.random((n, k)) < 1 / (1 + np.exp(-u))).astype(np.float64)


def multiplier_fwer(k, n_boot, reps, seed, n=10_000):
    """Rejections of max-T on the engine's Gaussian multiplier draws (compare's
    ``bootstrap="multiplier"``) of k null binary systems' accuracies."""
    from sigtest._engine.multiplier import jackknife_covariance, multiplier_draws

    rng = np.random.default_rng(seed)
    ia, ib = pairs_of(k, "all")
    hits = 0
    for rep in range(reps):
        correct = binary_systems(rng, n, k)
        totals = correct.sum(axis=0)
        columns = [(correct[:, s].astype(np.uint8),
                    (totals[s] - np.array([0.0, 1.0])) / (n - 1)) for s in range(k)]
        full = correct.mean(axis=0)
        T = multiplier_draws(full, jackknife_covariance(columns), n_boot, rep)
        delta = full[ib] - full[ia]
        hits += bool(first_step_rejects(delta, T[:, ib] - T[:, ia] - delta))
    return hits


def row(label, m, B, x, reps):
    """A table row: the FWER, its 95 % Clopper-Pearson interval, the one-sided p of FWER <= alpha."""
    ci = stats.binomtest(x, reps).proportion_ci(0.95)
    p_excess = stats.binom.sf(x - 1, reps, ALPHA)
    return (f"| {label} | {m} | {B} | {reps} | {x / reps:.4f} | [{ci.low:.3f}, {ci.high:.3f}] "
            f"| {p_excess:.3g} |")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="few replicates (a smoke run)")
    parser.add_argument("--part", choices=["1", "2", "3", "4", "all"], default="all",
                        help="1: B grid; 2: resampled binary systems; 3: at the enforced B; "
                             "4: multiplier draws at their default B")
    args = parser.parse_args()
    start_cpu = time.process_time()
    print(f"load average: {os.getloadavg()}")
    header = ("| family | pairs m | B | replicates | FWER | 95 % CI | P(X >= x; FWER = .05) |\n"
              "|---|---|---|---|---|---|---|")
    if args.part in ("1", "all"):
        print("\nPart 1: Gaussian limit (= multiplier draws), two-sided, alpha = .05\n")
        print(header)
        plan = [  # (k, family, grid, replicates)
            (3, "all", (99, 199, 499, 999), 4000),
            (5, "all", (99, 199, 499, 999), 4000),
            (11, "baseline", (199, 499, 999, 1999), 4000),
            (10, "all", (199, 499, 999, 1999), 4000),
            (20, "all", (199, 499, 999, 1999), 4000),
            (30, "all", (199, 499, 999, 1999, 4999), 4000),
            (51, "baseline", (199, 499, 999, 1999), 4000),
            (50, "all", (199, 999, 1999), 1500),
        ]
        for i, (k, family, grid, reps) in enumerate(plan):
            reps = max(100, reps // 20) if args.quick else reps
            t0 = time.process_time()
            counts, oracle = gaussian_fwer(k, family, grid, reps, seed=20261202 + i)
            m = k * (k - 1) // 2 if family == "all" else k - 1
            label = f"{k} systems, {family}"
            for B in grid:
                print(row(label, m, B, counts[B], reps))
            print(row(label + ", oracle se", m, grid[0], oracle, reps)
                  + f" <!-- {time.process_time() - t0:.0f} CPU s -->", flush=True)
    if args.part in ("3", "all"):
        print("\nPart 3: Gaussian limit at the enforced minimum B = maxt_min_resamples(m)\n")
        print(header)
        plan = [(3, "all", 4000), (5, "all", 4000), (11, "baseline", 4000), (10, "all", 4000),
                (20, "all", 4000), (30, "all", 4000), (51, "baseline", 4000),
                (50, "all", 2000)]
        for i, (k, family, reps) in enumerate(plan):
            reps = max(100, reps // 20) if args.quick else reps
            m = k * (k - 1) // 2 if family == "all" else k - 1
            B = maxt_min_resamples(m, ALPHA)
            t0 = time.process_time()
            counts, _ = gaussian_fwer(k, family, (B,), reps, seed=20261212 + i)
            print(row(f"{k} systems, {family}", m, B, counts[B], reps)
                  + f" <!-- {time.process_time() - t0:.0f} CPU s -->", flush=True)
    if args.part in ("2", "all"):
        print("\nPart 2: resampled bootstrap, binary systems, N = 10^4, alpha = .05\n")
        print(header)
        t0 = time.process_time()
        # B = 199 alone on more data sets (cheap), then both B on the same data sets
        for grid, reps, seed in (((199,), 2000, 20261213),
                                 ((199, maxt_min_resamples(435, ALPHA)), 400, 20261203)):
            reps = max(20, reps // 20) if args.quick else reps
            counts = binary_fwer(30, grid, reps, seed=seed)
            for B, x in counts.items():
                print(row("30 systems, all, resampled", 435, B, x, reps), flush=True)
        print(f"<!-- {time.process_time() - t0:.0f} CPU s -->")
    if args.part in ("4", "all"):
        print("\nPart 4: the engine's multiplier draws at their default B = 9,999, binary "
              "systems, N = 10^4, alpha = .05\n")
        print(header)
        reps = 20 if args.quick else 500
        t0 = time.process_time()
        x = multiplier_fwer(50, 9999, reps, seed=20261204)
        print(row("50 systems, all, multiplier", 1225, 9999, x, reps)
              + f" <!-- {time.process_time() - t0:.0f} CPU s -->", flush=True)
    print(f"\nCPU seconds: {time.process_time() - start_cpu:.0f}; load average: "
          f"{os.getloadavg()}")


if __name__ == "__main__":
    main()
