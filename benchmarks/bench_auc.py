"""ROC AUC resampling and DeLong's test (issue 22 s2): sigtest against the references.

1. ``BergKirkpatrickBootstrap(n_resamples=10_000).test(y, a, b, metric="roc_auc")``
   at N = 10^5 (goal: at most 2 s on 2 cores). sigtest sorts each system's
   scores once and computes every resample's two AUCs in one O(N) pass over
   the sorted orders (``sigtest._engine.rank_metrics``). The reference is
   ``scipy.stats.bootstrap`` (paired, percentile) of
   ``roc_auc_score(y, b) - roc_auc_score(y, a)``: about 10 ms per resample,
   so it is timed on ``--scipy-resamples`` resamples (default 50) and scaled
   to 10,000 (the table says so).
2. The same for ``PairedPermutation`` (merge of the two sorted orders per
   permutation) against a NumPy loop calling ``roc_auc_score`` on the
   swapped predictions (timed on a few permutations and scaled).
3. ``DeLong().test`` at N = 10^4 against a naive O(m n) DeLong (the double
   loop over positives and negatives, vectorised per positive in NumPy).

Times are medians of ``--repeats`` runs after a warm-up call (numba compiled
or loaded from its cache); each sigtest call gets a new seed. Run on an idle
machine for the published figures. Usage: ``python benchmarks/bench_auc.py
[--quick]``.
"""

from __future__ import annotations

import argparse
import os

import numpy as np

from bench_clustered import median_time  # the scripts' shared timer (this folder)


def data(n, seed=0):
    """Binary labels and two real-valued scorers (AUC about 0.76 and 0.79), with ties."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    common = rng.normal(size=n)
    a = np.round(common + rng.normal(size=n) + 1.0 * y, 3)
    b = np.round(common + rng.normal(size=n) + 1.15 * y, 3)
    return y, a, b


def naive_delong(y, a, b):
    """DeLong et al. (1988) by definition: placements by the m x n comparison."""
    out = []
    m, n = int(y.sum()), int((1 - y).sum())
    for s in (a, b):
        pos, neg = s[y == 1], s[y == 0]
        v10 = np.array([((p > neg).sum() + 0.5 * (p == neg).sum()) / n for p in pos])
        v01 = np.array([((pos > q).sum() + 0.5 * (pos == q).sum()) / m for q in neg])
        out.append((v10, v01))
    s10 = np.cov(np.stack([out[0][0], out[1][0]]))
    s01 = np.cov(np.stack([out[0][1], out[1][1]]))
    cov = s10 / m + s01 / n
    return (out[1][0].mean() - out[0][0].mean()) / np.sqrt(cov[0, 0] + cov[1, 1] - 2 * cov[0, 1])


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer reference resamples")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--scipy-resamples", type=int, default=50)
    args = parser.parse_args()

    from scipy import stats
    from sklearn.metrics import roc_auc_score

    from sigtest import BergKirkpatrickBootstrap, DeLong, PairedPermutation

    import numba

    print(f"cores: {os.cpu_count()}, numba threads: {numba.get_num_threads()}")
    B = 10_000
    n = 100_000
    y, a, b = data(n)
    seeds = iter(range(1, 10_000))

    t_sig = median_time(lambda: BergKirkpatrickBootstrap(n_resamples=B, random_state=next(
        seeds)).test(y, a, b, metric="roc_auc"), args.repeats)

    k = 10 if args.quick else args.scipy_resamples

    def scipy_boot():
        stats.bootstrap((y, a, b), lambda yy, aa, bb: roc_auc_score(yy, bb) - roc_auc_score(
            yy, aa), n_resamples=k, paired=True, vectorized=False, method="percentile",
            random_state=0)

    t_ref = median_time(scipy_boot, 1) * B / k
    print(f"\nBergKirkpatrickBootstrap(n_resamples={B}) on roc_auc, N = {n:,}")
    print(f"  sigtest (rank kernels)            {t_sig:8.2f} s   (goal <= 2 s on 2 cores)")
    print(f"  scipy.stats.bootstrap + sklearn   {t_ref:8.1f} s   (timed on {k} resamples, x {B // k})")
    print(f"  ratio scipy / sigtest             {t_ref / t_sig:8.0f} x")

    t_perm = median_time(lambda: PairedPermutation(n_resamples=B, random_state=next(
        seeds)).test(y, a, b, metric="roc_auc"), args.repeats)
    rng = np.random.default_rng(0)

    def numpy_perm():
        for _ in range(k):
            swap = rng.random(n) < 0.5
            roc_auc_score(y, np.where(swap, a, b)) - roc_auc_score(y, np.where(swap, b, a))

    t_perm_ref = median_time(numpy_perm, 1) * B / k
    print(f"\nPairedPermutation(n_resamples={B}) on roc_auc, N = {n:,}")
    print(f"  sigtest (pooled order, weights)   {t_perm:8.2f} s")
    print(f"  NumPy loop + roc_auc_score        {t_perm_ref:8.1f} s   (timed on {k}, x {B // k})")
    print(f"  ratio                             {t_perm_ref / t_perm:8.0f} x")

    n = 10_000
    y, a, b = data(n, seed=1)
    t_delong = median_time(lambda: DeLong().test(y, a, b), args.repeats)
    t_naive = median_time(lambda: naive_delong(y, a, b), 1)
    z = DeLong().test(y, a, b).params["test_statistic"]
    assert abs(z - naive_delong(y, a, b)) < 1e-9
    print(f"\nDeLong, N = {n:,}")
    print(f"  sigtest (Sun & Xu, one sort)      {t_delong * 1e3:8.1f} ms")
    print(f"  naive O(m n) DeLong (NumPy)       {t_naive * 1e3:8.1f} ms   (same z to 1e-9)")
    print(f"  ratio                             {t_naive / t_delong:8.0f} x")


if __name__ == "__main__":
    main()
