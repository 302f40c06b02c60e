"""The outputs of a run: ``results.tsv`` and ``outcomes.json``, published as one unit.

:func:`publish` stages both files, writes the commit record
``.outputs.commit`` and moves them into place under the store's lock;
:func:`finish_publication` completes a publication that a killed writer
left (called whenever the lock is taken); :func:`load_results` and
:func:`load_outcomes` read them back, checked to belong together. The
functions take the :class:`~sigtest._store.store.ExperimentStore` (or, for
:func:`finish_publication`, the directory) they work on.
"""

import csv
import io
import json
import os

import pandas as pd

from sigtest._report.format import csv_safe, csv_unsafe
from sigtest._store.files import (
    _COMMIT,
    _OUTPUTS,
    _STAGED,
    CorruptStoreError,
    finite,
    fsync_dir,
    jsonable,
    refuse_links,
    sha256,
    stage,
    write_json,
)
from sigtest.utils import warn_external

__all__ = ["publish", "finish_publication", "outputs", "load_results", "load_outcomes"]

_TEXT_COLUMNS = ("system_a", "system_b", "metric", "test", "alternative")


def publish(store, frame, outcomes):
    """Write ``results.tsv`` and ``outcomes.json`` of one run as one unit.

    Both are staged in flushed temporary files, then the commit record
    ``.outputs.commit`` (their names and sha256) is written atomically,
    then both are moved into place and the record deleted, all under
    the lock. Killed before the record exists, the previous outputs
    stay; after, the next lock completes the move
    (:func:`finish_publication`). ``outcomes.json`` gains
    ``outputs``: the sha256 and size of ``results.tsv``.

    Parameters
    ----------
    frame : pandas.DataFrame
        The tidy table (``ComparisonResult.to_frame()``).
    outcomes : dict
        The record of the run (NaN and inf become null).
    """
    # formula-like names quoted (CSV injection); load_results() removes the quote
    table = csv_safe(frame).to_csv(sep="\t", index=False, na_rep="NaN").encode("utf-8")
    outcomes = finite(outcomes)
    outcomes["outputs"] = {"results.tsv": {"sha256": sha256(table), "bytes": len(table)}}
    text = json.dumps(outcomes, allow_nan=False, default=jsonable,
                      indent=1).encode("utf-8")
    with store.lock():
        staged = {}
        try:
            for name, data in (("results.tsv", table), ("outcomes.json", text)):
                staged[name] = (stage(store.path / name, lambda fh, d=data: fh.write(d)),
                                sha256(data))
            write_json(store.path / _COMMIT, {"files": {
                name: {"staged": tmp.name, "sha256": digest}
                for name, (tmp, digest) in staged.items()}})
        except BaseException:
            for tmp, _ in staged.values():
                tmp.unlink(missing_ok=True)
            raise
        fsync_dir(store.path)
        finish_publication(store.path)


def finish_publication(path):
    """Move the staged outputs of a committed publication into place (under the lock).

    ``path``: the store directory.
    """
    record_path = path / _COMMIT
    try:
        record = json.loads(record_path.read_bytes().decode("utf-8"))
        files = record["files"]
        moves = [(name, files[name]["staged"], files[name]["sha256"]) for name in files]
        if not all(name in _OUTPUTS and isinstance(tmp, str) and _STAGED.fullmatch(tmp)
                   for name, tmp, _ in moves):
            raise ValueError("unexpected file names")
    except FileNotFoundError:
        return
    except (ValueError, KeyError, TypeError, UnicodeDecodeError, AttributeError) as exc:
        # written atomically, so damaged by hand: nothing is moved, the staged
        # files go with the other temporary files
        warn_external(f"Ignored the damaged commit record {str(record_path)!r} of a run's "
                      f"outputs ({exc}); results.tsv and outcomes.json are left as they "
                      "are.", UserWarning)
        record_path.unlink(missing_ok=True)
        return
    for name, tmp, digest in moves:
        staged = path / tmp
        try:
            data = staged.read_bytes()
        except FileNotFoundError:
            continue  # moved already
        if sha256(data) != digest:  # pragma: no cover - the disk lost a flushed write
            raise CorruptStoreError(
                f"The staged output {str(staged)!r} of the last run does not match its "
                f"commit record {str(record_path)!r}; delete both and call run() again.")
        os.replace(staged, path / name)
    fsync_dir(path)
    record_path.unlink()
    fsync_dir(path)


def _read_outputs(path):
    """``(table bytes, outcomes)`` of the last run, checked to belong together.

    Raises
    ------
    ValueError
        Nothing published yet (names the missing file), ``outcomes.json``
        is not valid JSON, or ``results.tsv`` does not match the sha256
        that ``outcomes.json`` records for it (truncated, edited, or
        from another run), or (stores without that record) is not a
        complete table.
    """
    tsv, out = path / "results.tsv", path / "outcomes.json"
    refuse_links(path, *_OUTPUTS)
    try:
        table = tsv.read_bytes()
    except FileNotFoundError:
        table = None
    try:
        text = out.read_bytes()
    except FileNotFoundError:
        text = None
    outcomes = None
    if text is not None:
        try:
            outcomes = json.loads(text.decode("utf-8"))
            if not isinstance(outcomes, dict):
                raise ValueError("not a JSON object")
        except (UnicodeDecodeError, ValueError) as exc:
            raise CorruptStoreError(
                f"{str(out)!r} is damaged (truncated? {exc}); call run() again to "
                "rewrite the results.") from None
    record = (outcomes or {}).get("outputs", {}).get("results.tsv")
    if table is not None and record is not None:
        if sha256(table) != record.get("sha256"):
            raise CorruptStoreError(
                f"{str(tsv)!r} does not match the run recorded in {str(out)!r} (its "
                f"sha256 differs: {len(table)} bytes, {record.get('bytes')} expected; "
                "truncated, edited or from another run); call run() again.")
    elif table is not None:  # written before outcomes.json recorded its digest
        _check_table(table, tsv)
    elif record is not None:
        raise CorruptStoreError(f"{str(tsv)!r} is missing but {str(out)!r} records it; "
                                "call run() again.")
    return table, outcomes


def outputs(store):
    """``(table bytes, outcomes)`` of the last run of ``store`` (:func:`_read_outputs`),
    completing or waiting for a publication under way.
    """
    if (store.path / _COMMIT).exists():  # interrupted, or being written right now
        with store.lock():
            return _read_outputs(store.path)
    try:
        return _read_outputs(store.path)
    except CorruptStoreError as exc:
        if not (store.path / "outcomes.json").is_file():
            raise
        try:
            with store.lock():  # a run may have been published between the two reads
                return _read_outputs(store.path)
        except PermissionError:  # a read-only store cannot be locked
            raise exc from None


def load_results(store):
    """The table of the last run of ``store``, read from ``results.tsv`` (checked)."""
    table, _ = outputs(store)
    if table is None:
        raise ValueError(f"No results in {str(store.path)!r}; call run() first.")
    columns = pd.read_csv(io.BytesIO(table), sep="\t", nrows=0).columns
    # names stay text (a system called "NA" or "NaN"); every other column is numeric
    frame = pd.read_csv(io.BytesIO(table), sep="\t", keep_default_na=False,
                        na_values={c: ["NaN"] for c in columns if c not in _TEXT_COLUMNS},
                        dtype={c: str for c in _TEXT_COLUMNS if c in columns})
    for column in frame.columns.intersection(_TEXT_COLUMNS):
        frame[column] = csv_unsafe(frame[column])
    return frame


def load_outcomes(store):
    """The ``outcomes.json`` of the last run of ``store``, as a dict (checked)."""
    _, outcomes = outputs(store)
    if outcomes is None:
        raise ValueError(f"No outcomes in {str(store.path)!r}; call run() first.")
    return outcomes


def _check_table(table, path):
    """Refuse a ``results.tsv`` that is not a complete table (cut mid-row or empty)."""
    text = table.decode("utf-8", errors="replace")
    rows = list(csv.reader(io.StringIO(text), delimiter="\t"))
    width = len(rows[0]) if rows else 0
    if not text.endswith("\n") or width == 0 or any(len(row) != width for row in rows):
        raise CorruptStoreError(
            f"{str(path)!r} is not a complete table (truncated or damaged: it must end with a "
            f"newline and every row must have the header's {width} fields); call run() again.")
