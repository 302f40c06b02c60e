"""Probability scorers (issue 22 s1): the sufficient-statistic path against scikit-learn's function.

``BergKirkpatrickBootstrap(n_resamples=10_000).test(y, pa, pb, metric=name)``
for ``neg_log_loss``, ``neg_brier_score``, ``d2_log_loss_score`` and
``top_k_accuracy`` on K = 5 classes: sigtest computes the per-item
statistics once (``[loss_i, 1]``; D²: ``[loss_i, one-hot y_i]``) and the
numba kernel sums them per resample, O(B N s) with s columns.

The reference is the same test with scikit-learn's own function as the
metric (a scorer of a thin wrapper of it, so that sigtest does not map it to
its registered metric): every resample then calls the function on the
resampled rows (sigtest's slow path, on a thread pool). It is timed on a few resamples (``--ref-resamples``,
default 40) and scaled to B, as the table says. Times are medians of
``--repeats`` runs (default 3) after a warm-up call; every sigtest call gets
a new seed so that no call is served from the kernel memo.

Usage: ``python benchmarks/bench_proba_scorers.py [--quick]`` (``--quick``:
N = 10^4 only).
"""

from __future__ import annotations

import argparse
import warnings

import numpy as np
from sklearn import metrics as skm

from bench_clustered import median_time  # this folder: warm-up call, then the median

from sigtest import BergKirkpatrickBootstrap

B = 10_000
K = 5


def _plain(func):
    """scikit-learn's ``func`` under another name: sigtest then calls it per resample."""
    def reference(y_true, y_proba, **kw):
        return func(y_true, y_proba, **kw)

    reference.__name__ = f"sklearn_{func.__name__}"
    return reference


REFERENCE = {
    "neg_log_loss": skm.make_scorer(_plain(skm.log_loss), greater_is_better=False,
                                    response_method="predict_proba"),
    "neg_brier_score": skm.make_scorer(_plain(skm.brier_score_loss), greater_is_better=False,
                                       response_method="predict_proba"),
    "d2_log_loss_score": skm.make_scorer(_plain(skm.d2_log_loss_score),
                                         response_method="predict_proba"),
    "top_k_accuracy": skm.make_scorer(_plain(skm.top_k_accuracy_score),
                                      response_method="predict_proba"),
}


def data(n, seed=0):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, K, n)
    one_hot = np.eye(K)[y]
    pa = 0.4 * one_hot + 0.6 * rng.dirichlet(np.ones(K), n)
    pb = 0.5 * one_hot + 0.5 * rng.dirichlet(np.ones(K), n)
    return y, pa, pb


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--ref-resamples", type=int, default=40)
    args = parser.parse_args(argv)
    sizes = (10_000,) if args.quick else (10_000, 100_000)
    print(f"BergKirkpatrickBootstrap, B = {B}, K = {K} classes; reference: scikit-learn's "
          f"function per resample, timed on {args.ref_resamples} resamples and scaled to B")
    print(f"{'metric':20s} {'N':>8s} {'sigtest':>10s} {'sklearn (scaled)':>17s} {'ratio':>8s}")
    seeds = iter(range(1, 10**6))
    for n in sizes:
        y, pa, pb = data(n)
        for name, scorer in REFERENCE.items():
            kw = {"k": 2} if name == "top_k_accuracy" else {}

            def fast():
                return BergKirkpatrickBootstrap(n_resamples=B, random_state=next(seeds)).test(
                    y, pa, pb, metric=name, **kw)

            def reference():
                return BergKirkpatrickBootstrap(n_resamples=args.ref_resamples,
                                                random_state=next(seeds)).test(
                    y, pa, pb, metric=scorer)

            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                t_fast = median_time(fast, args.repeats)
                t_ref = median_time(reference, 1) * B / args.ref_resamples
                assert abs(fast().delta - reference().delta) < 1e-9  # the same metric
            print(f"{name:20s} {n:8d} {t_fast:9.2f}s {t_ref:16.1f}s {t_ref / t_fast:7.0f}x",
                  flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
