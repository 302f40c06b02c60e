"""Assemble the rows of a comparison: orientation, frame, corrections, result."""

import math
from numbers import Integral

import numpy as np
import pandas as pd

from sigtest._workflows.compare.checks import default_resamples
from sigtest._workflows.compare.run import reemit_warnings
from sigtest._workflows.compare.run import OPTIONAL_COLUMNS
from sigtest._workflows.compare.result import ComparisonResult
from sigtest._workflows.compare.tables import FRAME_COLUMNS
from sigtest._constants import CORRECTION_ALIASES, TWO_STAGE_CORRECTIONS
from sigtest.tests_._corrections import adjust_pvalues
from sigtest.utils import warn_external

__all__ = ["assemble"]


def _reorient(values):
    """A row of the pair (B, A) from the row of (A, B): exact, no new test."""
    out = dict(values)
    out["score_a"], out["score_b"] = values["score_b"], values["score_a"]
    out["delta"] = -values["delta"]
    out["ci_low"], out["ci_high"] = -values["ci_high"], -values["ci_low"]
    if "prob_better" in values:  # B better for (A, B) is A better for (B, A)
        out["prob_better"], out["prob_worse"] = values["prob_worse"], values["prob_better"]
    return out


def _warn_small_b(monte_carlo, specs, m_eff, alpha):
    """UserWarning when a Monte Carlo p-value cannot reach ``alpha`` after correction.

    ``monte_carlo``: the spec indices with rows whose p-value was drawn.
    """
    for si, (sname, ptest, *_) in enumerate(specs):
        b = (ptest.get_params(deep=False).get("n_resamples")
             if hasattr(ptest, "get_params") else None)
        if not isinstance(b, Integral):
            continue
        if si in monte_carlo and m_eff / (b + 1) > alpha:
            need = int(math.ceil(m_eff / alpha - 1e-9)) - 1
            good = default_resamples(m_eff, alpha, 9999)
            warn_external(
                f"Test {sname!r}: with n_resamples={b}, the smallest Monte Carlo p-value "
                f"1/(B+1) times the {m_eff} comparisons of a family is "
                f"{m_eff / (b + 1):.3g} > alpha={alpha}: no pair can be significant after "
                f"the correction. n_resamples >= {need} is needed, {good} recommended "
                "(smallest adjusted p <= alpha/10).",
                UserWarning,
            )


def _block_frame(block, flip):
    """A :class:`RowBlock`'s columns as a frame, the rows with ``flip`` turned around."""
    columns = dict(block.columns)
    if flip.any():  # the column twin of _reorient
        c = block.columns
        columns["score_a"] = np.where(flip, c["score_b"], c["score_a"])
        columns["score_b"] = np.where(flip, c["score_a"], c["score_b"])
        columns["delta"] = np.where(flip, -c["delta"], c["delta"])
        columns["ci_low"] = np.where(flip, -c["ci_high"], c["ci_low"])
        columns["ci_high"] = np.where(flip, -c["ci_low"], c["ci_high"])
        if "prob_better" in c:
            columns["prob_better"] = np.where(flip, c["prob_worse"], c["prob_better"])
            columns["prob_worse"] = np.where(flip, c["prob_better"], c["prob_worse"])
    return pd.DataFrame(columns)


def _rows_frame(plan, out):
    """The frame of every row, sorted by key, and that order of ``out``'s rows.

    Rows computed in a pair's canonical orientation are re-oriented exactly
    to the order given; the identity columns (run, systems, metric, test)
    are added from the keys.
    """
    names, pair_idx = plan.names, plan.pair_idx
    given = np.array(pair_idx, dtype=np.int64).reshape(-1, 2)
    flipped = (np.array(plan.canon, dtype=np.int64).reshape(-1, 2) != given).any(axis=1)
    parts = []
    if out.rows or not out.blocks:
        parts.append(pd.DataFrame.from_records(
            [values if not flipped[key[2]] else _reorient(values)
             for key, values, _, _ in out.rows]))
    for block in out.blocks:
        parts.append(_block_frame(block, flipped[block.keys[:, 2]]))
    frame = parts[0] if len(parts) == 1 else pd.concat(parts, ignore_index=True)
    table = out.key_table()
    order = np.lexsort(table.T[::-1])  # sorted keys: run, metric, pair, spec
    frame = frame.take(order).reset_index(drop=True)
    table = table[order]
    which = given[table[:, 2]]
    system = np.array(names, dtype=object)
    identity = {"system_a": system[which[:, 0]], "system_b": system[which[:, 1]],
                "metric": np.array([m.name for m in plan.metric_objs], dtype=object)[table[:, 1]],
                "test": np.array([s[0] for s in plan.specs], dtype=object)[table[:, 3]]}
    if plan.multi:
        identity = {"run": table[:, 0], **identity}
    frame = pd.concat([pd.DataFrame(identity), frame], axis=1)
    return frame, order


def assemble(plan, out, *, alpha, correction, pairs, ci, result_kwargs, adjusted=None):
    """The :class:`ComparisonResult` of a plan from the rows its jobs returned.

    ``out`` is the :class:`~sigtest._workflows.compare.pair_rows.PairRows`
    of the jobs. Rows computed in a pair's canonical orientation are
    re-oriented exactly to the order given; the worker warnings are
    re-emitted once per message; p-values are corrected per (run, metric,
    test) family, or, with ``adjusted`` (the p-value of each row of ``out``
    in its ``key_table()`` order, a max-T correction:
    :mod:`sigtest._workflows.compare.maxt`), set to ``max(adjusted, pvalue)``.
    """
    names, metric_objs, specs, pair_idx = plan.names, plan.metric_objs, plan.specs, plan.pair_idx
    multi = plan.multi
    reemit_warnings([(f"{names[pair_idx[k[2]][0]]} vs {names[pair_idx[k[2]][1]]}, "
              f"{metric_objs[k[1]].name}, {specs[k[3]][0]}" + (f", run {k[0]}" if multi else ""),
              w) for k, _, _, w in out.rows if w])
    # a max-T adjusted p-value reaches 1/(B+1) whatever the family size
    _warn_small_b(out.monte_carlo_specs(), plan.run_specs,
                  plan.m_eff if adjusted is None else 1, alpha)

    frame, order = _rows_frame(plan, out)
    frame["pvalue_adj"] = np.nan
    groups = ["run", "metric", "test"] if multi else ["metric", "test"]
    if adjusted is not None:  # out's rows in the frame's (sorted) order
        frame["pvalue_adj"] = np.maximum(frame["pvalue"].to_numpy(), adjusted[order])
    for _, idx in (() if adjusted is not None
                   else frame.groupby(groups, sort=False).groups.items()):
        frame.loc[idx, "pvalue_adj"] = adjust_pvalues(
            frame.loc[idx, "pvalue"].to_numpy(), correction,
            # two-stage FDR adjusts at the comparison's level
            alpha=alpha if CORRECTION_ALIASES.get(correction, correction) in TWO_STAGE_CORRECTIONS
            else None)
    frame["significant"] = (frame["pvalue_adj"] <= alpha).to_numpy()
    # the optional columns some row sets (float columns: numpy's isnan, not pandas' notna)
    extra = [c for c in OPTIONAL_COLUMNS
             if c in frame and not np.isnan(frame[c].to_numpy(dtype=np.float64)).all()]
    # the columns in their order (reindex: about half the CPU of frame[columns] on the small
    # frames of a simulation); the index is already 0 .. n - 1 (_rows_frame)
    frame = frame.reindex(columns=(["run"] if multi else []) + FRAME_COLUMNS + extra)
    return ComparisonResult(
        frame,
        systems=names,
        metrics=[m.name for m in metric_objs],
        tests=[s[0] for s in specs],
        greater_is_better={m.name: m.greater_is_better for m in metric_objs},
        alpha=alpha,
        correction=correction,
        pairs=pairs,
        n_runs=len(plan.comparisons),
        ci=ci,
        **result_kwargs,
    )
