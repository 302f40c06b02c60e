"""McNemar's test on every pair at once, from one matrix product of the systems' 0/1 columns.

:class:`~sigtest.McNemar` needs of a pair only its 2 x 2 table
``(n11, n10, n01, n00)`` of right and wrong items. For the accuracy of hard
labels, or the ``"mean"`` of 0/1 per-item scores (no weights, clusters or
strata, one run per system), the tables of all pairs come from one product
``X^T X`` of the systems' 0/1 columns (``n11`` off the diagonal, each
system's number of right items on it), instead of one prepared pair and one
test object per pair (about 2.4 ms of Python a pair: 47 s for the 19,900
pairs of 200 systems). Each row is then the per-pair test's own arithmetic
on the pair's table, :func:`~sigtest.tests_._mcnemar.mcnemar_pvalue` and
:func:`~sigtest.tests_._mcnemar.newcombe_interval` (the interval extended
to 0 where the test does not reject, as the test does), so the rows are
the per-pair path's bit for bit (``tests/workflows/compare/test_bulk_mcnemar.py``).

A pair without a discordant item (the test warns), any alternative but
``"two-sided"``, a margin, and every other test go to the per-pair path.
"""

from scipy.special import ndtri

import sys

from sigtest._workflows.compare.zero_one import member_tables, row_values, zero_one_mean

__all__ = ["mcnemar_rows", "mcnemar_spec"]


def mcnemar_spec(metric, kwargs, ptest, itest, level):
    """Whether a (metric, test) is the two-sided McNemar of a 0/1 mean the bulk path takes.

    McNemar's module is imported on first use of the test: until then no
    test is a McNemar (and a comparison without it does not import it).
    """
    module = sys.modules.get("sigtest.tests_._mcnemar")
    if (module is None or type(ptest) is not module.McNemar or itest is not None or level is not None
            or not zero_one_mean(metric, kwargs)):
        return False
    params = ptest.get_params(deep=False)
    return params["alternative"] == "two-sided" and params.get("margin") is None


def mcnemar_rows(group):
    """The rows of the pairs of a :class:`~sigtest._workflows.compare.plan_tasks.JobGroup`
    (one view, metric and McNemar test spec) the bulk path gives.

    Returns
    -------
    rows : list
        ``(position in group, (key, values, None, []))`` per pair with a row;
        the others (no 0/1 column, no discordant item) are left to the
        per-pair path.
    """
    metric, test = group.metric, group.test
    tables, keep = member_tables(group)
    if not keep.size:
        return []
    counts, sums, n, scores = tables[2:]
    # the test's own arithmetic; its module is loaded (the jobs hold a McNemar)
    from sigtest.tests_._mcnemar import mcnemar_pvalue, newcombe_interval

    params = test.get_params(deep=False)
    level = float(params["confidence_level"])
    z = float(ndtri(0.5 + level / 2))
    gib = bool(metric.greater_is_better)
    pvalues, out = {}, []
    first, second, _ = group.positions(tables.where)
    for c, key in zip(keep.tolist(), group.job_keys(keep)):
        a, b = int(first[c]), int(second[c])
        n11 = int(counts[a, b])  # exact: float sums of ones
        n10, n01 = int(sums[a]) - n11, int(sums[b]) - n11
        n00 = n - n11 - n10 - n01
        better, worse = (n01, n10) if gib else (n10, n01)
        if better + worse == 0:  # no discordant item: the per-pair test warns
            continue
        if (better, worse) not in pvalues:
            pvalues[better, worse] = mcnemar_pvalue(better, worse, params["method"],
                                                    params["continuity"], "two-sided")[0]
        pvalue = pvalues[better, worse]
        low, high = newcombe_interval(n11, n10, n01, n00, z)
        if pvalue > 1.0 - level and (low > 0.0 or high < 0.0):
            low, high = min(low, 0.0), max(high, 0.0)
        score_a, score_b = float(scores[a]), float(scores[b])
        out.append((c, (key, row_values(score_a, score_b, score_b - score_a, low, high,
                                        level, pvalue, 0), None, [])))
    return out
