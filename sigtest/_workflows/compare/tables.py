"""The tables and text of a :class:`ComparisonResult`, from its frame and fields.

The columns of the frame (:data:`FRAME_COLUMNS`) and the bodies of
:meth:`~ComparisonResult.system_table`, :meth:`~ComparisonResult.runs_summary`,
:meth:`~ComparisonResult.letters` and ``str(result)``: functions of the
result's frame and of the fields they use, passed as arguments
(``result.py`` keeps the fields, the properties and the documented methods).
"""

import numpy as np
import pandas as pd

from sigtest._report.format import CORRECTION_NAMES as _CORRECTION_NAMES
from sigtest._report.format import format_level, format_margin, format_pvalue, frame_margins
from sigtest._report.letters import compact_letter_display
from sigtest._report.tiers import significance_matrix
from sigtest._results import stars_of

__all__ = ["FRAME_COLUMNS", "comparison_text", "design_text", "letters_table", "observed_scores",
           "runs_summary_table", "summary_table"]

#: The columns of a comparison frame, in order (before the optional ones).
FRAME_COLUMNS = [
    "system_a",
    "system_b",
    "metric",
    "test",
    "alternative",
    "score_a",
    "score_b",
    "delta",
    "ci_low",
    "ci_high",
    "ci_level",
    "pvalue",
    "pvalue_adj",
    "significant",
    "n_resamples",
]


def concentration_notes(frame):
    """One sentence per pair whose difference a handful of units carry (``n_effective`` set).

    The rows of :meth:`ComparisonResult.to_frame` with a finite
    ``n_effective`` (:mod:`sigtest._engine.concentration`): their bootstrap
    intervals (and bootstrap p-values) are unreliable, a permutation
    p-value is not.
    """
    if "n_effective" not in frame:
        return []
    rows = frame[frame["n_effective"].notna()].drop_duplicates(
        subset=[c for c in ("run", "system_a", "system_b", "metric") if c in frame])
    return [f"{r.system_a} vs {r.system_b}, {r.metric}: the difference is carried by a handful "
            f"of items (effective number {r.n_effective:.3g}); its bootstrap interval is "
            "unreliable, a permutation p-value is not" for r in rows.itertuples(index=False)]


def summary_table(frame, *, systems, metrics, n_groups, n_strata, runs=None, runs_mode=None,
                  overall=None):
    """One row per system with its score on each metric (:meth:`ComparisonResult.system_table`)."""
    rows = {}
    frame = frame.drop_duplicates(
        subset=[c for c in ("run", "system_a", "system_b", "metric") if c in frame]
    )
    for side in ("a", "b"):
        part = frame[["metric", f"system_{side}", f"score_{side}"]
                     + (["run"] if "run" in frame else [])]
        part = part.rename(columns={f"system_{side}": "system", f"score_{side}": "score"})
        rows[side] = part
    both = pd.concat(rows.values())
    both = both.drop_duplicates(subset=[c for c in ("run", "system", "metric") if c in both])
    table = both.groupby(["system", "metric"], sort=False)["score"].mean().unstack("metric")
    table = table.reindex(index=systems, columns=metrics)
    table.index.name = "system"
    table.columns.name = None
    design = (design_text(n_groups, n_strata, runs, runs_mode, overall).lstrip(", ")
              or "independent items")
    table.attrs.update(n_groups=n_groups, n_strata=n_strata, design=design,
                       notes=concentration_notes(frame))
    return table


def runs_summary_table(frame):
    """Summary over runs / CV repeats (:meth:`ComparisonResult.runs_summary`)."""
    if "run" not in frame:
        raise ValueError(
            "runs_summary() needs several runs tested separately (runs='each' in "
            "compare, or n_repeats > 1 in cross_val_compare)."
        )
    keys = ["system_a", "system_b", "metric", "test"]
    g = frame.groupby(keys, sort=False)
    out = g.agg(
        score_a=("score_a", "mean"),
        score_b=("score_b", "mean"),
        pvalue_min=("pvalue", "min"),
        pvalue_max=("pvalue", "max"),
        pvalue_adj_min=("pvalue_adj", "min"),
        pvalue_adj_max=("pvalue_adj", "max"),
        n_significant=("significant", "sum"),
        n_runs=("run", "nunique"),
        ci_low_min=("ci_low", "min"),
        ci_low_max=("ci_low", "max"),
        delta_min=("delta", "min"),
        delta_max=("delta", "max"),
        ci_high_min=("ci_high", "min"),
        ci_high_max=("ci_high", "max"),
    )
    out["n_significant"] = out["n_significant"].astype(int)
    return out.reset_index()


def observed_scores(frame, systems):
    """Each system's observed score from pair rows of one metric (NaN where absent).

    Parameters
    ----------
    frame : pandas.DataFrame
        Rows of :meth:`ComparisonResult.to_frame` of one metric (and test, run).
    systems : list of str

    Returns
    -------
    scores : ndarray of shape (len(systems),)
        A system's score from its last row (as ``system_b`` if it has one,
        else as ``system_a``); looked up by index codes, not row by row.
    """
    out = np.full(len(systems), np.nan)
    index = pd.Index(list(systems))
    for side in ("a", "b"):  # the last row of a system wins, side b over side a
        codes = index.get_indexer(frame[f"system_{side}"])
        values = frame[f"score_{side}"].to_numpy(dtype=np.float64)
        known = codes >= 0
        codes, values = codes[known][::-1], values[known][::-1]
        found, last = np.unique(codes, return_index=True)
        out[found] = values[last]
    return out


def letters_table(frame, metric, test, run, *, systems, metrics, tests, n_runs, pairs,
                  greater_is_better):
    """Compact letter display for one metric (:meth:`ComparisonResult.letters`)."""
    metric = metrics[0] if metric is None else metric
    test = tests[0] if test is None else test
    if metric not in metrics:
        raise ValueError(f"Unknown metric {metric!r}; this result has {metrics}.")
    if test not in tests:
        raise ValueError(f"Unknown test {test!r}; this result has {tests}.")
    frame = frame[(frame["metric"] == metric) & (frame["test"] == test)]
    if "run" in frame:
        if run is None:
            raise ValueError(
                f"This result holds {n_runs} runs tested separately; pass run= "
                "(0-based) to letters(), or see runs_summary()."
            )
        if run not in set(frame["run"]):
            raise ValueError(f"Unknown run {run!r}; runs are 0..{n_runs - 1}.")
        frame = frame[frame["run"] == run]
    sig, complete, _ = significance_matrix(frame, systems, metric, test)
    scores = observed_scores(frame, systems)
    if not complete:
        raise ValueError(
            "letters() needs every pair of systems to be tested (pairs='all'); "
            f"this result was computed with pairs={pairs!r}."
        )
    sign = -1.0 if greater_is_better[metric] else 1.0
    # ties broken by name, not by input order: the letters do not depend
    # on the order in which the systems were given
    name_rank = np.argsort(np.argsort(np.asarray(systems, dtype=object), kind="stable"),
                           kind="stable")
    order = np.lexsort((name_rank, sign * scores))
    letters = compact_letter_display(sig, order=order)
    names = [systems[i] for i in order]
    out = pd.DataFrame(
        {"score": scores[order], "letters": [letters[i] for i in order]},
        index=pd.Index(names, name="system"),
    )
    return out


def comparison_text(frame, *, systems, metrics, tests, pairs, correction, alpha, n_runs, ci,
                    n_groups, n_strata, runs, runs_mode, cv_tests, overall=None):
    """The text of ``str(result)``: a header, the pair rows, the per-fold CV tests."""
    alts = sorted(set(frame["alternative"].dropna()))
    alts += [f"margin {format_margin(lo, hi)}" for lo, hi in frame_margins(frame)]
    head = (
        f"ComparisonResult: {len(systems)} systems, {len(metrics)} metric(s), "
        f"pairs={pairs!r}, correction={correction!r}, alpha={alpha}"
        + (f", {n_runs} runs" if n_runs > 1 else "")
        + design_text(n_groups, n_strata, runs, runs_mode, overall)
        + f"\ntest: {', '.join(tests)} ({', '.join(alts) or 'n/a'}); delta = B - A; "
        "stars on adjusted p: * <= .05, ** <= .01"
    )
    rows = _display_frame(frame, tests=tests, correction=correction, ci=ci)
    text = head + "\n" + rows.to_string(index=False)
    notes = concentration_notes(frame)
    if notes:
        text += "\n" + "\n".join(f"note: {n}" for n in notes)
    if cv_tests is not None:
        text += "\n" + _cv_text(cv_tests)
    return text


def _ci_header(frame, ci):
    levels = sorted({float(v) for v in frame["ci_level"] if np.isfinite(v)})
    text = ", ".join(format_level(v) for v in levels) if levels else ""
    if ci == "simultaneous":
        return f"CI (simultaneous, {text})" if text else "CI (simultaneous)"
    return f"CI {text} (unadjusted)" if text else "CI (unadjusted)"


def _display_frame(frame, *, tests, correction, ci):
    f = frame
    corr = _CORRECTION_NAMES.get(correction, correction)
    out = pd.DataFrame({
        **({"run": f["run"]} if "run" in f else {}),
        "metric": f["metric"],
        "A": f["system_a"],
        "B": f["system_b"],
        "score_a": f["score_a"].map("{:.4f}".format),
        "score_b": f["score_b"].map("{:.4f}".format),
        "delta": f["delta"].map("{:+.4f}".format),
        _ci_header(frame, ci): [f"[{lo:+.4f}, {hi:+.4f}]"
                                for lo, hi in zip(f["ci_low"], f["ci_high"])],
        "p (raw)": [format_pvalue(p) for p in f["pvalue"]],
        f"p ({corr})": [f"{format_pvalue(p)} {stars_of(p)}".rstrip()
                        for p in f["pvalue_adj"]],
    })
    if "prob_better" in f:
        out["P(B worse/equiv./better)"] = [
            "" if np.isnan(w) else f"{w:.3f} / {e:.3f} / {b:.3f}"
            for w, e, b in zip(f["prob_worse"], f["prob_equivalent"], f["prob_better"])]
    if len(tests) > 1:
        out.insert(1, "test", f["test"])
    return out


def _cv_text(cv_tests):
    f = cv_tests
    n_folds = sorted(set(f["n_folds"]))
    out = pd.DataFrame({
        "metric": f["metric"], "A": f["system_a"], "B": f["system_b"],
        "cv test": f["cv_test"],
        "mean delta": f["delta"].map("{:+.4f}".format),
        "statistic": f["statistic"].map(lambda v: "" if np.isnan(v) else f"{v:.3f}"),
        "p": [("" if np.isnan(p) else format_pvalue(p)) for p in f["pvalue"]],
        "P(B worse/equiv./better)": [
            "" if np.isnan(w) else f"{w:.3f} / {e:.3f} / {b:.3f}"
            for w, e, b in zip(f["prob_worse"], f["prob_equivalent"], f["prob_better"])],
    })
    head = (f"per-fold CV tests ({', '.join(map(str, n_folds))} folds; uncorrected p; "
            "delta = mean of B - A over folds):")
    return head + "\n" + out.to_string(index=False)


def design_text(n_groups, n_strata, runs=None, runs_mode=None, overall=None):
    """``", clustered by 60 groups, ..."``: the design, overall and the runs, for headers."""
    parts = []
    if n_groups is not None:
        parts.append(f"clustered by {n_groups} groups")
    if n_strata is not None:
        parts.append(f"stratified by {n_strata} strata")
    if overall is not None:
        parts.append(f"overall={overall!r} (the {overall} average over the strata)")
    parts.extend(_runs_text(runs, runs_mode))
    return "".join(f", {p}" for p in parts)


def _runs_text(runs, mode):
    """``runs=<mode> (runs per system: ...)`` when a system has several runs."""
    runs = runs or {}
    if mode is None or not any(len(r) > 1 for r in runs.values()):
        return []
    counts = ", ".join(f"{name} {len(r)}" for name, r in runs.items())
    return [f"runs={mode!r} (runs per system: {counts})"]
