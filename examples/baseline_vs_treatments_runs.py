"""A baseline against several treatments, with several runs (seeds) per system
===========================================================================

The BooStSa design (Fornaciari et al. 2022): a control condition h0 (here a
single-task model, "stl") and treatment conditions h1 (two multi-task
variants, "mtl_a" and "mtl_b"), each trained with five random seeds and
evaluated on the same 1,000 test items. Predictions are probabilities, so
all four ways of using runs are available, each answering its own question:

* ``runs="average"`` (the default) asks "is the treatment better than the
  baseline on average over seeds?": per item, each system's statistics are
  averaged over its seeds and one paired test runs over the 1,000 items (the
  item is the resampling unit, so the test is valid; its type-I error is
  checked by simulation in the test suite);
* ``runs="each"`` tests seed ``i`` of the baseline against seed ``i`` of the
  treatment and reports how conclusions vary over seeds (Table 1 of Bestgen
  2022: min/max p-value, number of significant runs, min/max difference and
  CI bounds) - the honest view when seeds matter;
* ``runs="mean"`` averages the probabilities of the five seeds (the seed
  ensemble) and tests the averaged models once;
* ``runs="pool"`` concatenates the runs as BooStSa does; the 5,000 pooled
  items are not independent (each test item appears five times), so its
  p-values are smaller than the data justify (it warns) - shown for
  comparison only.

Run: ``python examples/baseline_vs_treatments_runs.py``
"""

import warnings

import matplotlib.pyplot as plt
import numpy as np

from sigtest import BCaInterval, PairedPermutation, compare
from sigtest.plotting import plot_comparison


def simulate(seed=0, n=1000, n_classes=3, n_runs=5):
    """Gold labels and (n, K) probability predictions of 5 seeds per system."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, n_classes, n)
    onehot = np.eye(n_classes)[y]
    item_difficulty = rng.normal(0, 1.0, n)

    def model(skill, seed_sd):
        runs = []
        for _ in range(n_runs):
            run_skill = skill + rng.normal(0, seed_sd)  # seed-to-seed variation
            logits = (run_skill - item_difficulty)[:, None] * onehot
            logits = logits + rng.normal(0, 1.0, (n, n_classes))
            p = np.exp(logits - logits.max(1, keepdims=True))
            runs.append(p / p.sum(1, keepdims=True))
        return runs

    systems = {"stl": model(1.6, 0.15), "mtl_a": model(1.75, 0.15), "mtl_b": model(1.62, 0.3)}
    return y, systems


def main():
    y, systems = simulate()
    common = dict(metrics=["accuracy", "f1_macro"], pairs="baseline", baseline="stl",
                  test=(PairedPermutation(n_resamples=4999), BCaInterval(n_resamples=4999)),
                  correction="holm", n_jobs=2, random_state=0)

    average = compare(y, systems, **common)  # runs="average"
    print("runs='average' (default): is the treatment better on average over seeds?")
    print(average)
    plot_comparison(average, "f1_macro")  # each treatment against stl, on average over seeds

    each = compare(y, systems, runs="each", **common)
    print("\nruns='each': one test per seed, summarised over the 5 seeds")
    cols = ["system_a", "system_b", "metric", "score_a", "score_b", "pvalue_min", "pvalue_max",
            "n_significant", "n_runs", "ci_low_min", "delta_min", "delta_max", "ci_high_max"]
    print(each.runs_summary()[cols].round(4).to_string(index=False))

    mean = compare(y, systems, runs="mean", **common)
    print("\nruns='mean': the seed ensembles, tested once")
    print(mean)

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # the pool warning (see the docstring)
        pooled = compare(y, systems, runs="pool", **common)
    print("\nruns='pool' (BooStSa): pooled items are not independent; for comparison only")
    print(pooled)
    plt.show()


if __name__ == "__main__":
    main()
