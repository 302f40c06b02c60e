"""Feed predictions as experiments finish, test them all at the end
================================================================

BooStSa's pipeline (Fornaciari et al. 2022, sec. 4.4) with ``sigtest.Experiment``:
a baseline h0 and two treatments, three seeds each; every seed evaluates the
test items in its own shuffled order and feeds the predictions with the item
ids. ``run`` aligns every run to the gold by these ids (BooStSa pooled runs in
feed order), tests each treatment against h0 seed by seed (``runs="each"``),
and writes ``results.tsv`` and ``outcomes.json`` into the store. A later
session reopens the store with ``Experiment.load`` and reads the results.
A feed the store could not be tested with (here: probabilities over 4
classes for a 3-class task) is refused before anything is written, and a
run fed by mistake is taken out with ``Experiment.remove``.

Run: ``python examples/feed_and_run.py``
"""

import tempfile

import matplotlib.pyplot as plt
import numpy as np

from sigtest import BCaInterval, Experiment, PairedPermutation


def train_and_predict(rng, y, skill):
    """Stand-in for one training run: predictions in a shuffled item order."""
    order = rng.permutation(len(y))
    right = rng.random(len(y)) < skill
    pred = np.where(right, y, rng.integers(0, 3, len(y)))
    return order, pred[order]


def main():
    rng = np.random.default_rng(0)
    y = rng.integers(0, 3, 1000)
    with tempfile.TemporaryDirectory() as store:
        exp = Experiment(store)
        for seed in range(3):
            for system, skill in (("h0", 0.60), ("h1_mtl", 0.66), ("h1_aux", 0.61)):
                ids, pred = train_and_predict(rng, y, skill)
                exp.feed(system, pred, ids=ids, y_true=y[ids], run=seed)

        # a mistaken feed is refused, the store is untouched
        try:
            exp.feed("h1_mtl", rng.dirichlet(np.ones(4), len(y)), run=9)
        except ValueError as exc:
            print("refused:", exc)
        # a run fed by mistake (a fourth seed of h0 only) is removed again
        exp.feed("h0", y, run=3)
        print("removed runs", exp.remove("h0", run=3), "of h0")

        # ... later, possibly in another process:
        exp = Experiment.load(store)
        print("systems:", exp.systems, "runs of h0:", exp.runs("h0"))
        result = exp.run(metrics=("accuracy", "f1_macro"), pairs="baseline", baseline="h0",
                         runs="each", random_state=0,
                         test=(PairedPermutation(n_resamples=1999),
                               BCaInterval(n_resamples=1999)))
        cols = ["system_a", "system_b", "metric", "delta_min", "delta_max", "pvalue_min",
                "pvalue_max", "n_significant", "n_runs"]
        print(result.runs_summary()[cols].round(4).to_string(index=False))

        table = exp.load_results()                 # the tidy table, from results.tsv
        outcomes = exp.load_outcomes()             # parameters, versions, seed, summary
        print(f"results.tsv: {len(table)} rows; seed {outcomes['seeds']['random_state']}; "
              f"sigtest {outcomes['versions']['sigtest']}")

    # each treatment against h0, seed by seed: the difference and its interval
    frame = result.to_frame()
    acc = frame[(frame["metric"] == "accuracy") & (frame["test"] == frame["test"].iloc[0])]
    _, ax = plt.subplots(layout="constrained", figsize=(6, 3.5))
    for k, (system, rows) in enumerate(acc.groupby("system_b", sort=False)):
        ax.errorbar(rows["run"] + 0.08 * k, rows["delta"], fmt="o", capsize=3,
                    yerr=[rows["delta"] - rows["ci_low"], rows["ci_high"] - rows["delta"]],
                    label=f"{system} - h0")
    ax.axhline(0, color="grey", linestyle="--", linewidth=1)
    ax.set(xticks=sorted(set(acc["run"])), xlabel="seed (run)",
           ylabel="accuracy difference (95 % CI)")
    ax.legend()
    plt.show()


if __name__ == "__main__":
    main()
