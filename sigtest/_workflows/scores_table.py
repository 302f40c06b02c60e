"""Long-format tables of per-item scores: :func:`sigtest.read_scores` and :class:`ScoreTable`.

Evaluation harnesses export one row per (system, item) with a score (exact
match, pass/fail, a judge's rating, a sentence-level metric), often with a
task or benchmark column and several samples (epochs, prompts) per
question. :func:`read_scores` reads such a table (a pandas DataFrame or a
CSV, TSV, Parquet or JSON-lines file), aligns the items by id across the
systems and returns a :class:`ScoreTable`, whose :meth:`ScoreTable.compare`
and :meth:`ScoreTable.compare_datasets` run :func:`sigtest.compare` and
:func:`sigtest.compare_datasets` with the metric ``"mean"`` and
``y_true=None``. pandas is imported when a table is read, not with the
module.
"""

from __future__ import annotations

import os

import numpy as np

from sigtest._workflows.score_files import (FORMATS, check_encoding, file_ids, file_scores,
                                            read_file)
from sigtest.utils import plain, warn_external

__all__ = ["ScoreTable", "read_scores"]

_ON_MISSING = ("error", "intersect")
#: How many offending ids a message lists.
_SHOWN = 5


class ScoreTable:
    """Per-item scores of several systems, aligned by item, per dataset.

    Made by :func:`read_scores`; not meant to be built by hand.

    Parameters
    ----------
    data : dict
        ``{dataset: (None, {system: scores}, groups, items)}``, aligned.
    systems : list of str
        The systems, in order of first appearance.
    n_dropped : dict
        Rows dropped per dataset by ``on_missing="intersect"``.

    Attributes
    ----------
    systems : list of str
        The systems, in order of first appearance in the table.
    datasets : list
        The dataset names (``[None]`` without a dataset column).
    n_dropped : dict
        Number of scored units (rows) dropped per dataset by
        ``on_missing="intersect"`` (0 everywhere otherwise).
    """

    def __init__(self, data, systems, n_dropped):
        self._data = data
        self.systems = list(systems)
        self.datasets = list(data)
        self.n_dropped = dict(n_dropped)

    def __repr__(self):
        sizes = ", ".join(f"{d}: {len(self._data[d][3])} units" if d is not None
                          else f"{len(self._data[d][3])} units" for d in self.datasets)
        return f"ScoreTable(systems={self.systems}, {sizes})"

    def _dataset(self, dataset):
        if dataset is None:
            if len(self.datasets) > 1:
                raise ValueError(
                    f"The table holds {len(self.datasets)} datasets {self.datasets[:_SHOWN]}: "
                    "pass dataset=<name> to compare one, or use compare_datasets()."
                )
            return self.datasets[0]
        if dataset not in self._data:
            raise ValueError(
                f"The 'dataset' parameter {dataset!r} is not in the table; datasets are "
                f"{self.datasets}."
            )
        return dataset

    def arrays(self, dataset=None):
        """The inputs of :func:`sigtest.compare` for one dataset.

        Parameters
        ----------
        dataset : hashable, optional
            The dataset to return; required when the table has several.

        Returns
        -------
        y_true : None
            Per-item scores have no gold labels.
        scores : dict of str -> ndarray of shape (n_units,)
            The aligned scores of every system (float64).
        groups : ndarray of shape (n_units,) or None
            The cluster of every unit (the group column, or the item with
            repeated samples), ``None`` for independent items.
        """
        _, scores, groups, _ = self._data[self._dataset(dataset)]
        return None, {k: v.copy() for k, v in scores.items()}, (
            None if groups is None else groups.copy())

    def items(self, dataset=None):
        """Item id of every unit (row of :meth:`arrays`) of one dataset.

        Parameters
        ----------
        dataset : hashable, optional
            Required when the table has several datasets.

        Returns
        -------
        items : ndarray of shape (n_units,)
            Sorted by id; an id repeats once per sample.
        """
        return self._data[self._dataset(dataset)][3].copy()

    def compare(self, dataset=None, **kwargs):
        """:func:`sigtest.compare` of the systems on their per-item scores.

        Parameters
        ----------
        dataset : hashable, optional
            The dataset to compare; required when the table has several.
        **kwargs
            Passed to :func:`sigtest.compare` (``test``, ``pairs``,
            ``baseline``, ``correction``, ``random_state``, ...);
            ``metrics`` defaults to ``"mean"`` and ``groups`` comes from the
            table (giving it again is an error).

        Returns
        -------
        ComparisonResult
            The comparison of every pair of systems on ``"mean"``.
        """
        # compare loads numba, scipy and pandas: read_scores imports without them
        from sigtest._workflows.compare.api import compare

        _check_no_groups(kwargs)
        y_true, scores, groups = self.arrays(dataset)
        kwargs.setdefault("metrics", "mean")
        return compare(y_true, scores, groups=groups, **kwargs)

    def compare_datasets(self, **kwargs):
        """:func:`sigtest.compare_datasets` of the systems over the table's datasets.

        Parameters
        ----------
        **kwargs
            Passed to :func:`sigtest.compare_datasets`; ``metric`` defaults
            to ``"mean"``. Each dataset's item-level comparison clusters by
            the table's groups.

        Returns
        -------
        DatasetComparisonResult
            Ranks, Friedman and post-hoc tests over the datasets, and each
            dataset's item-level comparison.
        """
        # compare_datasets loads numba, scipy and pandas: read_scores imports without them
        from sigtest._workflows.datasets import compare_datasets

        _check_no_groups(kwargs)
        kwargs.setdefault("metric", "mean")
        data = {d: (None, dict(scores), groups)
                for d, (_, scores, groups, _) in self._data.items()}
        return compare_datasets(data, **kwargs)


def _check_no_groups(kwargs):
    if "groups" in kwargs:
        raise TypeError(
            "The 'groups' keyword comes from the table (its group column, or the item "
            "of repeated samples); pass group=<column> to read_scores instead."
        )


def _columns(frame, system, item, score, group, dataset, where):
    """The column names used: required ones must exist; optional ones if present."""
    names = {"system": system, "item": item, "score": score}
    columns = list(map(str, frame.columns))
    for key, col in names.items():
        if not isinstance(col, str):
            raise TypeError(f"The '{key}' parameter must be a column name (str). Got {col!r}.")
        if col not in frame.columns:
            raise ValueError(
                f"The table{where} has no {key} column {col!r} (the '{key}' parameter); its "
                f"columns are {columns}."
            )
    for key, col, default in (("group", group, "group"), ("dataset", dataset, "dataset")):
        if col is None:
            names[key] = None
        elif not isinstance(col, str):
            raise TypeError(f"The '{key}' parameter must be a column name (str) or None. "
                            f"Got {col!r}.")
        elif col in frame.columns:
            names[key] = col
        elif col != default:  # asked for by name: must exist
            raise ValueError(
                f"The table{where} has no {key} column {col!r} (the '{key}' parameter); its "
                f"columns are {columns}."
            )
        else:
            names[key] = None
    used = [c for c in names.values() if c is not None]
    if len(set(used)) != len(used):
        raise ValueError(f"The column parameters name the same column twice: {names}.")
    twice = [c for c in used if columns.count(c) > 1]
    if twice:
        raise ValueError(
            f"The table{where} has several columns named {twice}; rename them so that each "
            "column read (system, item, score, group, dataset) has its own name."
        )
    return names


def _shown(values):
    """The first few ``values`` as plain Python values (no numpy reprs in messages)."""
    return plain(list(np.asarray(values, dtype=object)[:_SHOWN]))


def _frame_scores(values, col, where):
    """The score column of a DataFrame (or a Parquet file) as float64, NaN where missing.

    Numbers and booleans are scores (an object column of them too); text,
    dates, categories and complex numbers are refused with their values shown.
    """
    import pandas as pd

    dtype = values.dtype
    what = None
    if isinstance(dtype, pd.CategoricalDtype):
        what, fix = "categorical values", "df[col].astype(float)"
    elif pd.api.types.is_complex_dtype(dtype):
        what, fix = "complex numbers", "a real part or modulus (np.real, np.abs)"
    elif pd.api.types.is_bool_dtype(dtype) or (pd.api.types.is_numeric_dtype(dtype)):
        return values.to_numpy(dtype=np.float64, na_value=np.nan)
    elif pd.api.types.is_datetime64_any_dtype(dtype) or pd.api.types.is_timedelta64_dtype(
            dtype):
        what, fix = f"{dtype} values (dates or durations)", "numbers"
    else:  # object or str: numbers are scores, anything else is not
        def is_number(v):
            return v is None or (isinstance(v, (int, float, np.integer, np.floating, np.bool_))
                                 and not isinstance(v, complex))

        bad = ~values.map(is_number).to_numpy(dtype=bool)
        if not bad.any():
            return pd.to_numeric(values).to_numpy(dtype=np.float64, na_value=np.nan)
        shown = _shown(values[bad])
        text = all(isinstance(v, str) for v in values[bad])
        numeric = text and pd.to_numeric(values[bad], errors="coerce").notna().all()
        what = ("numbers written as text" if numeric else "text" if text
                else "values that are not numbers")
        fix = ("pd.to_numeric(df[col])" if numeric
               else "e.g. df[col].map({'C': 1, 'I': 0})" if text else "numbers")
        raise ValueError(
            f"The score column {col!r}{where} must hold numbers (0/1, a judge's rating, ...); "
            f"it holds {what} such as {[v if isinstance(v, str) else str(v) for v in shown]}"
            f" (rows {_shown(values.index[bad])}). Convert them first: {fix}."
        )
    shown = [str(v) for v in _shown(values.drop_duplicates())]
    raise ValueError(
        f"The score column {col!r}{where} must hold real numbers (0/1, a judge's rating, ...); "
        f"it holds {what} such as {shown}. Convert them first: {fix}."
    )


def _check_finite(values, index, col, where, unit):
    bad = ~np.isfinite(values)
    if bad.any():
        raise ValueError(
            f"The score column {col!r}{where} has {int(bad.sum())} NaN or infinite value(s) "
            f"({unit} {_shown(index[bad])}; a missing score is NaN); drop or fill them first "
            "(a missing score is not a 0)."
        )
    return values


def _working_frame(frame, names, fmt, name):
    """The columns read, under sigtest's own names (system, item, score, group, dataset).

    Files of text (CSV, TSV, JSON lines) give ids by :func:`file_ids` and
    scores by :func:`file_scores`; a DataFrame or Parquet file keeps its
    ids' values and its numbers. The user's column names never meet the
    working columns.
    """
    import pandas as pd

    where = "" if name is None else f" of the file {name}"
    textual = fmt in ("csv", "tsv", "jsonl")
    unit = "lines" if textual else "rows"  # a file's frame is indexed by its lines
    out = {}
    for key in ("system", "item", "group", "dataset"):
        col = names[key]
        if col is None:
            continue
        if textual:
            ids, missing = file_ids(frame[col], fmt)
        else:
            ids, missing = frame[col].to_numpy(), frame[col].isna().to_numpy()
        if missing.any():
            raise ValueError(f"The {key} column {col!r}{where} has missing values ({unit} "
                             f"{_shown(frame.index[missing])}); every row needs its {key}.")
        out[key] = ids
    out["system"] = np.asarray(out["system"]).astype(str).astype(object)
    col = names["score"]
    scores = (file_scores(frame[col], name, fmt) if textual
              else _frame_scores(frame[col], col, where))
    out["score"] = _check_finite(scores, frame.index, col, where, unit)
    return pd.DataFrame(out)


def _codes(values):
    """Sorted codes of ids (mixed types sorted as strings): independent of the row order."""
    import pandas as pd

    try:
        codes, uniques = pd.factorize(values, sort=True)
    except TypeError:
        codes, uniques = pd.factorize(values.astype(str), sort=True)
    return codes, np.asarray(uniques)


def _align(part, systems, on_missing, where, group_col):
    """Scores of one dataset, one unit per (item, sample), aligned across systems.

    ``part``: rows of the working frame (columns system, item, score and
    maybe group).
    """
    present = [s for s in systems if s in set(part["system"])]
    item_code, item_ids = _codes(part["item"])
    part = part.assign(item=item_code)
    # repeated rows of one (system, item) are samples, numbered in table order
    part = part.assign(sample=part.groupby(["system", "item"], sort=False).cumcount())
    counts = part.groupby(["item", "system"]).size().unstack("system")
    counts = counts.reindex(columns=present)
    missing = counts.isna()
    unequal = ~missing.any(axis=1) & (counts.nunique(axis=1) > 1)
    if unequal.any():
        rows = counts[unequal].head(_SHOWN)
        detail = "; ".join(
            f"item {_shown([item_ids[i]])[0]!r}: "
            + ", ".join(f"{s}={int(c)}" for s, c in row.items()) for i, row in rows.iterrows())
        raise ValueError(
            f"{where}the systems have different numbers of rows (samples) for "
            f"{int(unequal.sum())} item(s): {detail}. Repeated rows of an item are its "
            "samples and every system needs the same number of them."
        )
    absent = [s for s in systems if s not in present]
    if absent and on_missing == "error":
        raise ValueError(
            f"{where}system(s) {absent} have no rows; every system must score the same "
            "items (on_missing='intersect' compares the systems present)."
        )
    if absent:
        warn_external(f"read_scores(on_missing='intersect'): {where}system(s) {absent} have "
                      "no rows and are left out there.", UserWarning)
    n_dropped = 0
    if missing.to_numpy().any():
        if on_missing == "error":
            detail = "; ".join(
                f"{s}: {_shown(item_ids[missing.index[missing[s]]])}"
                for s in present if missing[s].any())
            raise ValueError(
                f"{where}items are missing for some systems ({detail}); every system must "
                "score the same items. Pass on_missing='intersect' to keep only the items "
                "every system scored."
            )
        keep = missing.index[~missing.any(axis=1)]
        n_dropped = int(part.shape[0] - part["item"].isin(keep).sum())
        part = part[part["item"].isin(keep)]
        if part.shape[0] == 0:
            raise ValueError(f"{where}no item is scored by every system.")
    part = part.sort_values(["item", "sample"], kind="stable")
    scores = {s: part.loc[part["system"] == s, "score"].to_numpy() for s in present}
    first = part[part["system"] == present[0]]
    items = item_ids[first["item"].to_numpy()]
    repeated = bool((first["sample"] > 0).any())
    groups = None
    if "group" in part:
        per_item = part.groupby("item")["group"].nunique()
        if (per_item > 1).any():
            bad = _shown(item_ids[per_item.index[per_item > 1]])
            raise ValueError(
                f"{where}the group column {group_col!r} must be constant within an item (the "
                f"item lies in one cluster); items {bad} have several groups."
            )
        groups = first["group"].to_numpy()
    elif repeated:
        groups = items.copy()  # the samples of an item form its cluster
    return scores, groups, items, n_dropped


def read_scores(data, *, system="system", item="item", score="score", group="group",
                dataset="dataset", on_missing="error", format=None, encoding=None):
    """Read a long table of per-item scores and align it for :func:`sigtest.compare`.

    One row per (system, item) with its score, as evaluation harnesses
    export them; optionally a dataset (task, benchmark) column and a group
    (cluster) column. The common case is one line::

        sigtest.read_scores("runs.csv").compare()

    Parameters
    ----------
    data : pandas.DataFrame, str or path-like
        The table, or a file: ``.csv``, ``.tsv``/``.tab``, ``.parquet``/``.pq``
        (needs pyarrow) or JSON lines (``.jsonl``, ``.ndjson``, ``.json``:
        one JSON object per line).
    system, item, score : str, default="system", "item", "score"
        Names of the system, item-id and score columns. Scores must be
        numbers (bools count as 0/1), finite and present.
    group : str or None, default="group"
        Column of cluster ids (e.g. the question of several prompt variants):
        the tests then resample, permute or summarise whole clusters
        (``compare(groups=...)``). Used when the table has it; a name other
        than the default must exist. ``None``: ignore such a column.
    dataset : str or None, default="dataset"
        Column of dataset (task, benchmark) names: each dataset is aligned
        on its own, and :meth:`ScoreTable.compare_datasets` compares the
        systems over them. Used when present, as ``group``.
    on_missing : {"error", "intersect"}, default="error"
        Items scored by some systems but not by others: a ``ValueError``
        listing a few, or (``"intersect"``) only the items every system
        scored are kept, with a warning saying how many rows were dropped.
    format : {"csv", "tsv", "parquet", "jsonl"}, optional
        File format; default: from the extension.
    encoding : str, optional
        Text encoding of a CSV, TSV or JSON-lines file (e.g. ``"latin-1"``,
        ``"cp1252"``); default UTF-8, with or without a byte-order mark.
        Only for files.

    Returns
    -------
    ScoreTable
        With :meth:`~ScoreTable.compare`, :meth:`~ScoreTable.compare_datasets`
        and :meth:`~ScoreTable.arrays` (``(None, {system: scores}, groups)``).

    Raises
    ------
    ValueError
        A missing column (naming the parameter), two columns of one name,
        scores that are not real numbers or NaN (naming the score column,
        the values and rows or lines), missing ids, missing items (unless
        ``on_missing="intersect"``), different numbers of repeated rows for
        one item across systems, a group that varies within an item, fewer
        than two systems; a file that is empty, has no rows, is not valid
        JSON lines (naming the line) or not in its encoding: every message
        names the file and what to do.
    FileNotFoundError
        ``data`` names no file.
    ImportError
        A Parquet file without pyarrow installed.

    Notes
    -----
    **Ids are labels.** Ids read from a CSV, TSV or JSON-lines file (the
    system, item, group and dataset columns) are compared by their text:
    ``01`` and ``1``, ``007`` and ``7``, ``1e3`` and ``1000``, ``2.5`` and
    ``2.50`` are different items, and ``NA``, ``None``, ``null``, ``nan``
    are names (only an empty field or a JSON ``null`` is a missing id). A
    JSON number counts as the text it is written with, so ``7`` and
    ``"7"`` are one id. A column whose ids are all integers written without
    sign or leading zero gives int64 ids (sorted as numbers), any other
    column str ids; system names are always str. A DataFrame's ids are its
    values. Scores must be numbers: a JSON string, CSV text that is not a
    number, dates, categories or complex numbers are refused with the
    values shown; an empty CSV field or a missing-value word (``NA``,
    ``nan``, ...) in the score column is a missing score.

    **Alignment.** Items are matched by id within each dataset and sorted
    by id, so the result does not depend on the row order.

    **Repeated rows.** Several rows of one (system, item) are repeated
    samples of that item (epochs, sampled generations): each row is its own
    unit, the k-th row of an item in one system is paired with the k-th of
    every other (in table order), every system must have the same number of
    rows for the item, and the item becomes the cluster (``groups``) unless
    a group column is given (the items must then lie in one group each).
    The pairing within an item does not matter: every test on clustered data
    uses only the clusters' sums (cluster bootstrap and permutation, the
    cluster-level sign, Wilcoxon and t-tests, Durkalski's McNemar). The
    metric ``"mean"`` of a system is the mean over all its rows.

    Examples
    --------
    >>> import pandas as pd
    >>> import sigtest
    >>> df = pd.DataFrame({"system": ["a"] * 4 + ["b"] * 4,
    ...                    "item": ["q1", "q2", "q3", "q4"] * 2,
    ...                    "score": [1, 0, 1, 0, 1, 1, 1, 0]})
    >>> table = sigtest.read_scores(df)
    >>> table
    ScoreTable(systems=['a', 'b'], 4 units)
    >>> y_true, scores, groups = table.arrays()
    >>> scores["b"].tolist(), groups is None
    ([1.0, 1.0, 1.0, 0.0], True)
    """
    import pandas as pd

    if on_missing not in _ON_MISSING:
        raise ValueError(
            f"The 'on_missing' parameter must be one of {_ON_MISSING}. Got {on_missing!r}."
        )
    if format is not None and format not in set(FORMATS.values()):
        raise ValueError(
            f"The 'format' parameter must be one of {sorted(set(FORMATS.values()))} or None. "
            f"Got {format!r}."
        )
    if isinstance(data, pd.DataFrame):
        for key, value in (("format", format), ("encoding", encoding)):
            if value is not None:
                raise ValueError(f"The '{key}' parameter applies to files, not to a DataFrame.")
        frame, fmt, name = data, None, None
    elif isinstance(data, (str, os.PathLike)):
        frame, fmt, name = read_file(data, format, check_encoding(encoding), score)
    else:
        raise TypeError(
            "The 'data' parameter must be a pandas DataFrame or a file path. Got "
            f"{type(data).__name__} instead."
        )
    names = _columns(frame, system, item, score, group, dataset,
                     "" if name is None else f" in the file {name}")
    work = _working_frame(frame, names, fmt, name)
    systems = list(dict.fromkeys(work["system"]))
    if len(systems) < 2:
        raise ValueError(
            f"The system column {names['system']!r} names {len(systems)} system(s) "
            f"{systems}; a comparison needs at least two."
        )
    out, dropped = {}, {}
    if names["dataset"] is None:
        parts = [(None, work)]
    else:
        codes, uniques = _codes(work.pop("dataset"))
        parts = [(_shown([uniques[k]])[0], work[codes == k]) for k in range(len(uniques))]
    for label, part in parts:
        where = "" if label is None else f"Dataset {label!r}: "
        scores, groups, items, n_dropped = _align(part, systems, on_missing, where,
                                                  names["group"])
        out[label] = (None, scores, groups, items)
        dropped[label] = n_dropped
    if any(dropped.values()):
        warn_external(
            "read_scores(on_missing='intersect') dropped the rows of items not scored by "
            "every system: " + ", ".join(
                f"{'' if d is None else f'{d}: '}{n} row(s)" for d, n in dropped.items() if n),
            UserWarning,
        )
    return ScoreTable(out, systems, dropped)
