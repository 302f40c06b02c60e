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


def _block_columns(columns, flip):
    """A :class:`RowBlock`'s ``columns`` with the rows ``flip`` turned around (a new dict)."""
    columns = dict(columns)
    if flip.any():  # the column twin of _reorient
        c = dict(columns)
        columns["score_a"] = np.where(flip, c["score_b"], c["score_a"])
        columns["score_b"] = np.where(flip, c["score_a"], c["score_b"])
        columns["delta"] = np.where(flip, -c["delta"], c["delta"])
        columns["ci_low"] = np.where(flip, -c["ci_high"], c["ci_low"])
        columns["ci_high"] = np.where(flip, -c["ci_low"], c["ci_high"])
        if "prob_better" in c:
            columns["prob_better"] = np.where(flip, c["prob_worse"], c["prob_better"])
            columns["prob_worse"] = np.where(flip, c["prob_better"], c["prob_worse"])
    return columns


def _parts_columns(out, flipped):
    """Every row's fields as ``{column: ndarray}`` in ``out``'s row order.

    One column block (the bulk paths) gives its own arrays (re-oriented
    where needed), taken out of ``out``: a frame built from them holds no
    second copy of a 499,500-pair comparison's columns. Per-job rows, or
    several blocks, go through pandas (a column missing in a part is NaN
    there, as :func:`pandas.concat` fills it).
    """
    if not out.rows and len(out.blocks) == 1:
        block = out.blocks[0]
        columns = _block_columns(block.columns, flipped[block.keys[:, 2]])
        block.columns.clear()  # assemble consumes the block
        return columns
    parts = []
    if out.rows or not out.blocks:
        parts.append(pd.DataFrame.from_records(
            [values if not flipped[key[2]] else _reorient(values)
             for key, values, _, _ in out.rows]))
    for block in out.blocks:
        parts.append(pd.DataFrame(_block_columns(block.columns, flipped[block.keys[:, 2]])))
    frame = parts[0] if len(parts) == 1 else pd.concat(parts, ignore_index=True)
    return {name: frame[name].to_numpy() for name in frame.columns}


def _labels(values, codes):
    """``values[codes]`` as a frame column, taken from a pandas array of the few ``values``.

    The column gets the dtype pandas infers for them (its string dtype, or
    object), with no Python object per row: at 499,500 pairs, taking from
    pandas' string array holds 30 MB less at its peak than converting an
    object array of the names.
    """
    return pd.Series(np.array(values, dtype=object)).array.take(np.asarray(codes, dtype=np.intp))


def _constant_labels(column):
    """An object column of one repeated string (the bulk rows' ``alternative``) as
    :func:`_labels`; any other column as it is."""
    if (isinstance(column, np.ndarray) and column.dtype == object and column.size
            and isinstance(column[0], str) and (column == column[0]).all()):
        return _labels([column[0]], np.zeros(column.size, dtype=np.intp))
    return column


def _constant_view(column):
    """Whether ``column`` is a 1-D broadcast view of one value (stride 0)."""
    return isinstance(column, np.ndarray) and column.ndim == 1 and column.strides == (0,)


def _first_of_name(names):
    """For each position in ``names``, the first position holding the same name."""
    first = {}
    return np.array([first.setdefault(name, i) for i, name in enumerate(names)], dtype=np.int64)


def _rows_columns(plan, out):
    """Every row's columns, sorted by key, that order of ``out``'s rows, and the sorted keys.

    Rows computed in a pair's canonical orientation are re-oriented exactly
    to the order given; the identity columns (run, systems, metric, test)
    are added from the keys. Returns ``(columns, order, table)``:
    ``columns`` maps each field to an array, the identity ones first;
    ``table`` holds the rows' keys ``(run, metric index, pair index, spec
    index)`` in the frame's order.
    """
    names, pair_idx = plan.names, plan.pair_idx
    given = np.asarray(pair_idx, dtype=np.int64).reshape(-1, 2)
    canon = np.asarray(plan.canon, dtype=np.int64).reshape(-1, 2)
    flipped = (np.zeros(given.shape[0], dtype=bool) if plan.canon is pair_idx
               else (canon != given).any(axis=1))
    table = out.key_table()
    fields = _parts_columns(out, flipped)
    order = np.lexsort(table.T[::-1])  # sorted keys: run, metric, pair, spec
    table = table[order]
    which = given[table[:, 2]]
    columns = {"system_a": _labels(names, which[:, 0]),
               "system_b": _labels(names, which[:, 1]),
               "metric": _labels([m.name for m in plan.metric_objs], table[:, 1]),
               "test": _labels([s[0] for s in plan.specs], table[:, 3])}
    del which
    if plan.multi:
        columns = {"run": table[:, 0], **columns}
    for name in list(fields):  # one column at a time: the unsorted one is freed as we go
        column = fields.pop(name)
        # a constant broadcast view (a block's n_resamples): the same in any order
        columns[name] = _constant_labels(column.copy() if _constant_view(column)
                                         else column[order])
    return columns, order, table


def _family_codes(plan, table):
    """One integer per row naming its correction family: (run,) metric and test names."""
    keys = [_first_of_name([m.name for m in plan.metric_objs])[table[:, 1]],
            _first_of_name([s[0] for s in plan.specs])[table[:, 3]]]
    if plan.multi:
        keys.insert(0, table[:, 0])
    return np.unique(np.stack(keys, axis=1), axis=0, return_inverse=True)[1].reshape(-1)


def _adjusted(pvalue, *, plan, table, correction, alpha, adjusted, order):
    """The ``pvalue_adj`` column: max-T's ``adjusted`` or the correction per family."""
    if adjusted is not None:  # out's rows in the frame's (sorted) order
        return np.maximum(pvalue, adjusted[order])
    out = np.full(pvalue.shape[0], np.nan)
    codes = _family_codes(plan, table)
    # two-stage FDR adjusts at the comparison's level
    level = (alpha if CORRECTION_ALIASES.get(correction, correction) in TWO_STAGE_CORRECTIONS
             else None)
    for code in range(int(codes.max(initial=-1)) + 1):
        idx = np.flatnonzero(codes == code)
        out[idx] = adjust_pvalues(pvalue[idx], correction, alpha=level)
    return out


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

    columns, order, table = _rows_columns(plan, out)
    n = order.shape[0]
    columns["pvalue"] = np.asarray(columns["pvalue"], dtype=np.float64)
    columns["pvalue_adj"] = _adjusted(columns["pvalue"], plan=plan, table=table,
                                      correction=correction, alpha=alpha, adjusted=adjusted,
                                      order=order)
    del table
    columns["significant"] = columns["pvalue_adj"] <= alpha
    # the optional columns some row sets (float columns: numpy's isnan, not pandas' notna)
    extra = [c for c in OPTIONAL_COLUMNS
             if c in columns and not np.isnan(np.asarray(columns[c], dtype=np.float64)).all()]
    # the columns in their order, a missing one NaN (as reindex fills it); copy=False:
    # the arrays are this frame's own, one block each rather than consolidated copies
    frame = pd.DataFrame({c: columns[c] if c in columns else np.full(n, np.nan)
                          for c in (["run"] if multi else []) + FRAME_COLUMNS + extra},
                         copy=False)
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
