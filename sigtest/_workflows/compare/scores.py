"""The per-system score table of a comparison (:meth:`ComparisonResult.scores`).

Planned by :func:`sigtest._workflows.compare.plan.plan_scores` from what the
result keeps (its data and options), run by
:func:`sigtest._workflows.compare.run.run_scores`, assembled here. Imported
by the result itself (it does not import the result).
"""

import pandas as pd

from sigtest._workflows.compare.plan import plan_scores
from sigtest._workflows.compare.run import reemit_warnings, run_scores

__all__ = ["SCORE_COLUMNS", "assemble_scores", "score_table"]

#: Columns of :meth:`ComparisonResult.scores` (after ``run`` when present).
SCORE_COLUMNS = ["system", "metric", "score", "ci_low", "ci_high", "ci_level", "n_resamples",
                 "ci_method"]


def assemble_scores(names, metric_objs, multi, rows):
    """The per-system score table from the rows of the score tasks.

    Rows are sorted by (run, system in input order, metric in the order
    requested), whatever order the tasks ran in; the warnings of the tasks
    are re-emitted once per distinct message, naming the systems.
    """
    reemit_warnings([(f"{names[k[1]]}, {metric_objs[k[2]].name}" + (f", run {k[0]}" if multi else ""),
              w) for k, _, w in rows])
    records = []
    for key, values, _ in sorted(rows, key=lambda row: row[0]):
        r, s, mi = key
        records.append({**({"run": r} if multi else {}), "system": names[s],
                        "metric": metric_objs[mi].name, **values})
    columns = (["run"] if multi else []) + SCORE_COLUMNS
    return pd.DataFrame.from_records(records, columns=columns)


def score_table(data, options):
    """The per-system score table of a comparison of ``data`` with ``options``.

    ``data`` is the result's :class:`~sigtest._workflows.compare.options.ComparisonData`,
    ``options`` its :class:`~sigtest.CompareOptions`
    (whose ``n_jobs`` runs the tasks).
    """
    names, metric_objs, multi, tasks = plan_scores(
        data.runs, data.classes, targets=data.targets, options=options,
        settings=data.score_settings)
    return assemble_scores(names, metric_objs, multi, run_scores(tasks, options.n_jobs))
