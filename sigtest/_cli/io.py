"""Reading gold labels, predictions and item ids from files (used by the CLI).

:func:`read_predictions` reads labels or probabilities; :func:`read_ids`
reads one id per line (item, cluster or stratum ids) with the same rules,
refusing files of several columns.

Formats, chosen by suffix: ``.npy`` (a NumPy array, never unpickled),
``.csv`` (comma separated), ``.tsv`` (tab separated), anything else
whitespace-separated text. One column gives labels (int64 when every value
is an integer written without leading zeros; for labels, also when every
value is a number, e.g. ``1.0`` next to ``1``: float64, int64 when all are
whole; else str; ids keep their exact text); several columns give
an ``(n_samples, n_classes)`` float64 array of probabilities (or of label
memberships with ``multilabel=True``). In whitespace-separated text that is
not a table of numbers one line is one label (``very positive``).
:func:`read_columns` picks the label (and item-id) column of a table.

Every error is a :class:`ValueError` whose message names the file, and the
line for problems in a line (lines count from 1, a header line included).

Header rows
-----------
With ``header=None`` (the default) a first row that does not look like the
rest of its column stops the reading with an error that suggests
``--header`` (skip it) or ``--no-header`` (it is data). The first row is
taken for a header when

* several columns: it holds no number while every other row holds only
  numbers, or it holds integers (column numbers such as ``0,1,2``) that do
  not make a valid row (values in [0, 1] and, for distributions, a sum
  within the rounding tolerance) while every other row is valid, or it has
  more fields than the other rows;
* one column of numbers: it is not a number while the (at least 2) other
  rows all are;
* one column of labels: its value never occurs again while the other rows
  (at least 10) hold few distinct labels, at most ``min(50, (n - 1) // 5)``,
  i.e. every label is seen 5 times on average. A real label seen only in
  line 1 of a file with few classes is rare (at most the number of
  labels seen once divided by ``n``); item-id files (all values distinct)
  are never taken for headed.

Soft rows
---------
Rows of probabilities go through
:func:`sigtest.metrics._check_proba.normalize_rows`, the same rule as arrays
given to the metrics: a sum within ``1e-6`` of 1 is used as given, within
``1e-3`` (4 printed decimals over up to 20 classes) the row is divided by
its sum with a warning, further off is an error naming the file, the line
and the sum.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from sigtest._workflows.score_files import check_encoding, integer_ids
from sigtest.metrics._check_proba import ROW_SUM_RENORM_ATOL, normalize_rows

__all__ = ["read_columns", "read_ids", "read_predictions"]

_MIN_ROWS_LABEL_HEADER = 10  # rows after line 1 needed to judge a label column
_MAX_DISTINCT_LABELS = 50


def _header_error(path, reason, table=None):
    """The error of a header row; ``table``: the cells of a table of several columns."""
    hint = "" if table is None else _columns_hint(table)
    return ValueError(
        f"The file {str(path)!r} seems to have a header row: {reason}. Pass --header "
        f"(header=True) to skip it, or --no-header (header=False) if line 1 is data.{hint}"
    )


def _columns_hint(cells):
    """A hint at --id-column / --label-column for a table read as probabilities.

    A gold or prediction file of several columns is read as probabilities;
    a table of item ids and labels (``id,label``) needs its columns picked.
    The hint uses the names of line 1 when it looks like a header (no
    number, no value seen again in its column), else column numbers.
    """
    if cells.ndim != 2 or cells.shape[1] < 2:
        return ""
    first = cells[0]
    named = (bool(np.isnan(_as_numbers(first)).all()) and all(first)
             and not (cells[1:] == first).any())
    ids, labels = ((str(first[0]), str(first[-1])) if named
                   else ("1", str(cells.shape[1])))
    ids, labels = (repr(v) if " " in v else v for v in (ids, labels))
    return (f" If it holds item ids and labels, pick the columns with --id-column {ids} "
            f"--label-column {labels} (a header name or a column number from 1).")


def _as_numbers(cells):
    """Float values of string ``cells`` (NaN where a cell is not a number)."""
    flat = pd.to_numeric(pd.Series(cells.ravel()), errors="coerce").to_numpy(np.float64)
    return flat.reshape(cells.shape)


def _valid_rows(values, multilabel):
    """Boolean mask of rows with finite values in [0, 1] (and, for distributions,
    a sum within the rounding tolerance)."""
    ok = np.all(np.isfinite(values) & (values >= 0) & (values <= 1), axis=1)
    if not multilabel:
        ok &= np.abs(values.sum(axis=1) - 1.0) <= ROW_SUM_RENORM_ATOL
    return ok


def _detect_header(path, cells, multilabel):
    """Raise if line 1 of the string table ``cells`` looks like a header."""
    n, m = cells.shape
    if n < 2:
        return
    first, rest = cells[0], cells[1:]
    if m > 1:
        filled = rest != ""
        if not filled.all() and filled[:, : filled.sum(axis=1).max()].all() \
                and (cells[0] != "").all():
            raise _header_error(path, f"line 1 has {m} fields, the other rows "
                                      f"{int(filled.sum(axis=1).max())}", cells)
        num = _as_numbers(cells)
        rest_numeric = not np.isnan(num[1:]).any()
        if rest_numeric and np.isnan(num[0]).all():
            raise _header_error(path, f"line 1 ({', '.join(map(str, first))}) holds text, the "
                                      f"other {n - 1} rows numbers", cells)
        if rest_numeric and n >= 3 and not np.isnan(num[0]).any() \
                and np.array_equal(num[0], np.round(num[0])):
            valid = _valid_rows(num, multilabel)
            if not valid[0] and valid[1:].all():
                what = "label memberships" if multilabel else "probability distributions"
                raise _header_error(path, f"line 1 ({', '.join(map(str, first))}) is not one "
                                          f"of the {what} of the other {n - 1} rows", cells)
        return
    head = first[0]
    # each distinct value converted once (a label column repeats a few)
    codes, uniques = pd.factorize(cells[:, 0])
    num = _as_numbers(np.asarray(uniques, dtype=cells.dtype))[codes]
    if n >= 3 and np.isnan(num[0]) and not np.isnan(num[1:]).any():
        raise _header_error(path, f"line 1 ({str(head)!r}) is not a number, the other {n - 1} "
                                  "rows are")
    distinct = uniques[np.unique(codes[1:])]  # the values of rows 2..n
    if (n - 1 >= _MIN_ROWS_LABEL_HEADER
            and len(distinct) <= min(_MAX_DISTINCT_LABELS, (n - 1) // 5)
            and head not in set(distinct.tolist())):
        raise _header_error(path, f"line 1 ({str(head)!r}) never occurs again, while the other "
                                  f"{n - 1} rows hold only {len(distinct)} distinct labels")


def _read_npy(path):
    with open(path, "rb") as fh:
        if fh.read(6) != b"\x93NUMPY":
            raise ValueError(f"The file {str(path)!r} is not a valid .npy file (it does not "
                             "start with the NumPy header); save it with numpy.save.")
    try:
        values = np.load(path, allow_pickle=False)
    except ValueError as exc:
        if "Object arrays" in str(exc) or "allow_pickle" in str(exc):
            raise ValueError(
                f"The file {str(path)!r} holds a NumPy object array, which sigtest does not "
                "load (unpickling can run code); save numbers or strings instead, e.g. "
                "np.save(path, values.astype(str))."
            ) from None
        raise ValueError(f"The file {str(path)!r} is not a valid .npy file: {exc}") from None
    except (OSError, EOFError) as exc:
        raise ValueError(f"The file {str(path)!r} is not a valid .npy file: {exc}") from None
    if values.dtype.kind not in "biufUS":
        raise ValueError(f"The file {str(path)!r} holds an array of dtype {values.dtype}; "
                         "sigtest reads numbers or strings.")
    if values.dtype.kind == "S":
        values = values.astype(str)
    if values.ndim not in (1, 2) or values.size == 0:
        raise ValueError(f"The file {str(path)!r} must hold a non-empty 1-D or 2-D array; "
                         f"it holds one of shape {values.shape}.")
    return values


def _label_lines(path, header, encoding):
    """A whitespace-separated text file that is not a table of numbers: one label a line.

    Called when the fields of the file do not make a table of numbers (rows
    of unequal lengths, or text in several columns), e.g. labels holding a
    space (``very positive``). Each line, stripped, is one label; trailing
    empty lines are ignored, an empty line within the data is an error.
    Lines whose first fields are all distinct (an id column before the
    labels) are refused: one line is one label, and ids and labels belong
    in a ``.csv`` / ``.tsv`` file read with ``--id-column`` / ``--label-column``.
    """
    lines = path.read_text(encoding=encoding).splitlines()
    while lines and not lines[-1].strip():
        lines.pop()
    first = 1 if header is not False else 0  # line 1 may be a header
    data = [line.split() for line in lines[first:]]
    empty = [k for k, fields in enumerate(data) if not fields]
    if empty:
        raise ValueError(f"The file {str(path)!r} has an empty line {empty[0] + first + 1}; "
                         "give one label per line.")
    heads = [fields[0] for fields in data]
    if len(lines) >= 3 and all(len(line.split()) >= 2 for line in lines) \
            and len(set(heads)) == len(heads):
        raise ValueError(
            f"The file {str(path)!r} looks like several columns (line 1: "
            f"{lines[0].strip()!r}), the first one all distinct (item ids?), but one "
            "line of a whitespace-separated text file is one label. Keep only the labels, "
            "or write a .csv or .tsv file and pick the columns with --id-column and "
            "--label-column.")
    return np.asarray([[line.strip()] for line in lines], dtype=str)


def _is_table_of_numbers(cells, header):
    """Whether the data rows of a whitespace-separated ``cells`` table are all numbers."""
    data = cells[1:] if header is not False else cells
    return cells.shape[1] == 1 or not np.isnan(_as_numbers(data)).any()


def _read_table(path, header, encoding, columns=False):
    """The cells of a text file as a 2-D str array (missing fields: ``""``).

    In a whitespace-separated file (neither ``.csv`` nor ``.tsv``) whose
    fields do not make a table of numbers, one line is one label
    (:func:`_label_lines`), unless ``columns`` (columns picked by
    :func:`read_columns`).
    """
    sep = {".csv": ",", ".tsv": "\t"}.get(path.suffix, r"\s+")
    try:
        frame = pd.read_csv(
            path, sep=sep, header=None, dtype=str, keep_default_na=False,
            engine="python" if sep == r"\s+" else "c", encoding=encoding,
        )
        cells = frame.fillna("").to_numpy(dtype=str)
        if sep == r"\s+" and not columns and not _is_table_of_numbers(cells, header):
            cells = _label_lines(path, header, encoding)
    except pd.errors.EmptyDataError:
        raise ValueError(f"The file {str(path)!r} is empty.") from None
    except pd.errors.ParserError as exc:
        if sep != r"\s+" or columns:
            raise ValueError(f"The file {str(path)!r} could not be read: "
                             f"{str(exc).strip()}.") from None
        try:
            cells = _label_lines(path, header, encoding)  # e.g. a label with a space in line 2
        except UnicodeDecodeError:
            raise _encoding_error(path, encoding) from None
    except UnicodeDecodeError:
        raise _encoding_error(path, encoding) from None
    if header:
        cells = cells[1:]
        # a header with more fields than the data (e.g. "gold label") leaves empty columns
        cells = cells[:, (cells != "").any(axis=0) | (np.arange(cells.shape[1]) == 0)]
    if cells.shape[0] == 0:
        raise ValueError(f"The file {str(path)!r} holds no rows"
                         + (" after its header." if header else "."))
    return cells


def _encoding_error(path, encoding):
    shown = "UTF-8" if encoding == "utf-8-sig" else repr(encoding)
    return ValueError(f"The file {str(path)!r} is not a {shown} text file; pass its encoding "
                      "with --encoding (encoding=), e.g. --encoding latin-1 or cp1252, or save "
                      "it as UTF-8 (.npy, .csv, .tsv and whitespace-separated text are read).")


def read_predictions(path, *, header=None, multilabel=False, encoding=None):
    """Read gold labels, predictions or item ids from ``path``.

    Parameters
    ----------
    path : str or Path
        ``.npy``, ``.csv``, ``.tsv`` or whitespace-separated text.
    header : bool or None, default=None
        Whether the first row holds column names (True: skip it; False: it
        is data). None detects a header row and raises an error suggesting
        ``--header`` (see the rule in the module docstring).
    multilabel : bool, default=False
        Whether several columns hold label memberships in [0, 1] (rows need
        not sum to 1) rather than probability distributions.
    encoding : str, optional
        Text encoding of a text file (default UTF-8, with or without a
        byte-order mark).

    Returns
    -------
    values : ndarray of shape (n_samples,) or (n_samples, n_columns)
        1-D labels (int64 if all values are integers, else str), or a 2-D
        float64 array when the file has several columns.

    Raises
    ------
    ValueError
        A missing, empty or unreadable file, an object ``.npy`` array, a
        header row without ``header=True``, text where numbers are needed,
        values outside [0, 1] or rows that do not sum to 1; the message
        names the file (and the line).

    Warns
    -----
    ProbabilityRoundingWarning
        Rows of probabilities that sum to 1 only up to rounding were
        renormalised (see :func:`sigtest.metrics._check_proba.normalize_rows`).

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> from sigtest.cli import read_predictions
    >>> path = Path(tempfile.mkdtemp()) / "pred.txt"
    >>> _ = path.write_text("pos\\nneg\\npos\\n")
    >>> read_predictions(path).tolist()
    ['pos', 'neg', 'pos']
    """
    return _read_values(path, header, multilabel, one_column=False, encoding=encoding)


def read_ids(path, *, header=None, encoding=None):
    """Read one id per line (item, cluster or stratum ids) from ``path``.

    The formats, the header rule and the type rule of
    :func:`read_predictions` (int64 when every value is an integer written
    without leading zeros, else str); a file of several columns (or a 2-D
    ``.npy`` array) is an error instead of probabilities.

    Parameters
    ----------
    path : str or Path
        ``.npy``, ``.csv``, ``.tsv`` or whitespace-separated text.
    header : bool or None, default=None
        As in :func:`read_predictions`.
    encoding : str, optional
        As in :func:`read_predictions`.

    Returns
    -------
    ids : ndarray of shape (n_samples,)
        int64 or str.

    Raises
    ------
    ValueError
        The errors of :func:`read_predictions`, and a file of several
        columns; the message names the file.
    """
    return _read_values(path, header, False, one_column=True, encoding=encoding)


def _check_one_column(path, table, one_column):
    if one_column and table.ndim == 2 and table.shape[1] > 1:
        raise ValueError(f"The file {str(path)!r} must hold one id per line; it has "
                         f"{table.shape[1]} columns.")


def _existing(path):
    path = Path(path)
    if not path.exists():
        raise ValueError(f"The file {str(path)!r} does not exist.")
    if not path.is_file():
        raise ValueError(f"{str(path)!r} is a directory, not a file.")
    return path


def _check_filled(path, cells, offset):
    missing = cells == ""
    if missing.any():
        i = int(np.flatnonzero(missing.any(axis=1))[0])
        raise ValueError(
            f"The file {str(path)!r} has {cells.shape[1]} columns but its line "
            f"{i + offset} has {int((~missing[i]).sum())} fields.")


def _read_values(path, header, multilabel, one_column, encoding):
    path = _existing(path)
    encoding = check_encoding(encoding)
    offset = 1  # line number of row 0
    if path.suffix == ".npy":
        values = _read_npy(path)
        _check_one_column(path, values, one_column)
        where = "row"
    else:
        cells = _read_table(path, header, encoding)
        _check_one_column(path, cells, one_column)
        offset, where = (2 if header else 1), "line"
        if header is None:
            _detect_header(path, cells, multilabel)
        _check_filled(path, cells, offset)
        values = cells[:, 0] if cells.shape[1] == 1 else cells
    if values.ndim == 2:
        return _check_soft(path, values, multilabel, offset, where)
    return _typed(values, labels=not one_column)


#: An integer written with a leading zero (``007``): text, not a number.
_LEADING_ZERO = r"[+-]?0[0-9]"


def _typed(values, labels):
    """1-D cells as int64 when every value is an integer written without leading
    zeros; for ``labels``, also when every value is a number (``1.0`` next to
    ``1``): float64, int64 when all are whole. Else str.
    """
    if values.dtype.kind not in "UO":
        return values
    as_int = integer_ids(values.astype(str))
    if as_int is not None:
        return as_int
    if labels:
        text = pd.Series(values.astype(str))
        num = pd.to_numeric(text, errors="coerce").to_numpy(np.float64)
        if np.isfinite(num).all() and not text.str.match(_LEADING_ZERO).any():
            whole = num == np.round(num)
            if whole.all() and np.abs(num).max() < 2.0 ** 53:
                return num.astype(np.int64)
            return num
    return values


def _column_index(path, spec, names, n_columns, option):
    """0-based index of the column ``spec``: a 1-based number or a header name."""
    spec = str(spec)
    if spec.isdigit():
        k = int(spec)
        if not 1 <= k <= n_columns:
            raise ValueError(f"{option} {spec}: the file {str(path)!r} has {n_columns} "
                             "columns (numbered from 1).")
        return k - 1
    hits = [] if names is None else [j for j, name in enumerate(names) if name == spec]
    if len(hits) != 1:
        raise ValueError(
            f"{option} {spec!r}: the header row of {str(path)!r} "
            + ("holds no such column" if not hits else "holds it twice")
            + f"; its columns are {[str(name) for name in names]}.")
    return hits[0]


def read_columns(path, *, label_column=None, id_column=None, header=None, encoding=None):
    """Read the label column (and the item-id column) of a table.

    Parameters
    ----------
    path : str or Path
        ``.csv``, ``.tsv`` or whitespace-separated text of several columns.
    label_column, id_column : str or int, optional
        A column: its name in the header row (then line 1 is the header) or
        its number, counting from 1. ``label_column`` defaults to the other
        column of a two-column file when ``id_column`` is given.
    header : bool or None, default=None
        As in :func:`read_predictions`; a column given by name implies a
        header row (``header=False`` is then an error). With columns given
        by number and ``header=None``, each column read is checked for a
        header row by the one-column rule.
    encoding : str, optional
        As in :func:`read_predictions`.

    Returns
    -------
    ids : ndarray of shape (n_samples,) or None
        The item ids (typed as :func:`read_ids` types them), None without
        ``id_column``.
    labels : ndarray of shape (n_samples,)
        The labels (typed as :func:`read_predictions` types them).

    Raises
    ------
    ValueError
        The errors of :func:`read_predictions`, a ``.npy`` file, a column
        that the file does not have, or a name without a header row.
    """
    path = _existing(path)
    if path.suffix == ".npy":
        raise ValueError(f"The file {str(path)!r} is a .npy array, which has no columns to "
                         "pick; --id-column and --label-column read .csv, .tsv or text files.")
    by_name = any(spec is not None and not str(spec).isdigit()
                  for spec in (label_column, id_column))
    if by_name and header is False:
        raise ValueError(f"Columns of {str(path)!r} are named, which needs a header row, but "
                         "--no-header (header=False) says line 1 is data.")
    with_header = bool(header) or by_name
    cells = _read_table(path, False, check_encoding(encoding), columns=True)
    names, cells = (cells[0], cells[1:]) if with_header else (None, cells)
    if cells.shape[0] == 0:
        raise ValueError(f"The file {str(path)!r} holds no rows after its header.")
    n = cells.shape[1]
    if label_column is None:
        if id_column is None or n != 2:
            raise ValueError(f"Give the label column of {str(path)!r} (--label-column): it has "
                             f"{n} columns.")
        label_column = str(2 - _column_index(path, id_column, names, n, "--id-column"))
    picked = {"labels": _column_index(path, label_column, names, n, "--label-column")}
    if id_column is not None:
        picked["ids"] = _column_index(path, id_column, names, n, "--id-column")
    offset = 2 if with_header else 1
    out = {}
    for role, j in picked.items():
        column = cells[:, [j]]
        if header is None and not with_header:
            _detect_header(path, column, False)
        _check_filled(path, column, offset)
        out[role] = _typed(column[:, 0], labels=role == "labels")
    return out.get("ids"), out["labels"]


def _check_soft(path, values, multilabel, offset, where):
    """Several columns: finite numbers in [0, 1], rows summing to 1 unless multilabel."""
    what = "label memberships" if multilabel else "probabilities"
    cells = values  # the text, for the hint at --id-column / --label-column
    hint = (lambda: _columns_hint(cells)) if values.dtype.kind in "US" else (lambda: "")
    if values.dtype.kind in "US":
        num = _as_numbers(values)
        bad = np.isnan(num) & (np.char.lower(values.astype(str)) != "nan")
        if bad.any():
            i, j = np.argwhere(bad)[0]
            raise ValueError(
                f"The file {str(path)!r} has {values.shape[1]} columns, so it must hold "
                f"numbers ({what}), but its {where} {i + offset} holds {str(values[i, j])!r}."
                + hint())
        values = num
    values = np.ascontiguousarray(values, dtype=np.float64)
    out = ~(np.isfinite(values) & (values >= 0) & (values <= 1))
    if out.any():
        i, j = np.argwhere(out)[0]
        raise ValueError(
            f"The file {str(path)!r} must hold {what} in [0, 1], but its {where} {i + offset} "
            f"holds {float(values[i, j])!r}." + hint())
    if not multilabel:
        values = normalize_rows(values, f"The file {str(path)!r}",
                                row_name=lambda i: f"{where} {i + offset}")
    return values
