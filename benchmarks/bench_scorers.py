"""Drop-in scikit-learn scorers: ``make_scorer(fbeta_score, beta=2)`` against ``f1_macro``.

``cross_val_compare`` of three estimators (logistic regression, Gaussian
naive Bayes, a decision tree of depth 5) with ``cv=5`` on a binary
``make_classification`` problem (N = 5,000 items, 20 features, seed 0),
default tests (the permutation p-value and the BCa interval), one metric
per call:

* ``f1_macro`` (registered, sufficient statistics);
* ``make_scorer(fbeta_score, beta=2)``: scikit-learn's scorer, which sigtest
  maps to F2 on the statistics of precision/recall/F1;
* the same F2 behind a function of the user's (``fbeta_score`` wrapped, so
  that sigtest cannot map it): the slow path, one call of scikit-learn's
  function per system and resample, which is what the scorer cost before
  the mapping.

Each line gives the wall and CPU seconds (``time.process_time``: all threads
of this process) of one call after a warm-up call of the same metric, the
ratio to ``f1_macro`` and the 1-minute load average at the end (the timings
of a shared machine move with it; the CPU seconds less so).

Usage: ``python benchmarks/bench_scorers.py [--n 5000] [--slow-resamples 999]``.
The slow line runs with ``--slow-resamples`` resamples (default 999, a tenth
of the default tests' 9,999) and is scaled to the default, as printed.
"""

from __future__ import annotations

import argparse
import os
import time
import warnings

from sklearn.datasets import make_classification
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import fbeta_score, make_scorer
from sklearn.naive_bayes import GaussianNB
from sklearn.tree import DecisionTreeClassifier

from sigtest import BCaInterval, PairedPermutation, cross_val_compare


def _estimators():
    return {"logreg": LogisticRegression(max_iter=1000), "nb": GaussianNB(),
            "tree": DecisionTreeClassifier(max_depth=5, random_state=0)}


def _user_fbeta(y_true, y_pred, **kw):
    """scikit-learn's F-beta behind the user's function: sigtest calls it per resample."""
    return fbeta_score(y_true, y_pred, **kw)


def _timed(X, y, metric, test=None):
    kw = {"cv": 5, "metrics": [metric], "random_state": 0}
    if test is not None:
        kw["test"] = test
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        cross_val_compare(_estimators(), X, y, **kw)  # warm-up: kernels, imports
        wall, cpu = time.perf_counter(), time.process_time()
        res = cross_val_compare(_estimators(), X, y, **kw)
    return time.perf_counter() - wall, time.process_time() - cpu, res


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=5000)
    parser.add_argument("--slow-resamples", type=int, default=999)
    args = parser.parse_args(argv)
    X, y = make_classification(n_samples=args.n, n_features=20, n_informative=6,
                               random_state=0)
    print(f"cross_val_compare, 3 estimators, cv=5, N = {args.n} (binary), default tests")
    print(f"{'metric':50s} {'wall s':>8s} {'CPU s':>8s} {'x f1_macro (CPU)':>17s}")
    base_wall, base_cpu, _ = _timed(X, y, "f1_macro")
    print(f"{'f1_macro':50s} {base_wall:8.2f} {base_cpu:8.2f} {1.0:17.2f}")
    scorer = make_scorer(fbeta_score, beta=2)
    wall, cpu, res = _timed(X, y, scorer)
    name = res.to_frame()["metric"].iloc[0]
    print(f"{'make_scorer(fbeta_score, beta=2) -> ' + name:50s} {wall:8.2f} {cpu:8.2f} "
          f"{cpu / base_cpu:17.2f}")
    b = args.slow_resamples
    test = (PairedPermutation(n_resamples=b), BCaInterval(n_resamples=b))
    wall, cpu, _ = _timed(X, y, make_scorer(_user_fbeta, beta=2), test=test)
    scale = 9999 / b
    print(f"{'slow path (user wrapper), scaled x' + f'{scale:.1f}':50s} {wall * scale:8.2f} "
          f"{cpu * scale:8.2f} {cpu * scale / base_cpu:17.2f}")
    print(f"load average (1 min): {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")


if __name__ == "__main__":
    main()
