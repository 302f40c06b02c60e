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

4. ``--table``: the bootstrap tests on ``roc_auc`` and ``average_precision`` at
   N = 10^4, 10^5, 10^6 (``BergKirkpatrickBootstrap``, ``BCaInterval``,
   ``BayesianBootstrap``; B = 10^4, ``--large-resamples`` at 10^6), wall and CPU
   seconds (``time.process_time``: all threads of the process), against a
   numba minimum-work loop on the same N and B (each resample draws N items
   with the kernels' generator and adds one float per draw, ``prange`` over
   resamples: the generic kernel's gather path, the cost of the draws alone), with the ratio and the load
   average; each test on the one-byte lane kernel (``_GROUP_SUMS = False``,
   :mod:`sigtest._engine.rank_lanes`) and on the default path (tie-group sums up to
   2^22 items, :mod:`sigtest._engine.rank_group_sums`), interleaved; the rank kernel of
   the bootstrap alone (``rank_bootstrap_scores``) on each path: the item kernel (one
   resample per pass), the lanes, the groups; and the Bayesian bootstrap's floor: each
   draw's N exponentials (the kernel's ziggurat on its stream) and their sum, nothing
   else, on the same threads. ``--sizes`` picks the N.
   BCa on average precision is not timed here (see section 5).

5. ``--jackknife``: the leave-one-out values of BCa's acceleration
   (``jackknife_values``) of binary average precision at N = 10^4 and 10^5,
   and of ``roc_auc_ovr`` and macro average precision at 2,000 x 3 and
   10^5 x 5 classes: before, one pass of ``rank_weighted_scores`` over the
   sorted orders per left-out item (``_jackknife_ranked``, ``O(N^2)``; timed
   on ``--before-units`` left-out items and scaled to N when N is larger,
   the table says so); after, the closed forms of
   :mod:`sigtest._engine.rank_jackknife` (``O(N K)``). Then
   ``sigtest.score(y, proba, metric="average_precision", method="bca")`` at
   N = 10^5 with the closed form (before: its jackknife, scaled, plus the
   rest of the call). Wall and CPU seconds, load average before and after.

Times are medians of ``--repeats`` runs after a warm-up call (numba compiled
or loaded from its cache); each sigtest call gets a new seed. Run on an idle
machine for the published figures. Usage: ``python benchmarks/bench_auc.py
[--quick] [--table]``.
"""

from __future__ import annotations

import argparse
import os
import time

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


def min_work_loop():
    """The numba loop that only draws: N items per resample, one float added per draw.

    The generic kernel's gather path (``kernels._boot_one`` on one column,
    ``prange`` over resamples): the kernels' generator, no other work.
    """
    from sigtest._engine import kernels

    def loop(x, keys):
        return kernels.split_rows(lambda s, e: kernels._bootstrap_sums_generic(
            x[:, None], np.int64(x.shape[0]), keys[s:e]), keys.shape[0], True)

    return loop


def exponential_loop():
    """The Bayesian bootstrap's floor: each draw's N exponentials and their sum, no pass.

    The weights of ``rank_dirichlet`` (same generator, same stream per
    draw, the sum in draw order), ``prange``-free like the kernel: parts of
    the draws in threads (``split_rows``).
    """
    import numba

    from sigtest._engine import kernels, rank_dirichlet

    draw = rank_dirichlet._exponential

    @numba.njit(nogil=True)
    def sums(n, keys):
        out = np.empty(keys.shape[0])
        for b in range(keys.shape[0]):
            z = keys[b]
            total = 0.0
            for _ in range(n):
                e, z = draw(z)
                total += e
            out[b] = total
        return out

    return lambda n, keys: kernels.split_rows(lambda s, e: sums(n, keys[s:e]), keys.shape[0],
                                              True)


def timed(fn):
    """``(wall, cpu)`` seconds of one call (CPU of all the process's threads)."""
    w, c = time.perf_counter(), time.process_time()
    fn()
    return time.perf_counter() - w, time.process_time() - c


def bootstrap_table(args):
    """Section 4: the bootstrap tests on rank metrics against the minimum-work loop."""
    from sigtest import BayesianBootstrap, BCaInterval, BergKirkpatrickBootstrap
    from sigtest._engine import prepare_paired, rank_metrics
    from sigtest._engine.rng import resample_keys

    loop = min_work_loop()
    loop(np.ones(10), resample_keys(0, 4))  # compile
    exponentials = exponential_loop()
    exponentials(10, resample_keys(0, 4))
    sizes = (10_000, 100_000) if args.quick else (10_000, 100_000, 1_000_000)
    if args.sizes:
        sizes = tuple(int(float(v)) for v in args.sizes.split(","))
    print("\nBootstrap tests on rank metrics; seconds wall [CPU]; ratio = wall [CPU] / the "
          "minimum-work loop's; 'lanes': the one-byte lane kernel only, 'groups': the default "
          "path (tie-group sums up to 2^22 items)")
    for n in sizes:
        B = args.large_resamples if n > 100_000 else (2_000 if args.quick else 10_000)
        y, a, b = data(n)
        keys = resample_keys(1, B)
        x = np.random.default_rng(0).random(n)
        loop(x, keys[:8])
        w_min, c_min = timed(lambda: loop(x, keys))
        print(f"\nN = {n:,}, B = {B:,}: minimum-work loop {w_min:6.2f} s [{c_min:6.2f}]  "
              f"load {os.getloadavg()[0]:.1f}")
        w, c = timed(lambda: exponentials(n, keys))
        print(f"  {'Bayesian floor: the exponentials only':52s} {w:7.2f} s [{c:7.2f}]  ratio "
              f"{w / w_min:5.2f} [{c / c_min:5.2f}]  (its weights alone: the goal of 2x "
              f"needs the passes within the rest)")
        for metric in ("roc_auc", "average_precision"):
            tests = [BergKirkpatrickBootstrap, BCaInterval, BayesianBootstrap]
            if metric == "average_precision":
                tests.remove(BCaInterval)  # the jackknife of the slow path: N score calls
            for cls in tests:
                cls(n_resamples=64, random_state=0).test(y, a, b, metric=metric)  # warm
                # before (lane kernel only) and after (tie-group sums where faster), interleaved
                for label, groups in (("lanes", False), ("groups", True)):
                    rank_metrics._GROUP_SUMS = groups
                    try:
                        w, c = timed(lambda: cls(n_resamples=B, random_state=1).test(
                            y, a, b, metric=metric))
                    finally:
                        rank_metrics._GROUP_SUMS = True
                    print(f"  {metric:18s} {cls.__name__ + ', ' + label:33s} {w:7.2f} s "
                          f"[{c:7.2f}]  ratio {w / w_min:5.2f} [{c / c_min:5.2f}]  "
                          f"load {os.getloadavg()[0]:.1f}")
            paired = prepare_paired(y, a, b, metric)
            ranked = rank_metrics.ranked_pair(paired)

            def kernels(path, n_res):
                saved = rank_metrics._LANE_MAX_DRAWS, rank_metrics._GROUP_SUMS
                rank_metrics._LANE_MAX_DRAWS = -1 if path == "items" else saved[0]
                rank_metrics._GROUP_SUMS = path == "groups"
                try:
                    return timed(lambda: rank_metrics.rank_bootstrap_scores(
                        paired, n_res, seed=2, ranked=ranked))
                finally:
                    rank_metrics._LANE_MAX_DRAWS, rank_metrics._GROUP_SUMS = saved

            paths = ("items", "lanes", "groups")
            for path in paths:  # warm-up: compiled or loaded from the cache
                kernels(path, 200)
            for path in paths:
                w, c = kernels(path, B)
                print(f"  {metric:18s} {'resampling only, ' + path:33s} {w:7.2f} s [{c:7.2f}]"
                      f"  ratio {w / w_min:5.2f} [{c / c_min:5.2f}]")


def _jackknife_cases():
    """Section 5's data sets: ``(label, y, a, b, metric, params)``."""
    cases = []
    for n in (10_000, 100_000):
        y, a, b = data(n)
        cases.append((f"average_precision binary N={n:,}", y, a, b, "average_precision", {}))
    for n, K in ((2_000, 3), (100_000, 5)):
        rng = np.random.default_rng(K)
        y = rng.integers(0, K, n)
        pa = np.round(rng.dirichlet(np.ones(K), n), 3)  # ties
        pa /= pa.sum(1, keepdims=True)
        pb = 0.7 * pa + 0.3 * np.eye(K)[y]
        for metric, params in (("roc_auc_ovr", {}), ("average_precision", {"average": "macro"})):
            cases.append((f"{metric} {n:,} x {K}", y, pa, pb, metric, params))
    return cases


def _before_jackknife(paired, n_units):
    """The one-pass path on the first ``n_units`` left-out units: ``(wall, cpu, scale)``."""
    from sigtest._engine.rank_metrics import rank_weighted_scores, ranked_pair

    rp = ranked_pair(paired)
    U = rp.n_resampling_units
    m = min(U, n_units)

    def run():
        for lo in range(0, m, 256):  # the blocks of _jackknife_ranked
            hi = min(m, lo + 256)
            W = np.ones((hi - lo, U))
            W[np.arange(hi - lo), np.arange(lo, hi)] = 0.0
            rank_weighted_scores(rp, W)

    wall, cpu = timed(run)
    return wall, cpu, U / m


def jackknife_table(args):
    """Section 5: the rank jackknife before (one pass per unit) and after (closed forms)."""
    import sigtest
    from sigtest._engine import prepare_paired
    from sigtest._engine.resampling.jackknife import _jackknife_auc, _jackknife_ranked

    print(f"load average before: {os.getloadavg()}")
    print(f"{'case':<42} {'before wall':>12} {'before CPU':>11} {'after wall':>11} "
          f"{'after CPU':>10} {'ratio CPU':>10}  max |diff|")
    small = prepare_paired(*data(300)[:3], "average_precision")
    _jackknife_ranked(small)  # compile / load the kernels
    for label, y, a, b, metric, params in _jackknife_cases():
        paired = prepare_paired(y, a, b, metric, **params)
        bw, bc, scale = _before_jackknife(paired, args.before_units)
        out = {}
        aw, ac = timed(lambda: out.setdefault("closed", _jackknife_auc(paired)))
        check = ""
        if scale == 1.0:  # full before run: compare the values
            ref = _jackknife_ranked(paired)
            check = f"{np.nanmax(np.abs(out['closed'][0] - ref[0])):.1e}"
        note = "" if scale == 1.0 else f" (x{scale:.0f} scaled)"
        print(f"{label:<42} {bw * scale:>11.2f}s {bc * scale:>10.2f}s {aw:>10.3f}s "
              f"{ac:>9.3f}s {bc * scale / max(ac, 1e-9):>9.0f}x  {check}{note}")
    n = 100_000
    y, a, _ = data(n)
    proba = 1.0 / (1.0 + np.exp(-a))
    paired = prepare_paired(y, proba, proba, "average_precision")
    bw, bc, scale = _before_jackknife(paired, args.before_units)
    aw, ac = timed(lambda: sigtest.score(y, proba, metric="average_precision", method="bca",
                                         random_state=0))
    jw, jc = timed(lambda: _jackknife_auc(paired))
    # before: the same call with the one-pass jackknife (both columns, as _jackknife_ranked)
    print(f"score(average_precision, bca) N={n:,}: after {aw:.2f}s wall, {ac:.2f}s CPU "
          f"(closed-form jackknife {jw:.3f}s wall); before (estimated: the call minus the "
          f"closed form plus the one-pass jackknife, x{scale:.0f} scaled) "
          f"{aw - jw + bw * scale:.0f}s wall, {ac - jc + bc * scale:.0f}s CPU")
    print(f"load average after: {os.getloadavg()}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer reference resamples")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--scipy-resamples", type=int, default=50)
    parser.add_argument("--table", action="store_true",
                        help="only section 4: the bootstrap tests against the minimum-work loop")
    parser.add_argument("--sizes", default="",
                        help="section 4's N, comma-separated (default 1e4,1e5,1e6)")
    parser.add_argument("--large-resamples", type=int, default=1_000,
                        help="resamples of section 4 at N = 10^6")
    parser.add_argument("--jackknife", action="store_true",
                        help="only section 5: the rank jackknife before and after")
    parser.add_argument("--before-units", type=int, default=2_560,
                        help="section 5: left-out units timed on the one-pass path")
    args = parser.parse_args()
    if args.jackknife:
        jackknife_table(args)
        return
    if args.table:
        import numba

        print(f"cores: {os.cpu_count()}, numba threads: {numba.get_num_threads()}")
        bootstrap_table(args)
        return

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
