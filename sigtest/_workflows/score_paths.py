"""Where :func:`sigtest.read_scores` finds its files, and what their paths say.

* :func:`expand_sources`: a path, a glob, a folder or a list of them -> the
  sorted list of files to read (a folder is searched below for the files a
  harness writes, or for every table file);
* :func:`path_fields`: a pattern with named fields
  (``"{system}/samples_{task}_{date}.jsonl"``) or a callable -> a function
  giving every file's fields (its system, its task, ...);
* :func:`detect_harness`: the harness that wrote a list of files, from
  their names (lm-evaluation-harness' ``samples_<task>_<date>.jsonl``,
  inspect_ai's ``.eval`` logs).

Every error names the path or the pattern and says what to do.
"""

from __future__ import annotations

import glob
import os
import re

from sigtest._constants import HARNESSES

__all__ = ["HARNESSES", "LM_EVAL_PATTERN", "detect_harness", "expand_sources", "path_fields"]

#: Where lm-evaluation-harness' ``--log_samples`` writes: ``<output>/<model>/`` (the
#: sanitised model name) ``samples_<task>_<date>.jsonl`` (evaluation_tracker.py).
LM_EVAL_PATTERN = "{system}/samples_{task}_{date}.jsonl"
_LM_EVAL_NAME = re.compile(r"samples_.+\.jsonl\Z")
#: lm-evaluation-harness' file date: ``datetime.now().isoformat()`` with ``:`` as ``-``.
_DATE = r"\d{4}-\d{2}-\d{2}T[0-9.\-]+"
_FIELD = re.compile(r"\{([^{}]*)\}")
_TABLE_EXTENSIONS = (".csv", ".tsv", ".tab", ".parquet", ".pq", ".jsonl", ".ndjson", ".json")
_INSPECT_EXTENSIONS = (".eval", ".json")


def _wanted(name, harness):
    """Does a folder's file ``name`` belong to the files read for ``harness``?"""
    if harness == "lm-eval":
        return bool(_LM_EVAL_NAME.match(name))
    if harness == "inspect":  # inspect_ai also keeps an index, logs.json, in the folder
        return name.lower().endswith(_INSPECT_EXTENSIONS) and name != "logs.json"
    return name.lower().endswith(_TABLE_EXTENSIONS)


def _folder_files(folder, harness):
    found = []
    for root, dirs, files in os.walk(folder):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        found.extend(os.path.join(root, f) for f in sorted(files)
                     if not f.startswith(".") and _wanted(f, harness))
    if not found:
        what = {"lm-eval": "lm-evaluation-harness sample file (samples_<task>_<date>.jsonl)",
                "inspect": "inspect_ai log (.eval or .json)"}.get(
                    harness, "table of scores (.csv, .tsv, .parquet, .jsonl)")
        raise FileNotFoundError(f"The folder {folder!r} holds no {what}; check the path, or "
                                "pass harness= for the files an evaluation harness writes.")
    return found


def expand_sources(data, harness):
    """The files of ``data`` (a path, glob or folder, or a list of them), in a fixed order.

    Returns ``(files, single)``: the list of file paths (str) and whether
    ``data`` named one file (then read as before, a single table).
    """
    if isinstance(data, (str, os.PathLike)):
        sources, single = [data], True
    elif isinstance(data, (list, tuple)) and data and all(
            isinstance(d, (str, os.PathLike)) for d in data):
        sources, single = list(data), False
    else:
        raise TypeError(
            "The 'data' parameter must be a pandas DataFrame, a file path, a glob, a folder or "
            f"a non-empty list of file paths. Got {type(data).__name__} instead."
        )
    files = []
    for source in sources:
        text = os.fspath(source)
        if os.path.isdir(text):
            files.extend(_folder_files(text, harness))
            single = False
        elif os.path.exists(text) or not glob.has_magic(text):
            files.append(text)  # a missing file is reported by its reader
        else:
            matched = sorted(f for f in glob.glob(text, recursive=True) if os.path.isfile(f))
            if not matched:
                raise FileNotFoundError(f"The pattern {text!r} matches no file; check the path "
                                        "(relative paths start from the working directory).")
            files.extend(matched)
            single = False
    twice = sorted({f for f in files if files.count(f) > 1})
    if twice:
        raise ValueError(f"The 'data' parameter names the file(s) {twice[:5]} more than once.")
    return files, single and len(files) == 1


def detect_harness(files):
    """``"lm-eval"`` when every file is named ``samples_<task>_<date>.jsonl``, ``"inspect"``
    when every file is an ``.eval`` log, else None (tables of scores)."""
    names = [os.path.basename(f) for f in files]
    if names and all(_LM_EVAL_NAME.match(n) for n in names):
        return "lm-eval"
    if names and all(n.lower().endswith(".eval") for n in names):
        return "inspect"
    return None


def _compile(pattern):
    """The regular expression of a pattern with named fields, and the field names."""
    parts = _FIELD.split(pattern.replace(os.sep, "/"))
    regex, names = "", []
    for i, part in enumerate(parts):
        if i % 2 == 0:
            if "{" in part or "}" in part:
                raise ValueError(f"The 'pattern' parameter {pattern!r} has an unmatched brace; "
                                 "write fields as {name}, e.g. '{system}/{task}.jsonl'.")
            regex += re.escape(part).replace(r"\*", "[^/]*")
        elif not part.isidentifier():
            raise ValueError(f"The 'pattern' parameter {pattern!r} has the field {{{part}}}; a "
                             "field is a name such as {system}, {task} or {date}.")
        elif part in names:
            raise ValueError(f"The 'pattern' parameter {pattern!r} names the field {{{part}}} "
                             "twice.")
        else:
            names.append(part)
            regex += f"(?P<{part}>{_DATE if part == 'date' else '[^/]+'})"
    if not names:
        raise ValueError(f"The 'pattern' parameter {pattern!r} has no field; name the parts of "
                         "the path, e.g. '{system}/samples_{task}_{date}.jsonl'.")
    return re.compile(r"(?:\A|/)" + regex + r"\Z"), names


def path_fields(pattern):
    """A function ``path -> {field: text}`` for a pattern or a callable (None: no fields).

    A pattern matches the end of the path (its last components, as many as
    the pattern has); a field takes the text of one component at most, as
    much as it can, but ``{date}``, which takes a date such as
    ``2024-06-01T12-30-45.123456``; ``*`` matches any text in a component.
    """
    if pattern is None:
        return None
    if callable(pattern):
        def fields(path):
            out = pattern(path)
            if not isinstance(out, dict) or not all(isinstance(k, str) for k in out):
                raise TypeError(f"The 'pattern' callable must return a dict of field name -> "
                                f"value, e.g. {{'system': ..., 'task': ...}}; for {path!r} "
                                f"it returned {type(out).__name__}.")
            return {k: str(v) for k, v in out.items()}
        return fields
    if not isinstance(pattern, str):
        raise TypeError("The 'pattern' parameter must be a str such as "
                        "'{system}/samples_{task}_{date}.jsonl', a callable or None. Got "
                        f"{type(pattern).__name__} instead.")
    regex, _ = _compile(pattern)

    def fields(path):
        found = regex.search(os.fspath(path).replace(os.sep, "/"))
        if found is None:
            raise ValueError(f"The path {os.fspath(path)!r} does not match the pattern "
                             f"{pattern!r}; give a pattern of the end of every path (e.g. "
                             "'{system}/samples_{task}_{date}.jsonl') or a callable.")
        return found.groupdict()
    return fields
