"""What evaluation harnesses write, read as per-item scores for :func:`sigtest.read_scores`.

Each reader returns the working columns of ``read_scores`` (system, dataset,
item, score) and the column naming the file of every row, a *variant*: the
rows of one (system, item) from two files (a re-run) are refused.

**lm-evaluation-harness** (``harness="lm-eval"``). ``lm_eval --output_path
out --log_samples`` writes ``out/<model>/samples_<task>_<date>.jsonl``
(``EvaluationTracker.save_results_samples`` in
``lm_eval/loggers/evaluation_tracker.py``: the folder is the model name
with ``/`` written ``__``, the date ``datetime.now().isoformat()`` with
``:`` written ``-``), one JSON object per document *and filter*, built in
``lm_eval/evaluator.py`` (``evaluate``): ``doc_id``, ``doc``, ``target``,
``arguments``, ``resps``, ``filtered_resps``, ``filter``, ``metrics`` (the
names of the metrics), ``doc_hash``, ``prompt_hash``, ``target_hash``, then
one key per metric with the document's value. The item is ``doc_id``, the
score the named metric's key, for one filter.

**inspect_ai** (``harness="inspect"``). An evaluation log per task and model
(``.eval``, a zip archive, or ``.json``), read with inspect_ai's own
``inspect_ai.log.read_eval_log`` when inspect_ai is installed, and a
``.json`` log with the standard library otherwise (the fields of
``EvalLog`` in ``inspect_ai/log/_log.py``): ``eval.model``, ``eval.task``,
``samples`` (one per sample and epoch) with ``id``, ``epoch`` and
``scores`` (scorer name -> ``Score`` with a ``value``). A value is mapped
to a number as inspect_ai's ``value_to_float`` does
(``inspect_ai/scorer/_metric.py``), except that a value it cannot map is an
error here, not a 0.
"""

from __future__ import annotations

import json
import math
import re

import numpy as np

__all__ = ["check_harness_columns", "inspect_value", "read_inspect", "read_lm_eval"]

#: How many values a message shows.
_SHOWN = 5
#: inspect_ai's CORRECT, PARTIAL, INCORRECT and NOANSWER values (scorer/_metric.py).
_INSPECT_LETTERS = {"C": 1.0, "P": 0.5, "I": 0.0, "N": 0.0}
_INSPECT_WORDS = {"yes": 1.0, "true": 1.0, "no": 0.0, "false": 0.0}
#: EvalSample fields read_scores does not need (read_eval_log's exclude_fields).
_UNREAD = {"messages", "events", "store", "attachments"}


def _field(fields, path, key, harness):
    values = fields(path)
    if key not in values and key == "task" and "dataset" in values:
        key = "dataset"
    if key not in values:
        raise ValueError(f"The pattern of {harness} files gives no {{{key}}} for {path!r} "
                         f"(it gives {sorted(values)}); name the {key} in the pattern, e.g. "
                         "'{system}/samples_{task}_{date}.jsonl'.")
    return values[key]


# ------------------------------------------------------------ lm-evaluation-harness
#: The start of a sample as json.dumps writes it: its first key, doc_id.
_DOC_ID = re.compile(r'\{"doc_id": (-?\d+|"(?:[^"\\]|\\.)*")')


def _sample_tail(line):
    """doc_id, filter, metrics and the metric values of one sample, without decoding its
    doc, arguments and responses (most of the line), or None.

    ``json.dumps`` writes the keys in the order the evaluator sets them, ``doc_id``
    first, then ``..., "filter": ..., "metrics": [...], "doc_hash": ...``, the
    metric values last, with ", " and ": " between. The last ``, "filter": ``
    starts the tail; were it inside a nested object, the tail would close more
    brackets than it opens and fail to decode (then the line is decoded whole).
    """
    start = _DOC_ID.match(line)
    at = line.rfind(', "filter": ')
    if start is None or at < 0:
        return None
    try:
        tail = json.loads("{" + line[at + 2:])
    except ValueError:
        return None
    if not isinstance(tail, dict):
        return None
    tail["doc_id"] = json.loads(start.group(1))
    return tail


def _lm_eval_records(path, encoding):
    """The JSON objects of one ``samples_*.jsonl`` file (the keys read, at least), with
    their line numbers."""
    records = []
    with open(path, encoding=encoding) as fh:
        for number, line in enumerate(fh, start=1):
            if not line.strip():
                continue
            record = _sample_tail(line)
            if record is not None:
                records.append((number, record))
                continue
            try:
                record = json.loads(line)
            except json.JSONDecodeError as exc:
                raise ValueError(f"The lm-evaluation-harness file {path!r} is not valid JSON "
                                 f"lines: line {number}, column {exc.colno}: {exc.msg}.") from None
            if not isinstance(record, dict) or "doc_id" not in record:
                raise ValueError(f"Line {number} of {path!r} is not a sample of "
                                 "lm-evaluation-harness (a JSON object with doc_id, filter and "
                                 "one key per metric); is it a file of --log_samples?")
            records.append((number, record))
    if not records:
        raise ValueError(f"The lm-evaluation-harness file {path!r} is empty.")
    return records


def _lm_eval_filter(files, filters, tasks, wanted):
    """The filter read from every file; every error lists the filters found."""
    if wanted is not None:
        for path, found in zip(files, filters):
            if wanted not in found:
                raise ValueError(f"The file {path!r} has no rows of the filter {wanted!r} "
                                 f"(the 'filter' parameter); its filters are {found}.")
        return [wanted] * len(files)
    for path, found in zip(files, filters):
        if len(found) > 1:
            raise ValueError(
                f"The file {path!r} holds {len(found)} filters {found}: one row per document "
                "and filter, which are not repeated samples. Name the one to read, e.g. "
                f"filter={found[0]!r} (--filter on the command line).")
    by_task = {}
    for task, found in zip(tasks, filters):
        by_task.setdefault(task, set()).update(found)
    for task, found in by_task.items():
        if len(found) > 1:
            raise ValueError(f"The files of the task {task!r} use different filters "
                             f"{sorted(found)}; name the one to read with filter=.")
    return [found[0] for found in filters]


def _lm_eval_metric(files, metrics, score, default):
    if score != default or not metrics:
        return score
    names = sorted({m for found in metrics for m in found})
    if len(names) == 1:
        return names[0]
    raise ValueError(f"The lm-evaluation-harness files hold the metrics {names}; name the one to "
                     f"read with score= (--score-column on the command line), e.g. "
                     f"score={names[0]!r}.")


def _number(value):
    """A per-item metric value as float (None: missing), or None for a non-number."""
    if value is None:
        return math.nan
    if isinstance(value, (bool, int, float)):
        return float(value) if math.isfinite(value) else None
    return None


def read_lm_eval(files, *, score, default_score, filter, fields, encoding):
    """The working columns of lm-evaluation-harness sample files.

    Returns ``(columns, variants)``: a dict of arrays system, dataset, item,
    score, and ``{"file": paths}``.
    """
    systems, tasks, all_records, filters, metrics = [], [], [], [], []
    for path in files:
        systems.append(_field(fields, path, "system", "lm-evaluation-harness"))
        tasks.append(_field(fields, path, "task", "lm-evaluation-harness"))
        records = _lm_eval_records(path, encoding)
        all_records.append(records)
        filters.append(list(dict.fromkeys(str(r.get("filter")) for _, r in records)))
        metrics.append(list(dict.fromkeys(
            m for _, r in records for m in (r.get("metrics") or ()) if isinstance(m, str))))
    chosen = _lm_eval_filter(files, filters, tasks, filter)
    metric = _lm_eval_metric(files, metrics, score, default_score)
    cols = {"system": [], "dataset": [], "item": [], "score": [], "file": []}
    for path, system, task, records, keep, found in zip(files, systems, tasks, all_records,
                                                        chosen, metrics):
        rows = [(n, r) for n, r in records if str(r.get("filter")) == keep]
        if metric not in rows[0][1]:
            raise ValueError(f"The file {path!r} has no metric {metric!r} (the 'score' "
                             f"parameter); its metrics are {found}.")
        values = [_number(r.get(metric)) for _, r in rows]
        bad = [i for i, v in enumerate(values) if v is None]
        if bad:
            shown = [rows[i][1].get(metric) for i in bad[:_SHOWN]]
            raise ValueError(
                f"The metric {metric!r} of the file {path!r} holds {shown} (lines "
                f"{[rows[i][0] for i in bad[:_SHOWN]]}), not one number per document: a "
                "corpus-level metric (bleu, some f1) is computed from all the documents at "
                f"once. Choose a per-document metric among {found}.")
        missing = [n for (n, _), v in zip(rows, values) if math.isnan(v)]
        if missing:
            raise ValueError(f"The metric {metric!r} of the file {path!r} is missing or null "
                             f"in the lines {missing[:_SHOWN]}; a missing score is not a 0.")
        cols["score"].extend(values)
        cols["item"].extend(r["doc_id"] for _, r in rows)
        for key, value in (("system", system), ("dataset", task), ("file", path)):
            cols[key].extend([value] * len(rows))
    return _arrays(cols)


def _arrays(cols):
    """The working columns as arrays (int64 items when every id is an int)."""
    items = cols["item"]
    if all(type(v) is int for v in items):
        item = np.fromiter(items, dtype=np.int64, count=len(items))
    else:
        item = np.asarray([str(v) for v in items], dtype=object)
    out = {"system": np.asarray(cols["system"], dtype=object),
           "dataset": np.asarray(cols["dataset"], dtype=object), "item": item,
           "score": np.asarray(cols["score"], dtype=np.float64)}
    return out, {"file": np.asarray(cols["file"], dtype=object)}


# ------------------------------------------------------------------------ inspect_ai
def inspect_value(value):
    """A score value as inspect_ai's ``value_to_float()`` maps it, or None when it cannot.

    ``"C"`` (correct) 1, ``"P"`` (partial) 0.5, ``"I"`` (incorrect) and
    ``"N"`` (no answer) 0; booleans and numbers as floats; text ``yes`` /
    ``true`` 1, ``no`` / ``false`` 0 (any case), text of a finite number that
    number. ``None`` (no score) is NaN. inspect_ai maps any other value (a
    list, a dict, other text) to 0 with a warning; here it is None, an error
    for the caller.
    """
    if value is None:
        return math.nan
    if isinstance(value, str) and value in _INSPECT_LETTERS:
        return _INSPECT_LETTERS[value]
    if isinstance(value, (bool, int, float)):
        return float(value)
    if isinstance(value, str):
        if value.lower() in _INSPECT_WORDS:
            return _INSPECT_WORDS[value.lower()]
        try:
            number = float(value)
        except ValueError:
            return None
        return number if math.isfinite(number) else None
    return None


def _inspect_log(path):
    """``(model, task, samples)`` of one log; a sample is ``(id, epoch, {scorer: value})``."""
    try:
        from inspect_ai.log import read_eval_log
    except ImportError:
        read_eval_log = None
    if read_eval_log is not None:
        try:
            try:  # the scores only: a sample's messages and events are most of the log
                log = read_eval_log(path, exclude_fields=_UNREAD)
            except TypeError:  # an inspect_ai without exclude_fields
                log = read_eval_log(path)
        except (ValueError, KeyError, OSError) as exc:  # pydantic's errors are ValueErrors
            first = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
            raise ValueError(f"inspect_ai could not read the log {path!r}: "
                             f"{type(exc).__name__}: {first}") from None
        samples = [(s.id, s.epoch, {k: v.value for k, v in (s.scores or {}).items()})
                   for s in (log.samples or [])]
        return log.eval.model, log.eval.task, samples
    if str(path).lower().endswith(".eval"):
        raise ImportError(
            f"Reading the inspect_ai log {path!r} (.eval) needs inspect_ai: pip install "
            "inspect-ai (sigtest's 'inspect' extra), or write .json logs (inspect eval "
            "--log-format json).")
    try:
        with open(path, encoding="utf-8") as fh:
            log = json.load(fh)
        header = log["eval"]
        samples = [(s["id"], s["epoch"], {k: (v or {}).get("value")
                                          for k, v in (s.get("scores") or {}).items()})
                   for s in (log.get("samples") or [])]
        return header["model"], header["task"], samples
    except (ValueError, KeyError, TypeError, AttributeError) as exc:
        raise ValueError(f"The file {path!r} is not an inspect_ai log (a JSON object with eval "
                         f"and samples): {type(exc).__name__}: {exc}.") from None


def _inspect_scorer(logs, score, default):
    names = list(dict.fromkeys(k for _, _, _, samples in logs for s in samples for k in s[2]))
    if score in names:
        return score
    if score == default and len(names) == 1:
        return names[0]
    what = "name one with score=" if score == default else (
        f"the 'score' parameter {score!r} is none of them")
    raise ValueError(f"The inspect_ai logs hold the scorers {names}; {what} (--score-column on "
                     "the command line).")


def read_inspect(files, *, score, default_score):
    """The working columns of inspect_ai logs (see the module docstring)."""
    logs = []
    for path in files:
        model, task, samples = _inspect_log(path)
        if not samples:
            raise ValueError(f"The inspect_ai log {path!r} holds no samples; run the evaluation "
                             "with its samples logged (log_samples, the default).")
        logs.append((path, model, task, samples))
    scorer = _inspect_scorer(logs, score, default_score)
    cols = {"system": [], "dataset": [], "item": [], "score": [], "file": []}
    for path, model, task, samples in logs:
        samples = sorted(samples, key=lambda s: (s[1], str(s[0])))  # epoch by epoch
        found = list(dict.fromkeys(k for s in samples for k in s[2]))
        if scorer not in found:
            raise ValueError(f"The inspect_ai log {path!r} (task {task!r}, model {model!r}) "
                             f"has no scorer {scorer!r}; its scorers are {found}. Read the "
                             "logs of one scorer at a time (a glob or a list of files).")
        values = [inspect_value(s[2].get(scorer)) for s in samples]
        missing = [s[0] for s, v in zip(samples, values) if v is not None and math.isnan(v)]
        if missing:
            raise ValueError(f"The inspect_ai log {path!r} has no {scorer!r} score for the "
                             f"samples {missing[:_SHOWN]} (a sample that failed?); a missing "
                             "score is not a 0: rerun them or drop them from every log.")
        bad = [i for i, v in enumerate(values) if v is None]
        if bad:
            shown = [samples[i][2].get(scorer) for i in bad[:_SHOWN]]
            raise ValueError(
                f"The scorer {scorer!r} of the inspect_ai log {path!r} gives {shown} (samples "
                f"{[samples[i][0] for i in bad[:_SHOWN]]}), which are not scores: inspect_ai "
                "reads C/P/I/N, booleans, numbers and yes/no as numbers and any other value "
                "as 0 with a warning; sigtest does not read them as 0. Choose another scorer "
                "or convert the log's values.")
        cols["score"].extend(values)
        cols["item"].extend(s[0] for s in samples)
        for key, value in (("system", model), ("dataset", task), ("file", path)):
            cols[key].extend([value] * len(samples))
    return _arrays(cols)


def check_harness_columns(harness, given):
    """The column keywords do not apply to a harness's files: an error naming the first."""
    for key, value, default in given:
        if value != default:
            raise ValueError(
                f"The '{key}' parameter names a column of a table; harness={harness!r} reads "
                "the system, task, item and sample of every row from the files themselves. "
                f"Got {key}={value!r}.")
