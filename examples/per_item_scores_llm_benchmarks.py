"""Four LLMs on three benchmarks: per-item 0/1 scores with repeated samples, table to report
=========================================================================================

What an evaluation harness leaves behind: one row per model, benchmark,
question and sample with a 0/1 score (exact match, pass/fail). Here four
models answer the questions of three benchmarks three times each (three
sampled generations per question, as inspect_ai's epochs), simulated with a
difficulty per question and an ability per model, so the samples of one
question are correlated. The long table goes to :func:`sigtest.read_scores`,
which aligns the questions across models and, seeing three rows per
(model, question), makes every question a cluster: the tests resample and
permute whole questions. Then :meth:`~sigtest.ScoreTable.compare_datasets`
ranks the models over the benchmarks, and :meth:`~sigtest.ScoreTable.compare`
writes the report of one benchmark. See ``docs/per_item_scores.md``.

Run: ``python examples/per_item_scores_llm_benchmarks.py``
"""

import numpy as np
import pandas as pd

import sigtest


def simulate(seed=0, n_questions=80, n_samples=3):
    """The long table: dataset, system, item, sample, score (0/1)."""
    rng = np.random.default_rng(seed)
    ability = {"base-7b": 0.0, "base-13b": 0.35, "chat-13b": 0.45, "chat-70b": 0.9}
    rows = []
    for bench, shift in (("arith", 0.6), ("trivia", 0.0), ("logic", -0.5)):
        difficulty = rng.normal(-shift, 1.5, n_questions)  # shared by every model
        for model, skill in ability.items():
            p = 1.0 / (1.0 + np.exp(difficulty - skill))
            for q in range(n_questions):
                for s in range(n_samples):
                    rows.append((bench, model, f"{bench}-{q:03d}", s,
                                 int(rng.random() < p[q])))
    table = pd.DataFrame(rows, columns=["dataset", "system", "item", "sample", "score"])
    return table.sample(frac=1.0, random_state=seed)  # harness logs come in any order


def main():
    runs = simulate()
    print(runs.head().to_string(index=False))

    table = sigtest.read_scores(runs)  # 3 rows per (model, question): clustered by question
    print(f"\n{table}")

    over = table.compare_datasets(random_state=0)  # ranks, Friedman, item-level tests
    print()
    print(over)
    print("\nReplicability over the benchmarks (item-level tests on whole questions):")
    print(over.replicability().round(4).to_string())

    result = table.compare(dataset="logic", random_state=0)
    print(f"\nlogic: {len(table.items('logic'))} samples per model in {result.n_groups} "
          "questions (the clusters)\n")
    print(result.report("markdown"))


if __name__ == "__main__":
    main()
