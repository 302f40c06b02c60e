"""Size, coverage and power of the bootstrap tests at small N and few discordant items.

The measurements behind ``BK_SMALL_SAMPLE_LIMITS`` / ``BCA_SMALL_SAMPLE_LIMITS``
(sigtest/_engine/small_sample.py), the ``SmallSampleWarning`` thresholds, and the
tables of ``docs/which_test.md``. Seeded: ``python benchmarks/bench_small_samples.py``
prints the same tables every run (about 15 minutes on one core; ``--quick``
divides the repetitions by 4).

Tables
------
1. Accuracy, H0, conditional on ``d`` discordant items (N = 100, the
   discordant items split Binomial(d, 1/2) between A and B): size at
   alpha = .05 of BCa (two-sided, raw inverted p and floored p), BK
   (one-sided "greater", raw and floored) and the exact permutation test.
2. H0 versus N, accuracy and macro-F1 (3 classes, A and B i.i.d. noisy
   copies of the gold labels with 70 % accuracy, so exchangeable): size and
   BCa coverage of the true difference 0.
3. Coverage of the BCa interval under an alternative (accuracy .70 vs .80,
   independent errors, true delta = .10) versus N.
4. Power at +2 accuracy points, N = 2000 (accuracy .80 vs .82, independent
   errors): BK, the BooStSa preset (10 % sub-samples, 1000 resamples), BCa
   and the permutation test.
5. and 6. More repetitions near the limits (BCa and BK, B = 499):
   accuracy versus d, macro-F1 versus N.
7. BCa on soft labels under H0 versus N (``BCA_SOFT_MIN_N``; only with
   ``--only 7``): 3 classes, gold Dirichlet(1), A and B i.i.d. predictions.

Warnings are silenced: the point is to measure what the tests return.
"""

from __future__ import annotations

import argparse
import time
import warnings

import numpy as np

from sigtest import BCaInterval, BergKirkpatrickBootstrap, PairedPermutation

ALPHA = 0.05


def _tests(B):
    return {
        "bca": BCaInterval(n_resamples=B, random_state=0, n_jobs=1),
        "bk": BergKirkpatrickBootstrap(n_resamples=B, alternative="greater", random_state=0,
                                       n_jobs=1),
        # BK's default since the naming round: two-sided
        "bk2": BergKirkpatrickBootstrap(n_resamples=B, random_state=0, n_jobs=1),
        "perm": PairedPermutation(n_resamples=B, random_state=0, n_jobs=1),
    }


def _run(tests, y, a, b, metric, seed, truth=0.0):
    out = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for name, test in tests.items():
            test.set_params(random_state=seed)
            res = test.test(y, a, b, metric=metric)
            out[name] = res.pvalue <= ALPHA
            if name in ("bca", "bk", "bk2"):
                raw = res.params["pvalue_unfloored"]
                out[name + "_raw"] = raw <= ALPHA
            if name == "bca":
                lo, hi = res.confidence_interval
                out["cover"] = lo <= truth <= hi
    return out


def _fmt(rate, reps):
    return f"{rate:.3f}"


def table_discordant(reps, B, rng):
    print("\nTable 1. Accuracy, H0, N = 100, d discordant items; rejection rate at .05 "
          f"({reps} data sets each, B = {B})")
    print(f"{'d':>4} {'BCa raw':>8} {'BCa':>8} {'BK raw':>8} {'BK':>8} {'BK2 raw':>8} "
          f"{'BK2':>8} {'perm':>8}   (BK: one-sided 'greater'; BK2: two-sided, the default)")
    tests = _tests(B)
    N = 100
    for d in (3, 4, 5, 6, 8, 10, 12, 15, 20, 30, 40):
        hits = {}
        for r in range(reps):
            y = np.zeros(N, dtype=int)
            a = y.copy()
            b = y.copy()
            favour_b = rng.random(d) < 0.5
            a[:d][favour_b] = 1   # A wrong, B right
            b[:d][~favour_b] = 1  # B wrong, A right
            for k, v in _run(tests, y, a, b, "accuracy", r).items():
                hits[k] = hits.get(k, 0) + bool(v)
        print(f"{d:>4} " + " ".join(f"{hits[k] / reps:>8.3f}"
                                    for k in ("bca_raw", "bca", "bk_raw", "bk", "bk2_raw",
                                              "bk2", "perm")))


def _noisy(y, acc, K, rng):
    wrong = rng.random(y.size) >= acc
    return np.where(wrong, (y + rng.integers(1, K, y.size)) % K, y)


def table_n(reps, B, rng, metric, K=3):
    print(f"\nTable 2. {metric}, H0 (A, B i.i.d. 70 % accurate, {K} classes); rejection "
          f"rate at .05 and BCa coverage ({reps} data sets each, B = {B})")
    print(f"{'N':>5} {'BCa':>8} {'cover':>8} {'BK':>8} {'perm':>8} {'med d':>6}")
    tests = _tests(B)
    for N in (10, 20, 30, 50, 100, 200):
        hits, ds = {}, []
        for r in range(reps):
            y = rng.integers(0, K, N)
            a = _noisy(y, 0.7, K, rng)
            b = _noisy(y, 0.7, K, rng)
            ds.append(int(np.count_nonzero(a != b)))
            for k, v in _run(tests, y, a, b, metric, r).items():
                hits[k] = hits.get(k, 0) + bool(v)
        print(f"{N:>5} " + " ".join(f"{hits[k] / reps:>8.3f}"
                                    for k in ("bca", "cover", "bk", "perm"))
              + f" {int(np.median(ds)):>6}")


def table_coverage_alt(reps, B, rng):
    print(f"\nTable 3. BCa coverage, accuracy .70 vs .80 (true delta .10), {reps} data sets, "
          f"B = {B}")
    print(f"{'N':>5} {'cover':>8}")
    test = BCaInterval(n_resamples=B, n_jobs=1)
    for N in (20, 30, 50, 100, 200):
        cover = 0
        for r in range(reps):
            y = rng.integers(0, 2, N)
            a = np.where(rng.random(N) < 0.7, y, 1 - y)
            b = np.where(rng.random(N) < 0.8, y, 1 - y)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                lo, hi = test.set_params(random_state=r).test(y, a, b).confidence_interval
            cover += lo <= 0.1 <= hi
        print(f"{N:>5} {cover / reps:>8.3f}")


def table_power(reps, rng):
    print(f"\nTable 4. Power at alpha = .05, accuracy .80 vs .82, N = 2000 ({reps} data sets)")
    tests = {
        "BK (B=1000, one-sided)": BergKirkpatrickBootstrap(n_resamples=1000, alternative="greater",
                                                           n_jobs=1),
        "BooStSa preset (10 %, B=1000, one-sided)": BergKirkpatrickBootstrap.boostsa(n_jobs=1),
        "BCa (B=1000, two-sided)": BCaInterval(n_resamples=1000, n_jobs=1),
        "permutation (B=1000, two-sided)": PairedPermutation(n_resamples=1000, n_jobs=1),
    }
    N = 2000
    hits = dict.fromkeys(tests, 0)
    for r in range(reps):
        y = rng.integers(0, 2, N)
        a = np.where(rng.random(N) < 0.80, y, 1 - y)
        b = np.where(rng.random(N) < 0.82, y, 1 - y)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for name, test in tests.items():
                hits[name] += test.set_params(random_state=r).test(y, a, b).pvalue <= ALPHA
    for name in tests:
        print(f"  {name:<42} {hits[name] / reps:.3f}")


def table_fine(reps, B, rng_d, rng_n):
    """Tables 5 and 6: more repetitions near the limits, BCa and BK only."""
    tests = {"bca": BCaInterval(n_resamples=B, n_jobs=1),
             "bk": BergKirkpatrickBootstrap(n_resamples=B, alternative="greater", n_jobs=1),
             "bk2": BergKirkpatrickBootstrap(n_resamples=B, n_jobs=1)}
    print(f"\nTable 5. Accuracy, H0, N = 100, d discordant items ({reps} data sets, B = {B})")
    print(f"{'d':>4} {'BCa':>8} {'BK':>8} {'BK2':>8}   (BK one-sided, BK2 two-sided)")
    N = 100
    for d in (8, 9, 10, 11, 12, 14, 16, 20):
        hits = {"bca": 0, "bk": 0, "bk2": 0}
        for r in range(reps):
            y = np.zeros(N, dtype=int)
            a = y.copy()
            b = y.copy()
            favour_b = rng_d.random(d) < 0.5
            a[:d][favour_b] = 1
            b[:d][~favour_b] = 1
            for k, v in _run(tests, y, a, b, "accuracy", r).items():
                if k in hits:
                    hits[k] += bool(v)
        print(f"{d:>4} {hits['bca'] / reps:>8.3f} {hits['bk'] / reps:>8.3f} "
              f"{hits['bk2'] / reps:>8.3f}")
    print(f"\nTable 6. f1_macro, H0 (3 classes, i.i.d. 70 % accurate), {reps} data sets, "
          f"B = {B}")
    print(f"{'N':>5} {'BCa':>8} {'cover':>8} {'BK':>8} {'BK2':>8}")
    for N in (20, 30, 50, 100, 200):
        hits = {"bca": 0, "bk": 0, "bk2": 0, "cover": 0}
        for r in range(reps):
            y = rng_n.integers(0, 3, N)
            a = _noisy(y, 0.7, 3, rng_n)
            b = _noisy(y, 0.7, 3, rng_n)
            for k, v in _run(tests, y, a, b, "f1_macro", r).items():
                if k in hits:
                    hits[k] += bool(v)
        print(f"{N:>5} {hits['bca'] / reps:>8.3f} {hits['cover'] / reps:>8.3f} "
              f"{hits['bk'] / reps:>8.3f} {hits['bk2'] / reps:>8.3f}")


def _soft_null(rng, n, k=3, noise=1.0):
    """Gold distributions Dirichlet(1) and two i.i.d. predictions softmax(log(P + .001) + Z)."""
    p = rng.dirichlet(np.ones(k), n)

    def predict():
        z = np.log(p + 1e-3) + noise * rng.standard_normal((n, k))
        e = np.exp(z - z.max(axis=1, keepdims=True))
        return e / e.sum(axis=1, keepdims=True)

    return p, predict(), predict()


def table_soft(div, B):
    """Table 7: BCa on soft metrics under H0 versus N (``BCA_SOFT_MIN_N``)."""
    print(f"\nTable 7. Soft labels, H0 (3 classes): two-sided size of BCa at .05 (B = {B})")
    bca = BCaInterval(n_resamples=B, n_jobs=1)
    plan = [(m, 2000, (30, 50, 100, 200, 400)) for m in ("entropy_correlation", "po_jsd")]
    plan += [(m, 1000, (30, 100, 200)) for m in (
        "entropy_similarity", "soft_f1_macro", "soft_recall_macro", "jsd", "cross_entropy",
        "soft_accuracy", "soft_f1_micro", "multilabel_entropy_correlation",
        "multilabel_po_jsd")]
    for metric, reps, sizes in plan:
        row = []
        for n in sizes:
            rng = np.random.default_rng([0, n])  # the seeds of docs/which_test.md
            hits = 0
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                for r in range(reps // div):
                    p, qa, qb = _soft_null(rng, n)
                    res = bca.set_params(random_state=r).test(p, qa, qb, metric=metric)
                    hits += res.pvalue <= ALPHA
            row.append(f"N={n}: {hits / (reps // div):.4f}")
        print(f"{metric:32s} " + "  ".join(row), flush=True)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a quarter of the repetitions")
    parser.add_argument("--only", type=int, default=0,
                        help="run one table (1-5; 5: 5 and 6; 7: soft labels, about 40 "
                             "minutes, not part of the default run)")
    args = parser.parse_args(argv)
    div = 4 if args.quick else 1
    t0 = time.perf_counter()
    B = 999
    if args.only in (0, 1):
        table_discordant(1000 // div, B, np.random.default_rng(1))
    if args.only in (0, 2):
        table_n(600 // div, B, np.random.default_rng(2), "accuracy", K=2)
        table_n(600 // div, B, np.random.default_rng(3), "f1_macro")
    if args.only in (0, 3):
        table_coverage_alt(1000 // div, B, np.random.default_rng(4))
    if args.only in (0, 4):
        table_power(200 // div, np.random.default_rng(5))
    if args.only in (0, 5):
        table_fine(1500 // div, 499, np.random.default_rng(6), np.random.default_rng(7))
    if args.only == 7:
        table_soft(div, B)
    print(f"\n{time.perf_counter() - t0:.0f} s")


if __name__ == "__main__":
    main()
