"""Size and coverage of the bootstrap tests on rank and regression metrics at small N.

The measurements behind ``RANK_MIN_CLASS_ITEMS`` and ``REGRESSION_MIN_N``
(sigtest/_engine/small_sample.py) and their tables in docs/which_test.md.
Every item of these metrics is discordant, so the general small-sample rule
(N and discordant items) never warns on them. Seeded: ``python
benchmarks/bench_small_samples_ranking.py`` prints the same tables every run
(about 12 minutes of CPU; ``--quick`` divides the data sets by 4, ``--only
1`` or ``--only 2`` runs one table).

Table 1. Rank metrics under H0: y with P positives among N items, two
equally good binormal scorers ``y + e`` whose noises are correlated (rho =
.5). ROC AUC: 1,000 data sets a cell; average precision: 600 (its BCa
jackknife takes the slow path), 400 for its last cell (N = 400, 200 positives).

Table 2. Regression metrics under H0: ``y ~ N(0, 1)``, A and B exchangeable
predictions ``y + c + e`` with a shared error ``c ~ N(0, .25)`` and own
errors ``e ~ N(0, .25)``. Two seeded runs of 1,000 data sets (the second at
N = 50, 100, 150, to settle the cells near the limits); the table shows
each run.

Columns: two-sided rejection rate at .05 of BCa (its interval-inverted p),
of the Berg-Kirkpatrick bootstrap (``alternative="two-sided"``) and of the
paired permutation test (of ranks, for the rank metrics), B = 999, and the
coverage of the true difference 0 by BCa's 95 % interval. With 1,000 data
sets a size of .05 is measured within about +-.014 (2 SE).
"""

from __future__ import annotations

import argparse
import time
import warnings

import numpy as np

from sigtest import BCaInterval, BergKirkpatrickBootstrap, PairedPermutation

ALPHA = 0.05
B = 999


def _tests():
    return {"bca": BCaInterval(n_resamples=B, n_jobs=1),
            "bk": BergKirkpatrickBootstrap(n_resamples=B, alternative="two-sided", n_jobs=1),
            "perm": PairedPermutation(n_resamples=B, n_jobs=1)}


def rank_data(rng, n, n_pos):
    y = np.zeros(n, dtype=int)
    y[:n_pos] = 1
    z = rng.standard_normal((n, 3))
    return y, y + (z[:, 0] + z[:, 2]) / np.sqrt(2), y + (z[:, 1] + z[:, 2]) / np.sqrt(2)


def regression_data(rng, n):
    y = rng.standard_normal(n)
    c = 0.5 * rng.standard_normal(n)
    return y, y + c + 0.5 * rng.standard_normal(n), y + c + 0.5 * rng.standard_normal(n)


def cell(metric, n, n_pos, reps, seed_tail=()):
    """Rejection rates and BCa coverage of one cell (its own seeded stream)."""
    rng = np.random.default_rng([n, n_pos, len(metric), *seed_tail])
    tests = _tests()
    hits = dict.fromkeys(tests, 0)
    cover = 0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for r in range(reps):
            y, a, b = rank_data(rng, n, n_pos) if n_pos else regression_data(rng, n)
            for name, test in tests.items():
                res = test.set_params(random_state=r).test(y, a, b, metric=metric)
                hits[name] += res.pvalue <= ALPHA
                if name == "bca":
                    lo, hi = res.confidence_interval
                    cover += lo <= 0.0 <= hi
    return {k: v / reps for k, v in hits.items()} | {"cover": cover / reps}


def _row(label, rates):
    return f"{label:>38} " + " ".join(f"{rates[k]:>6.3f}" for k in ("bca", "bk", "perm", "cover"))


def table_rank(div):
    print("\nTable 1. Rank metrics, H0: two-sided size at .05 and BCa coverage")
    print(f"{'metric, N, positives':>38} {'BCa':>6} {'BK':>6} {'perm':>6} {'cover':>6}")
    grid = {"roc_auc": ((200, 10), (200, 20), (200, 30), (200, 50), (200, 100), (100, 30),
                        (100, 50), (1000, 10), (1000, 30), (1000, 50), (1000, 100)),
            "average_precision": ((200, 10), (200, 30), (200, 50), (200, 100), (100, 30),
                                  (100, 50), (400, 50))}
    for metric, reps in (("roc_auc", 1000), ("average_precision", 600)):
        for n, n_pos in grid[metric]:
            print(_row(f"{metric}, N = {n}, P = {n_pos}", cell(metric, n, n_pos, reps // div)),
                  flush=True)
    # balanced average precision at N = 400 (BCa's jackknife is slow there): 400 data sets
    print(_row("average_precision, N = 400, P = 200",
               cell("average_precision", 400, 200, 400 // div)), flush=True)


def table_regression(div):
    print("\nTable 2. Regression metrics, H0: two-sided size at .05 and BCa coverage")
    print(f"{'metric, N (run)':>38} {'BCa':>6} {'BK':>6} {'perm':>6} {'cover':>6}")
    metrics = ("root_mean_squared_error", "r2", "mean_absolute_error", "mean_squared_error")
    for tail, sizes in (((), (20, 30, 50, 100, 200)), ((7,), (50, 100, 150))):
        for n in sizes:
            for metric in metrics:
                print(_row(f"{metric}, N = {n} ({'2' if tail else '1'})",
                           cell(metric, n, 0, 1000 // div, tail)), flush=True)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a quarter of the data sets")
    parser.add_argument("--only", type=int, default=0, help="run one table (1 or 2)")
    args = parser.parse_args(argv)
    div = 4 if args.quick else 1
    t0, c0 = time.perf_counter(), time.process_time()
    if args.only in (0, 1):
        table_rank(div)
    if args.only in (0, 2):
        table_regression(div)
    print(f"\n{time.perf_counter() - t0:.0f} s wall, {time.process_time() - c0:.0f} s CPU")


if __name__ == "__main__":
    main()
