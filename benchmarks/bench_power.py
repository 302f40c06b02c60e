"""Speed of ``sigtest.power``: 1,000 simulations x B = 1,000 permutations, N = 10,000 hard labels.

Goal (issue 13, section 1): under 10 s on 2 cores. The pilot is N = 10,000
binary labels with A 80 % accurate; the candidate is +1 accuracy point (the
default perturbation model); each simulated test set has N items and is
tested with ``PairedPermutation(n_resamples=1000)`` (the default test of
``power``: the engine picks its exact lattice path when cheaper than the
Monte Carlo run) and, second, with ``exact=False`` (1,000 Monte Carlo
permutations of the compressed cells).

Naive twin (the way one would do it with SciPy): per simulation, resample
N items with NumPy, build B item by item with the same model, and run
``scipy.stats.permutation_test`` (paired, ``permutation_type="samples"``,
vectorised, 1,000 resamples) on the per-item correctness; timed on a few
simulations and extrapolated to 1,000.

Usage: ``python benchmarks/bench_power.py [--quick]`` (``--quick``: 200
simulations, extrapolated). The machine may be shared: the script prints the
wall time and the CPU time of the process.
"""

from __future__ import annotations

import argparse
import os
import time

import numpy as np

import sigtest
from sigtest import PairedPermutation

N = 10_000
B = 1_000
EFFECT = 0.01


def pilot(seed=0):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, N)
    a = np.where(rng.random(N) < 0.8, y, 1 - y)
    return y, a


def naive_power(y, a, p_fix, p_break, n_sims, seed=0):
    """Resample items, build B item by item, SciPy's permutation test on each pair."""
    from scipy.stats import permutation_test

    rng = np.random.default_rng(seed)
    hits = 0
    for _ in range(n_sims):
        idx = rng.integers(0, N, N)
        yt, ya = y[idx], a[idx]
        u = rng.random(N)
        b = ya.copy()
        wrong = ya != yt
        b[wrong & (u < p_fix)] = yt[wrong & (u < p_fix)]
        brk = ~wrong & (u < p_break)
        b[brk] = 1 - yt[brk]
        ca, cb = (ya == yt).astype(float), (b == yt).astype(float)
        res = permutation_test((ca, cb), lambda x, z, axis: np.mean(z - x, axis=axis),
                               permutation_type="samples", n_resamples=B, vectorized=True,
                               random_state=rng)
        hits += res.pvalue <= 0.05 and cb.mean() > ca.mean()
    return hits / n_sims


def timed(func):
    t0, c0 = time.perf_counter(), time.process_time()
    out = func()
    return out, time.perf_counter() - t0, time.process_time() - c0


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args(argv)
    n_sims = 200 if args.quick else 1000
    y, a = pilot()
    print(f"cores: {os.cpu_count()}, load average: {os.getloadavg()}")
    # warm-up: numba kernels, SciPy
    sigtest.power(y, a, effect=EFFECT, n_simulations=5, random_state=0)
    sigtest.power(y, a, effect=EFFECT, n_simulations=5, random_state=0,
                  test=PairedPermutation(n_resamples=B, exact=False))

    rows = []
    for label, test in (("default (exact/lattice when cheaper)", None),
                        ("exact=False (1,000 MC permutations)",
                         PairedPermutation(n_resamples=B, exact=False))):
        res, wall, cpu = timed(lambda test=test: sigtest.power(
            y, a, effect=EFFECT, n_simulations=n_sims, random_state=0, test=test))
        scale = 1000 / n_sims
        rows.append((label, res, wall * scale, cpu * scale))
        print(f"sigtest.power, {label}: {n_sims} simulations in {wall:.2f} s wall "
              f"({cpu:.2f} s CPU); per 1,000 simulations: {wall * scale:.2f} s; "
              f"power = {res.power:.3f} [{res.power_interval.low:.3f}, "
              f"{res.power_interval.high:.3f}]")
    model = rows[0][1].model
    k = 3
    naive, wall, cpu = timed(lambda: naive_power(y, a, model["p_fix"], model["p_break"], k))
    naive_1000 = wall / k * 1000
    print(f"naive NumPy + scipy.stats.permutation_test: {k} simulations in {wall:.2f} s; "
          f"extrapolated to 1,000: {naive_1000:.0f} s")
    for label, _, per_1000, _ in rows:
        print(f"ratio naive / sigtest ({label}): {naive_1000 / per_1000:.0f}x")
    goal = rows[0][2] < 10
    print(f"goal < 10 s per 1,000 simulations (default test): {'met' if goal else 'NOT met'} "
          f"({rows[0][2]:.2f} s)")


if __name__ == "__main__":
    main()
