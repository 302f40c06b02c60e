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

from sigtest._workflows.harness_logs import check_harness_columns, read_inspect, read_lm_eval
from sigtest._workflows.score_align import VARIANT_NAMES, align
from sigtest._workflows.score_align import codes as _codes
from sigtest._workflows.score_align import shown as _shown
from sigtest._workflows.score_files import (FORMATS, check_encoding, file_ids, file_scores,
                                            read_file)
from sigtest._workflows.score_paths import (HARNESSES, LM_EVAL_PATTERN, detect_harness,
                                            expand_sources, path_fields)
from sigtest.utils import warn_external

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
        sizes = ", ".join(("" if d is None else f"{d}: ") + _units(*self._data[d][2:])
                          for d in self.datasets)
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

    def compare(self, dataset=None, *, overall=None, **kwargs):
        """:func:`sigtest.compare` of the systems on their per-item scores.

        Parameters
        ----------
        dataset : hashable, optional
            The dataset to compare; required when the table has several
            (unless ``overall`` is given).
        overall : {"macro", "micro"} or None, default=None
            Compare the systems over all the datasets (the tasks of a
            benchmark suite) at once, each dataset's items resampled within
            it (``strata=`` the dataset): ``"macro"``, the mean of the
            datasets' means (every dataset weighs the same); ``"micro"``,
            the mean over all the items pooled. See
            ``docs/per_item_scores.md``.
        **kwargs
            Passed to :func:`sigtest.compare` (``test``, ``pairs``,
            ``baseline``, ``correction``, ``random_state``, ...);
            ``metrics`` defaults to ``"mean"`` and ``groups`` comes from the
            table (giving it again is an error), and so do ``strata`` with
            ``overall``.

        Returns
        -------
        ComparisonResult
            The comparison of every pair of systems on ``"mean"``.

        Raises
        ------
        ValueError
            ``dataset`` and ``overall`` together, or ``overall`` with a
            system that has no rows in some dataset.
        TypeError
            ``groups``, or ``strata`` with ``overall``.

        Examples
        --------
        >>> import numpy as np, pandas as pd
        >>> import sigtest
        >>> rng = np.random.default_rng(0)
        >>> rows = [(task, f"q{i}", name, float(rng.random() < p))
        ...         for task, n in (("arith", 60), ("trivia", 240))
        ...         for i in range(n) for name, p in (("small", 0.5), ("large", 0.8))]
        >>> df = pd.DataFrame(rows, columns=["dataset", "item", "system", "score"])
        >>> res = sigtest.read_scores(df).compare(overall="macro", random_state=0)
        >>> res.n_strata
        2
        >>> res.letters("mean")["letters"].tolist()
        ['a', 'b']
        """
        # compare loads numba, scipy and pandas: read_scores imports without them
        from sigtest._workflows.compare.api import compare

        _check_no_groups(kwargs)
        kwargs.setdefault("metrics", "mean")
        if overall is None:
            y_true, scores, groups = self.arrays(dataset)
            return compare(y_true, scores, groups=groups, **kwargs)
        # with compare: the overall weights need the engine's design checks
        from sigtest._workflows.overall import table_inputs

        if dataset is not None:
            raise ValueError(
                f"The 'dataset' parameter ({dataset!r}) and the 'overall' parameter "
                f"({overall!r}) exclude each other: overall compares over every dataset."
            )
        if "strata" in kwargs:
            raise TypeError(
                "The 'strata' keyword comes from the table's datasets with overall=...; "
                "leave it out."
            )
        scores, groups, strata = table_inputs(self._data, self.systems)
        return compare(None, scores, groups=groups, strata=strata, overall=overall, **kwargs)

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


def _units(groups, items):
    """``"240 units (3 rows per item → clustered by item)"``: the size of one dataset."""
    text = f"{len(items)} units"
    if len(items) > 1:
        runs = np.diff(np.flatnonzero(np.r_[True, items[1:] != items[:-1], True]))
        low, high = int(runs.min()), int(runs.max())
        if high > 1:
            by = "item" if groups is not None and np.array_equal(groups, items) else "group"
            text += (f" ({low if low == high else f'{low}-{high}'} rows per item → clustered "
                     f"by {by})")
    return text


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
    working columns. Returns a dict of arrays.
    """
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
    system = out["system"]  # text from a file's reader (int64 if every name is an integer)
    out["system"] = (system if textual and system.dtype == object
                     else system.astype(str).astype(object) if textual else _as_text(system))
    col = names["score"]
    scores = (file_scores(frame[col], name, fmt) if textual
              else _frame_scores(frame[col], col, where))
    out["score"] = _check_finite(scores, frame.index, col, where, unit)
    return out


def _as_text(values):
    """System names as str (object array): each distinct value converted once."""
    import pandas as pd

    codes, uniques = pd.factorize(np.asarray(values, dtype=object))
    return np.asarray([str(u) for u in uniques], dtype=object)[codes]


#: Fields of a path pattern that fill a column (its keyword); others are variants.
_FIELD_KEYWORDS = {"system": "system", "task": "dataset", "dataset": "dataset",
                   "group": "group", "item": "item"}
_VARIANT_HINT = ("the column {col!r}", "keep the rows of one {col} (e.g. "
                 "df[df[{col!r}] == {first}]) or, if they are samples, rename the column.")
_FILE_HINT = ("the file they come from", "keep one file per system and task (a re-run "
              "writes a new file) or give a pattern that names the system of each file.")


def _variant_columns(frame, used):
    """Columns of ``frame`` named as variants (filter, metric, prompt template, ...)."""
    return [c for c in frame.columns if isinstance(c, str) and c not in used
            and c.lower() in VARIANT_NAMES]


def _add_fields(frame, fields, path, params, name):
    """The fields of the file's path as columns of its frame; returns the variant fields."""
    extra = []
    for field, value in fields(path).items():
        key = _FIELD_KEYWORDS.get(field)
        col = params[key] if key is not None else field
        if col is None:
            raise ValueError(f"The pattern gives the {{{field}}} of {name}, but {key}=None; "
                             f"pass {key}=<column name> (or leave the default).")
        if col in frame.columns:
            raise ValueError(f"The file {name} has a column {col!r} and the pattern gives its "
                             f"{{{field}}} too; remove the field from the pattern.")
        frame[col] = value
        if key is None:
            extra.append(col)
    return extra


def _read_tables(files, fields, fmt, encoding, params):
    """The working columns and variant columns of one or several tables of scores."""
    works, variants = [], []
    for path in files:
        frame, file_fmt, name = read_file(path, fmt, encoding, params["score"])
        extra = [] if fields is None else _add_fields(frame, fields, path, params, name)
        names = _columns(frame, *(params[k] for k in ("system", "item", "score", "group",
                                                      "dataset")), f" in the file {name}")
        work = _working_frame(frame, names, file_fmt, name)
        used = set(names.values())
        variants.append({c: frame[c].to_numpy(dtype=object)
                         for c in extra + _variant_columns(frame, used)})
        if len(files) > 1:
            variants[-1]["file"] = np.full(frame.shape[0], os.fspath(path), dtype=object)
        works.append(work)
    keys = set(works[0])
    for path, work in zip(files, works):
        if set(work) != keys:
            odd = sorted(keys ^ set(work))
            raise ValueError(f"The files do not all have the same columns: {path!r} "
                             f"{'lacks' if keys - set(work) else 'adds'} the {odd} column(s) "
                             f"of {files[0]!r}; every file needs the same columns.")
    work = {k: np.concatenate([w[k] for w in works]) if len(works) > 1 else works[0][k]
            for k in works[0]}
    out = {}
    for col in dict.fromkeys(c for v in variants for c in v):
        out[col] = (np.concatenate([v.get(col, np.full(len(w["score"]), None, dtype=object))
                                    for v, w in zip(variants, works)]),
                    _FILE_HINT if col == "file" else _hint(col))
    return work, out


def _hint(col):
    return (_VARIANT_HINT[0].format(col=col), _VARIANT_HINT[1].format(col=col, first="{first}"))


def _harness_columns(harness, files, params, filter, fields, encoding):
    """The working columns and variants of the files of an evaluation harness."""
    check_harness_columns(harness, [(k, params[k], d) for k, d in (
        ("system", "system"), ("item", "item"), ("group", "group"), ("dataset", "dataset"))])
    if harness == "lm-eval":
        work, variants = read_lm_eval(
            files, score=params["score"], default_score="score", filter=filter,
            fields=path_fields(LM_EVAL_PATTERN) if fields is None else fields,
            encoding=encoding)
    else:
        if filter is not None:
            raise ValueError("The 'filter' parameter applies to harness='lm-eval' (inspect_ai "
                             "logs have one row per sample and epoch); name the scorer with "
                             "score=.")
        if fields is not None:
            raise ValueError("The 'pattern' parameter does not apply to harness='inspect': "
                             "the log names its model and task.")
        work, variants = read_inspect(files, score=params["score"], default_score="score")
    return work, {k: (v, _FILE_HINT) for k, v in variants.items()}


def _table(work, variants, system_col, on_missing, group_col):
    """The ScoreTable of the working columns: one alignment per dataset."""
    import pandas as pd

    sys_code, uniques = pd.factorize(work["system"])
    systems = [str(s) for s in uniques]
    if len(systems) < 2:
        what = (f"The system column {system_col!r} names" if system_col
                else "The files name")
        raise ValueError(f"{what} {len(systems)} system(s) {systems}; a comparison needs at "
                         "least two.")
    if "dataset" in work:
        dcode, duniques = _codes(work["dataset"])
        parts = [(_shown([duniques[k]])[0], dcode == k) for k in range(len(duniques))]
    else:
        parts = [(None, None)]
    out, dropped = {}, {}
    for label, mask in parts:
        where = "" if label is None else f"Dataset {label!r}: "
        part = {k: (v if mask is None else v[mask]) for k, v in work.items()
                if k not in ("dataset", "system")}
        part["sys"] = sys_code if mask is None else sys_code[mask]
        var = {k: (v if mask is None else v[mask], hint) for k, (v, hint) in variants.items()}
        scores, groups, items, n_dropped = align(part, systems, on_missing, where, group_col,
                                                 var)
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


def _check_options(on_missing, format, harness):
    if on_missing not in _ON_MISSING:
        raise ValueError(
            f"The 'on_missing' parameter must be one of {_ON_MISSING}. Got {on_missing!r}."
        )
    if format is not None and format not in set(FORMATS.values()):
        raise ValueError(
            f"The 'format' parameter must be one of {sorted(set(FORMATS.values()))} or None. "
            f"Got {format!r}."
        )
    if harness is not None and harness not in HARNESSES:
        raise ValueError(f"The 'harness' parameter must be one of {list(HARNESSES)} or None. "
                         f"Got {harness!r}.")


def read_scores(data, *, system="system", item="item", score="score", group="group",
                dataset="dataset", on_missing="error", format=None, encoding=None,
                harness=None, filter=None, pattern=None):
    """Read a long table of per-item scores and align it for :func:`sigtest.compare`.

    One row per (system, item) with its score, as evaluation harnesses
    export them; optionally a dataset (task, benchmark) column and a group
    (cluster) column. The common case is one line::

        sigtest.read_scores("runs.csv").compare()

    Parameters
    ----------
    data : pandas.DataFrame, str, path-like or list of them
        The table, or files: a file, a glob (``"out/*/samples_gsm8k_*.jsonl"``),
        a folder (searched below for tables, or for the files of ``harness``)
        or a list of files. A table file is ``.csv``, ``.tsv``/``.tab``,
        ``.parquet``/``.pq`` (needs pyarrow) or JSON lines (``.jsonl``,
        ``.ndjson``, ``.json``: one JSON object per line); several files are
        read as one table (each file's ids typed on their own), aligned by
        item id as one file.
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
    harness : {"lm-eval", "inspect"}, optional
        Read what an evaluation harness writes instead of a table:
        ``"lm-eval"``, lm-evaluation-harness' ``--log_samples`` files
        ``<model>/samples_<task>_<date>.jsonl`` (system: the model folder,
        dataset: the task, item: ``doc_id``, score: the metric named by
        ``score``, e.g. ``"exact_match"``, ``"acc"``, ``"acc_norm"``);
        ``"inspect"``, inspect_ai's ``.eval`` and ``.json`` logs (system: the
        model, dataset: the task, item: the sample id, its epochs repeated
        rows, score: the scorer named by ``score``, its values mapped as
        inspect_ai's ``value_to_float``: C 1, P 0.5, I and N 0). ``score``
        may stay at its default when the files hold one metric or scorer.
        Default: lm-eval when every file is named ``samples_*.jsonl``,
        inspect when every file is an ``.eval`` log, else a table.
    filter : str, optional
        With ``harness="lm-eval"``: the filter whose rows are read (e.g.
        ``"strict-match"``, ``"flexible-extract"``); required when a file
        holds several (one row per document and filter).
    pattern : str or callable, optional
        Where the system and the dataset come from when they are not
        columns: a pattern of the end of every path with named fields,
        ``"{system}/samples_{task}_{date}.jsonl"`` (``{system}``, ``{task}``
        or ``{dataset}``, ``{group}``, ``{item}`` fill those columns; any
        other field, such as ``{date}``, must not differ between the rows
        of one system and item; ``*`` matches any text), or a callable
        ``path -> {"system": ..., "task": ...}``. For lm-eval the default is
        ``"{system}/samples_{task}_{date}.jsonl"``.

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
        than two systems; repeated rows of one (system, item) that differ in
        a variant column (``filter``, ``metric``, ``prompt``,
        ``prompt_template``, ``template``, ``variant``, ``scorer``, a pattern's
        field other than system or task, the file) naming it; an
        lm-evaluation-harness file of several filters without ``filter``
        (listing them); a file that is empty, has no rows, is not valid
        JSON lines (naming the line) or not in its encoding: every message
        names the file and what to do.
    FileNotFoundError
        ``data`` names no file (or a glob or folder matches none).
    ImportError
        A Parquet file without pyarrow installed; an inspect_ai ``.eval``
        log without inspect_ai installed (its ``.json`` logs need none).

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
    metric ``"mean"`` of a system is the mean over all its rows. Rows that
    are variants of the item rather than samples of it (two filters of
    lm-evaluation-harness, two metrics, two prompt templates, two files)
    are refused, naming the column: their mean would mix two scores.

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

    _check_options(on_missing, format, harness)
    params = {"system": system, "item": item, "score": score, "group": group,
              "dataset": dataset}
    if isinstance(data, pd.DataFrame):
        for key, value in (("format", format), ("encoding", encoding), ("harness", harness),
                           ("filter", filter), ("pattern", pattern)):
            if value is not None:
                raise ValueError(f"The '{key}' parameter applies to files, not to a DataFrame.")
        names = _columns(data, system, item, score, group, dataset, "")
        work = _working_frame(data, names, None, None)
        variants = {c: (data[c].to_numpy(dtype=object), _hint(c))
                    for c in _variant_columns(data, set(names.values()))}
        return _table(work, variants, names["system"], on_missing, names["group"])
    files, _ = expand_sources(data, harness)
    fields = path_fields(pattern)
    harness = harness or (detect_harness(files) if format is None else None)
    if harness is not None:
        work, variants = _harness_columns(harness, files, params, filter, fields,
                                          check_encoding(encoding))
        return _table(work, variants, None, on_missing, None)
    if filter is not None:
        raise ValueError("The 'filter' parameter applies to harness='lm-eval' (files "
                         "samples_<task>_<date>.jsonl); for a table, keep the rows of one "
                         "filter yourself.")
    work, variants = _read_tables(files, fields, format, check_encoding(encoding), params)
    system_col = system if "system" not in ((fields and fields(files[0])) or {}) else None
    return _table(work, variants, system_col, on_missing, group)
