"""The files of :func:`sigtest.read_scores`: one reader per format, one type policy.

Each reader returns the file's columns as written, without guessing types:

* CSV and TSV (:func:`_read_delimited`): every cell is its text (``""`` for
  an empty or absent field); ``NA``, ``None``, ``null``, ``nan`` are text
  like any other;
* JSON lines (:func:`_read_jsonl`): one JSON object per line; a JSON
  number is kept as the text it was written with (a :class:`JsonNumber`, a
  ``str``), so ``1e3`` and ``1000`` or ``2.5`` and ``2.50`` stay apart;
  strings, ``true``/``false`` and ``null`` as Python values;
* Parquet (:func:`_read_parquet`): the stored column types.

Then one policy types the columns read (:func:`file_ids`,
:func:`file_scores`): ids (system, item, group, dataset) are labels,
compared by their text; a column whose every id is an integer written
without sign or leading zero (``7``, ``297``, never ``007``, ``+7``, ``1.0``)
becomes int64 (sorted as numbers), any other stays text. Scores are numbers:
JSON numbers and booleans, or CSV text that parses as a number (``true`` /
``false`` are 1 / 0); an empty cell or a missing-value word (``NA``,
``nan``, ...) is a missing score, other text is an error that shows it.

Every error names the file and says what to do.
"""

from __future__ import annotations

import codecs
import json
import os

import numpy as np

__all__ = ["FORMATS", "MISSING_WORDS", "JsonNumber", "check_encoding", "file_ids", "file_scores",
           "integer_ids", "read_file"]

FORMATS = {".csv": "csv", ".tsv": "tsv", ".tab": "tsv", ".parquet": "parquet",
           ".pq": "parquet", ".jsonl": "jsonl", ".ndjson": "jsonl", ".json": "jsonl"}
#: Words read as a missing score in a CSV / TSV cell (pandas' default list).
MISSING_WORDS = frozenset({
    "", "#N/A", "#N/A N/A", "#NA", "-1.#IND", "-1.#QNAN", "-NaN", "-nan", "1.#IND",
    "1.#QNAN", "<NA>", "N/A", "NA", "NULL", "NaN", "None", "n/a", "nan", "null"})
_BOOLEAN_WORDS = {"true": 1.0, "false": 0.0, "True": 1.0, "False": 0.0, "TRUE": 1.0,
                  "FALSE": 0.0}
#: How many values a message shows.
_SHOWN = 5


class JsonNumber(str):
    """A number of a JSON line, kept as the text it was written with."""

    __slots__ = ()


def check_encoding(encoding):
    """The codec name of ``encoding`` (None: UTF-8, with or without a BOM)."""
    if encoding is None:
        return "utf-8-sig"
    if not isinstance(encoding, str):
        raise TypeError("The 'encoding' parameter must be a codec name (str) or None. Got "
                        f"{type(encoding).__name__} instead.")
    try:
        name = codecs.lookup(encoding).name
    except LookupError:
        raise ValueError(f"The 'encoding' parameter {encoding!r} is not a known text "
                         "encoding (e.g. 'utf-8', 'latin-1', 'cp1252').") from None
    return "utf-8-sig" if name == "utf-8" else encoding


def read_file(path, fmt, encoding, score):
    """``(frame, fmt, name)``: the columns of the file ``path`` as written, its format
    and its quoted name.

    The index of a CSV, TSV or JSON-lines frame is the line of every row in
    the file (from 1, the header included), for the messages.

    ``fmt`` is None (from the extension) or a format of :data:`FORMATS`;
    ``encoding`` a codec name of :func:`check_encoding`; ``score`` the name
    of the score column, which a CSV / TSV reader parses as numbers when
    every cell is one (else as text, for :func:`file_scores`).
    """
    name = repr(os.fspath(path)) if isinstance(path, str) else repr(str(path))
    if fmt is None:
        ext = os.path.splitext(str(path))[1].lower()
        if ext not in FORMATS:
            raise ValueError(
                f"Cannot tell the format of {name} from its extension {ext!r}; pass "
                f"format= one of {sorted(set(FORMATS.values()))}."
            )
        fmt = FORMATS[ext]
    if fmt == "parquet":
        try:
            import pyarrow  # noqa: F401
        except ImportError as exc:
            raise ImportError(
                "Reading Parquet needs pyarrow, which is not installed: pip install pyarrow "
                "(included in sigtest's 'test' extra), or save the table as CSV."
            ) from exc
    if not os.path.exists(path):
        raise FileNotFoundError(f"The file {name} does not exist; check the path (relative "
                                "paths start from the working directory).")
    if os.path.isdir(path):
        raise IsADirectoryError(f"{name} is a directory; give the file of scores.")
    try:
        if fmt == "parquet":
            frame = _read_parquet(path, name)
        elif fmt == "jsonl":
            frame = _read_jsonl(path, name, encoding)
        else:
            frame = _read_delimited(path, name, "\t" if fmt == "tsv" else ",", encoding,
                                    score)
    except UnicodeDecodeError as exc:
        shown = "UTF-8" if encoding == "utf-8-sig" else repr(encoding)
        raise ValueError(
            f"The file {name} is not a {shown} text file (byte "
            f"{exc.object[exc.start:exc.end]!r} at position {exc.start}); pass its encoding, "
            "e.g. encoding='latin-1' or 'cp1252', or save it as UTF-8."
        ) from None
    if frame.shape[0] == 0:
        raise ValueError(f"The file {name} has a header but no rows; write one row per "
                         "(system, item) with its score.")
    return frame, fmt, name


def _header(path, sep, encoding):
    """The fields of line 1 of a CSV / TSV file (None for an empty file)."""
    import csv

    with open(path, encoding=encoding, newline="") as fh:
        return next(csv.reader(fh, delimiter=sep), None)


def _read_delimited(path, name, sep, encoding, score):
    """A CSV / TSV file, every cell as its text (line 1: the column names), but the
    ``score`` column, parsed as numbers by pandas' parser (missing-value words
    as NaN) unless it holds text.

    A header naming a column twice keeps every cell as text under the names
    as written (pandas would rename the second ``score.1``), so that the
    duplicate is reported.
    """
    import pandas as pd

    try:
        header = _header(path, sep, encoding)
        if header is None:
            raise pd.errors.EmptyDataError
        if len(set(header)) == len(header):
            numbers = score if score in header else None
            frame = _read_delimited_arrow(path, sep, encoding, header, numbers)
            if frame is not None:
                return frame
            frame = pd.read_csv(path, sep=sep, header=0, encoding=encoding,
                                dtype={c: str for c in header if c != numbers},
                                keep_default_na=False,
                                na_values={} if numbers is None else {
                                    numbers: list(MISSING_WORDS)})
            frame.index = np.arange(2, frame.shape[0] + 2)  # the line of every row
            return frame
        cells = pd.read_csv(path, sep=sep, header=None, dtype=str, keep_default_na=False,
                            encoding=encoding)
    except pd.errors.EmptyDataError:
        raise ValueError(f"The file {name} is empty; write a header row (e.g. "
                         "system,item,score) then one row per (system, item).") from None
    except pd.errors.ParserError as exc:
        raise ValueError(f"The file {name} could not be read as "
                         f"{'TSV' if sep == chr(9) else 'CSV'}: {str(exc).strip()} (lines "
                         "count from 1, the header included); every row needs as many "
                         "fields as the header.") from None
    names = cells.iloc[0].tolist()
    frame = cells.iloc[1:]
    frame.columns = names
    frame.index = np.arange(2, frame.shape[0] + 2)  # the line of every row
    return frame


def _read_delimited_arrow(path, sep, encoding, header, numbers):
    """:func:`_read_delimited` by Arrow's CSV reader (several times faster than pandas'),
    or None when pyarrow is absent, the file is not UTF-8, or Arrow reads it
    differently or not at all (pandas' reader then reads it, with its messages).

    Every column but ``numbers`` is text as written (``""`` stays ``""``);
    ``numbers`` is parsed as numbers or booleans (missing-value words as
    null), or kept as text when it holds other text.
    """
    if encoding != "utf-8-sig":
        return None
    try:
        import pyarrow as pa
        import pyarrow.csv as pcsv
    except ImportError:
        return None
    options = pcsv.ConvertOptions(
        column_types={c: pa.string() for c in header if c != numbers},
        strings_can_be_null=False, null_values=sorted(MISSING_WORDS),
        true_values=["true", "True", "TRUE"], false_values=["false", "False", "FALSE"])
    try:
        table = pcsv.read_csv(path, parse_options=pcsv.ParseOptions(delimiter=sep),
                              convert_options=options)
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError, OSError):
        return None
    if table.column_names != header:
        return None
    if numbers is not None:
        kind = table.schema.field(numbers).type
        if not (pa.types.is_floating(kind) or pa.types.is_integer(kind)
                or pa.types.is_boolean(kind) or pa.types.is_string(kind)
                or pa.types.is_null(kind)):
            return None  # dates, times: pandas' reader keeps them as text
    frame = table.to_pandas()
    frame.index = np.arange(2, frame.shape[0] + 2)  # the line of every row
    return frame


def _read_jsonl(path, name, encoding):
    """JSON lines: one object per line; numbers kept as written (:class:`JsonNumber`)."""
    import pandas as pd

    with open(path, encoding=encoding) as fh:
        numbered = [(number, line) for number, line in enumerate(fh, start=1) if line.strip()]
    try:  # fast path: the lines as one JSON array, decoded at once
        records = _DECODER.decode("[" + ",".join(line for _, line in numbered) + "]")
    except json.JSONDecodeError:
        records = None
    if records is not None and len(records) == len(numbered) and all(
            type(r) is dict and _DUPLICATE not in r for r in records):
        lines = [number for number, _ in numbered]
    else:
        records, lines = _decode_lines(numbered, name)
    if not records:
        raise ValueError(f"The file {name} is empty; write one JSON object per line, e.g. "
                         '{"system": "a", "item": "q1", "score": 1}.')
    keys = list(dict.fromkeys(k for record in records for k in record))
    # object columns keep the JsonNumber values (a str column would drop their kind)
    return pd.DataFrame({k: pd.Series([record.get(k) for record in records], dtype=object,
                                      index=lines) for k in keys})


def _decode_lines(numbered, name):
    """JSON lines decoded one by one: the error names the first bad line."""
    records, lines = [], []
    for number, line in numbered:
        try:
            record = _DECODER.decode(line)
        except json.JSONDecodeError as exc:
            raise ValueError(f"The file {name} is not valid JSON lines: line {number}, "
                             f"column {exc.colno}: {exc.msg}. Write one JSON object per "
                             "line.") from None
        if not isinstance(record, dict):
            kind = "an array" if isinstance(record, list) else "a value that is not an object"
            hint = (" (a .json file holding one array of records? Save it as JSON lines,"
                    " e.g. pandas.read_json(path).to_json(out, orient='records', "
                    "lines=True))") if isinstance(record, list) else ""
            raise ValueError(f"The file {name} must hold one JSON object per line; line "
                             f"{number} holds {kind}{hint}.")
        if _DUPLICATE in record:
            raise ValueError(f"The file {name} names the key(s) {record[_DUPLICATE]} more "
                             f"than once in line {number}; give every key once.")
        records.append(record)
        lines.append(number)
    return records, lines


_DUPLICATE = object()  # the key under which _unique_keys reports repeated keys


def _unique_keys(pairs):
    """A JSON object as a dict; repeated keys are listed under ``_DUPLICATE``."""
    out = dict(pairs)
    if len(out) < len(pairs):
        seen = [k for k, _ in pairs]
        out[_DUPLICATE] = sorted({k for k in seen if seen.count(k) > 1})
    return out


#: One decoder for every line: numbers as JsonNumber, repeated keys reported.
_DECODER = json.JSONDecoder(parse_int=JsonNumber, parse_float=JsonNumber,
                            parse_constant=JsonNumber, object_pairs_hook=_unique_keys)


def _read_parquet(path, name):
    import pandas as pd

    try:
        frame = pd.read_parquet(path)
    except (OSError, ValueError) as exc:
        raise ValueError(f"The file {name} could not be read as Parquet: {exc}") from None
    return frame


def _text_of(value):
    """The text of one id read from a file (None for a missing one)."""
    if isinstance(value, str):
        return value or None  # an empty CSV field is missing
    if value is None or (isinstance(value, float) and value != value):
        return None
    return json.dumps(value)  # true, false, [..], {..}


def file_ids(column, fmt):
    """Ids read from a file of format ``fmt`` (a column of :func:`read_file`'s frame).

    Returns ``(ids, missing)``: ids as int64 when every present id is an
    integer written without sign or leading zero, else as str (``object``),
    and the boolean mask of missing ids (an empty field, a JSON ``null`` or
    absent key).
    """
    import pandas as pd

    if fmt == "jsonl":
        text = pd.Series([_text_of(v) for v in column], dtype=object)
        missing = text.isna().to_numpy()
        text = text.astype("str")
    elif getattr(column.dtype, "storage", None) == "pyarrow":  # Arrow text: vectorised
        text = column
        missing = (text == "").to_numpy(dtype=bool, na_value=True) | column.isna().to_numpy()
    else:  # every CSV / TSV cell is text ("" when empty or absent): typed once per id
        codes, uniques = pd.factorize(column.to_numpy(dtype=object))
        text = np.asarray([str(u) for u in uniques], dtype=object)
        empty = np.append(text == "", True)  # code -1: a missing cell
        as_int = integer_ids(text[~empty[:-1]])
        if as_int is not None:
            values = np.zeros(len(text) + 1, dtype=np.int64)
            values[:-1][~empty[:-1]] = as_int
        else:
            values = np.append(text, None)
        return values[codes], empty[codes]
    as_int = integer_ids(text[~missing])
    if as_int is not None:
        out = np.zeros(len(text), dtype=np.int64)
        out[~missing] = as_int
        return out, missing
    return text.to_numpy(dtype=object), missing


#: An integer as Python prints it: no "+", no leading zero, no spaces, no "-0".
_INTEGER = r"-?[1-9][0-9]{0,18}|0"


def integer_ids(text):
    """``text`` (a str array or Series) as int64 if every value is an integer written as
    Python prints it (no ``+``, no leading zero, no spaces), else None.

    Without pyarrow (pandas matches Python strings one by one), a column that
    repeats its values (labels) has each distinct value matched and parsed
    once: 10^4 lines of 3 labels in ~3 ms instead of ~8 ms.
    """
    import pandas as pd

    values = text if isinstance(text, pd.Series) else pd.Series(text, dtype=object)
    values = values.astype("str")
    if getattr(values.dtype, "storage", None) == "pyarrow":  # Arrow matches them at once
        return _parsed_integers(values)
    head = values.iloc[:1000]
    if 2 * head.nunique(dropna=False) > len(head):  # mostly distinct (ids): match them all
        return _parsed_integers(values)
    codes, distinct = pd.factorize(values, use_na_sentinel=False)
    as_int = _parsed_integers(pd.Series(distinct, dtype=values.dtype))
    return None if as_int is None else as_int[codes]


def _parsed_integers(values):
    """The str Series ``values`` as int64 if every value matches ``_INTEGER``, else None."""
    if not values.str.fullmatch(_INTEGER).all():
        return None
    if getattr(values.dtype, "storage", None) == "pyarrow":  # Arrow's parser: 7x faster
        import pyarrow as pa
        import pyarrow.compute as pc

        try:
            return pc.cast(pa.array(values.array), pa.int64()).to_numpy()
        except (pa.ArrowInvalid, pa.ArrowNotImplementedError):  # beyond int64
            return None
    try:
        return values.astype(np.int64).to_numpy()
    except (ValueError, OverflowError, TypeError):  # beyond int64
        return None


_NUMBER, _BOOLEAN, _MISSING, _MISSING_FLOAT, _STRING, _OTHER = range(6)
#: The kind of every JSON value (a float is NaN: the key was absent in the line).
_JSON_KINDS = {JsonNumber: _NUMBER, bool: _BOOLEAN, type(None): _MISSING, float: _MISSING_FLOAT,
               str: _STRING}


def file_scores(column, name, fmt):
    """The scores of a column read from a file of format ``fmt``, as float64 (NaN where
    missing).

    JSON lines: numbers and booleans are scores, null (or an absent key) is
    missing, a string is an error that shows it. CSV / TSV: text that parses
    as a number is one (``true`` / ``false``: 1 / 0), an empty cell or a
    missing-value word is missing, any other text is an error that shows it.
    ``column`` is a column of :func:`read_file`'s frame; the messages name
    its lines.
    """
    import pandas as pd

    col = column.name
    if fmt != "jsonl" and (pd.api.types.is_numeric_dtype(column.dtype)
                           or pd.api.types.is_bool_dtype(column.dtype)):
        return column.to_numpy(dtype=np.float64, na_value=np.nan)  # parsed by pandas
    raw = pd.Series(column.to_numpy(dtype=object), index=column.index, dtype=object)
    if fmt == "jsonl":
        kind = np.fromiter((_JSON_KINDS.get(type(v), _OTHER) for v in raw), np.int8,
                           len(raw))
        kind[(kind == _MISSING_FLOAT) & raw.notna().to_numpy()] = _OTHER  # a float not NaN
        text = kind == _STRING
        if text.any():
            raise ValueError(
                f"The score column {col!r} of the file {name} must hold JSON numbers; it "
                f"holds strings such as {raw[text].head(_SHOWN).tolist()} (lines "
                f"{raw.index[text][:_SHOWN].tolist()}). Write the scores as numbers (1, not "
                '"1").')
        other = kind == _OTHER
        if other.any():
            shown = [json.dumps(v) for v in raw[other].head(_SHOWN)]
            raise ValueError(f"The score column {col!r} of the file {name} must hold numbers; "
                             f"it holds {shown} (lines {raw.index[other][:_SHOWN].tolist()}).")
        out = np.full(len(raw), np.nan)
        number = kind == _NUMBER
        out[number] = pd.to_numeric(raw[number].astype(str)).to_numpy(dtype=np.float64)
        boolean = kind == _BOOLEAN
        out[boolean] = raw[boolean].astype(np.float64).to_numpy()
        return out
    text = raw.astype(str)
    missing = text.isin(MISSING_WORDS) | raw.isna()
    words = text.map(_BOOLEAN_WORDS.get)
    numbers = pd.to_numeric(text.where(~missing & words.isna()), errors="coerce")
    numbers = numbers.astype(np.float64).where(words.isna(), words.astype(np.float64))
    bad = numbers.isna() & ~missing
    if bad.any():
        raise ValueError(
            f"The score column {col!r} of the file {name} must hold numbers (0/1, a judge's "
            f"rating, ...); it holds {text[bad].head(_SHOWN).tolist()} (lines "
            f"{text.index[bad][:_SHOWN].tolist()}). Convert them to numbers first.")
    return numbers.to_numpy(dtype=np.float64)
