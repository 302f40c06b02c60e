"""The commands of ``sigtest``: compare, feed, run, report, remove, metrics, tests.

:data:`COMMANDS` maps each subcommand of :func:`sigtest._cli.parser.build_parser`
to its function ``(args, out)``, which reads the files
(:mod:`sigtest._cli.io`), calls the library and writes the output;
``_UsageError`` is an error in the arguments or files (exit status 2).
numpy, pandas and the library are imported inside the functions that need
them, so that importing this module (``sigtest --help``) stays light.
"""

from __future__ import annotations

import os
from pathlib import Path

from sigtest._cli.parser import MARGIN_ALTERNATIVES, REPORT_FORMATS

__all__ = ["COMMANDS"]


class _UsageError(ValueError):
    """An error in the command-line arguments or files (exit status 2)."""


# ---------------------------------------------------------------- helpers
def _build_test(args):
    """The test(s) named by ``--test`` and ``-B``.

    Neither given: ``None``, i.e. compare's default (permutation + BCa, with
    the number of resamples chosen for the number of comparisons).
    """
    # the tests load numba and scipy: imported when the command runs
    from sigtest.tests_ import BCaInterval, PairedPermutation, get_test

    if args.margin is not None or args.alternative in MARGIN_ALTERNATIVES:
        return _margin_test(args)
    if args.test is None and args.n_resamples is None and args.alternative is None:
        return None
    extra = {} if args.n_resamples is None else {"n_resamples": args.n_resamples}
    if args.test is None and getattr(args, "runs", None) == "nested":
        from sigtest.tests_ import HierarchicalBootstrap  # the one test of runs='nested'

        tests = (HierarchicalBootstrap(**extra),)
    elif args.test is None:
        tests = (PairedPermutation(**extra), BCaInterval(**extra))
    else:
        tests = (get_test(args.test, **extra),)
    if args.alternative is not None:  # the p-value test; an interval stays two-sided
        tests = (_with_alternative(tests[0], args),) + tests[1:]
    return tests if len(tests) > 1 else tests[0]


def _with_alternative(test, args):
    """``test`` with ``alternative=args.alternative`` (two-sided, greater or less).

    A one-sided alternative is directional (B against the baseline A), so it
    needs ``--baseline``; ``pairs="all"`` tests every pair two-sided.
    """
    # imported when the command runs: `import sigtest.cli` (and --help) stays light
    from sigtest.tests_ import get_test

    if args.alternative != "two-sided" and _pairs(args) != "baseline":
        raise _UsageError(f"--alternative {args.alternative} needs --baseline: a one-sided "
                          "test is of each system against the baseline (every pair of "
                          "--pairs all is tested two-sided).")
    if "alternative" not in test.get_params(deep=False):
        raise _UsageError(f"--alternative: the test {type(test).__name__} has no "
                          "alternative hypothesis to choose; pick another --test.")
    test = get_test(test, alternative=args.alternative)
    try:
        getattr(test, "_validate_params", lambda: None)()
    except ValueError as exc:
        raise _UsageError(f"--alternative {args.alternative}: {exc}") from None
    return test


def _margin_test(args):
    """The non-inferiority / equivalence test of ``--margin`` and ``--alternative``.

    Both options are needed, and ``--baseline`` (the test is directional: the
    baseline is A). The test is ``bca`` unless ``--test`` names one with a
    ``margin`` parameter.
    """
    # imported when the command runs: `import sigtest.cli` (and --help) stays light
    from sigtest.tests_ import get_test

    if args.margin is None or args.alternative not in MARGIN_ALTERNATIVES:
        given, missing = (("--margin", "--alternative") if args.margin is not None
                          else (f"--alternative {args.alternative}", "--margin"))
        raise _UsageError(f"{given} needs {missing} (--alternative non-inferiority or "
                          "equivalence, --margin a positive number in metric units).")
    if args.baseline is None:
        raise _UsageError("--margin needs --baseline: non-inferiority and equivalence are "
                          "tested for each system against the baseline.")
    pair = isinstance(args.margin, tuple)
    if not (args.margin[0] < 0 < args.margin[1] if pair else args.margin > 0):
        raise _UsageError("--margin must be a positive number or a pair low,high with low < 0 "
                          f"< high (metric units). Got {args.margin!r}.")
    test = get_test(args.test or "bca")
    params = test.get_params(deep=False)
    if "margin" not in params:
        raise _UsageError(f"--margin needs a test with a confidence interval (bca, paired_t, "
                          f"mcnemar); test {args.test!r} has none.")
    extra = {"margin": args.margin, "alternative": args.alternative}
    if args.n_resamples is not None:
        extra["n_resamples"] = args.n_resamples
    return get_test(test, **extra)


def _pairs(args):
    """``--pairs``; by default "baseline" with ``--baseline`` or ``--margin``, else "all"."""
    if args.pairs is not None:
        return args.pairs
    return "baseline" if args.margin is not None or args.baseline is not None else "all"


def _baseline(args):
    baseline = args.baseline
    return baseline[0] if baseline is not None and len(baseline) == 1 else baseline


def _metrics(args):
    return tuple(args.metrics or ("accuracy", "f1_macro"))


def _multilabel(metrics):
    """Whether the metrics read several columns as label memberships."""
    # imported when the command runs: `import sigtest.cli` (and --help) stays light
    from sigtest.metrics import get_metric

    return any(get_metric(m).input_type == "multilabel" for m in metrics)


def _like_gold(values, gold, option):
    """Labels given as text, converted to the type of the gold labels."""
    import numpy as np

    gold = np.asarray(gold)
    if gold.ndim == 2 or gold.dtype.kind in "iub":
        out = []
        for v in values:
            try:
                number = int(v)
            except ValueError:
                number = None
            if number is None or str(number) != str(v).strip():
                kind = ("class indices (the gold holds distributions)" if gold.ndim == 2
                        else "integers")
                raise _UsageError(f"{option} holds {v!r}, but the gold labels are {kind}.")
            out.append(number)
        return np.asarray(out, dtype=np.int64)
    return np.asarray([str(v) for v in values])


def _labels(args, gold):
    """``(labels, pos_label)`` from ``--labels`` / ``--pos-label``, typed like ``gold``."""
    labels = pos_label = None
    if args.labels is not None:
        spec = args.labels
        if Path(spec).is_file():
            # the reader needs pandas: imported when the command runs
            from sigtest._cli.io import read_predictions

            values = read_predictions(spec, header=False,
                                      encoding=getattr(args, "encoding", None))
            if values.ndim != 1:
                raise _UsageError(f"The --labels file {spec!r} must hold one label per line.")
            values = [str(v) for v in values.tolist()]
        else:
            values = [v.strip() for v in spec.split(",")]
            if not all(values):
                raise _UsageError(f"--labels {spec!r} holds an empty label; give a "
                                  "comma-separated list such as 'pos,neg' or a file.")
        labels = _like_gold(values, gold, "--labels")
    if args.pos_label is not None:
        pos_label = _like_gold([args.pos_label], gold, "--pos-label")[0].item()
    return labels, pos_label


def _check_output(path, overwrite):
    """Fail before computing if ``path`` cannot be written."""
    if path is None:
        return
    path = Path(path)
    parent = path.parent if str(path.parent) else Path(".")
    if path.is_dir():
        raise _UsageError(f"-o/--output {str(path)!r} is a directory; give a file name.")
    if not parent.exists():
        raise _UsageError(f"The directory {str(parent)!r} of -o/--output does not exist.")
    if not parent.is_dir():
        raise _UsageError(f"{str(parent)!r} (in -o/--output) is not a directory.")
    if path.exists():
        if not overwrite:
            raise _UsageError(f"-o/--output {str(path)!r} exists; pass --overwrite to "
                              "replace it.")
        if not os.access(path, os.W_OK):
            raise _UsageError(f"-o/--output {str(path)!r} is not writable.")
    elif not os.access(parent, os.W_OK | os.X_OK):
        raise _UsageError(f"The directory {str(parent)!r} of -o/--output is not writable.")


_SUFFIX_FORMATS = {".csv": "csv", ".json": "json", ".tex": "latex", ".md": "markdown",
                   ".markdown": "markdown", ".html": "html", ".htm": "html"}


def _output_format(args):
    """``--format`` if given, else the one the ``-o`` suffix names, else text."""
    if args.format is not None:
        return args.format
    if args.output:
        return _SUFFIX_FORMATS.get(Path(args.output).suffix.lower(), "text")
    return "text"


def _render(result, fmt):
    """The output of ``compare``/``run``/``report``; every one carries the signature."""
    if fmt in REPORT_FORMATS:  # the report ends with its signature section
        return result.report(fmt)
    if fmt in ("csv", "json"):
        frame = result.to_frame()
        frame["signature"] = result.signature()
        if fmt == "csv":  # formula-like names quoted (CSV injection)
            from sigtest._report.format import csv_safe

            return csv_safe(frame).to_csv(index=False)
        return frame.to_json(orient="records", indent=2)
    # the tables print p-values with sigtest._report.format.format_pvalue
    return (str(result) + "\n\n" + _scores_text(result.scores()) + _letters_text(result)
            + "\n\nsignature: " + result.signature())


def _letters_text(result):
    """The letters of every metric (all pairs tested, one run), or nothing."""
    if result.pairs != "all" or result.n_runs > 1:
        return ""
    # the report layer loads pandas: imported when the command runs
    import pandas as pd

    from sigtest._report.tiers import letters_or_tiers

    frame = result.to_frame()
    shown = {m: letters_or_tiers(result.letters(m), frame, result.systems, m, result.tests[0])
             for m in result.metrics}
    table = pd.concat({m: t["letters"] for m, t in shown.items()}, axis=1)
    order = shown[result.metrics[0]].index
    table = table.loc[order]
    table.index.name = "system"
    notes = "".join(f"\nnote ({m}): {t.attrs['tier_note']}" for m, t in shown.items()
                    if t.attrs["tier_note"])
    return ("\n\nletters (systems sharing a letter are not significantly different; "
            f"best first on {result.metrics[0]}; test {result.tests[0]})\n"
            + table.reset_index().to_string(index=False) + notes)


def _scores_text(table):
    """The per-system table of ``ComparisonResult.scores()`` as text (4 decimals)."""
    import pandas as pd

    # imported when the command runs: `import sigtest.cli` (and --help) stays light
    from sigtest._report.format import format_level

    levels = sorted({float(v) for v in table["ci_level"] if v == v})
    header = f"CI {', '.join(format_level(v) for v in levels)}".rstrip()
    shown = pd.DataFrame({
        **({"run": table["run"]} if "run" in table else {}),
        "system": table["system"],
        "metric": table["metric"],
        "score": table["score"].map("{:.4f}".format),
        header: [f"[{lo:.4f}, {hi:.4f}]" for lo, hi in zip(table["ci_low"], table["ci_high"])],
    })
    resamples = sorted({int(v) for v in table["n_resamples"]})
    return (f"scores of each system (bootstrap interval, "
            f"{', '.join(map(str, resamples))} resamples)\n"
            + shown.to_string(index=False))


def _emit(text, args, out):
    text += "" if text.endswith("\n") else "\n"
    if args.output:
        Path(args.output).write_text(text)
    else:
        out.write(text)


def _read(path, args, *, multilabel=False):
    # the reader needs pandas: imported when the command runs
    from sigtest._cli.io import read_predictions

    return None if path is None else read_predictions(path, header=args.header,
                                                      multilabel=multilabel,
                                                      encoding=args.encoding)


def _read_file(path, args, multilabel):
    """``(ids or None, values)`` of a gold or prediction file of ``compare``.

    With ``--label-column`` / ``--id-column`` the columns are picked
    (:func:`sigtest._cli.io.read_columns`), else the whole file is read.
    """
    if args.label_column is None and args.id_column is None:
        return None, _read(path, args, multilabel=multilabel)
    # the reader needs pandas: imported when the command runs
    from sigtest._cli.io import read_columns

    return read_columns(path, label_column=args.label_column, id_column=args.id_column,
                        header=args.header, encoding=args.encoding)


def _by_ids(gold_ids, ids, path, gold_path):
    """Positions in ``ids`` of each of ``gold_ids``: every file lists the same ids once."""
    import pandas as pd

    for what, values, where in (("gold", gold_ids, gold_path), ("prediction", ids, path)):
        dup = pd.Index(values)[pd.Index(values).duplicated()]
        if len(dup):
            raise _UsageError(f"The {what} file {where!r} lists the ids {dup[:5].tolist()} "
                              "more than once (--id-column).")
    take = pd.Index(ids).get_indexer(pd.Index(gold_ids))
    missing = [i for i, k in zip(gold_ids.tolist(), take) if k < 0]
    extra = len(ids) - (len(gold_ids) - len(missing))
    if missing or extra:
        kinds = {str(gold_ids.dtype.kind in "iu"), str(ids.dtype.kind in "iu")}
        hint = " (the ids are numbers in one file, text in the other)" if len(kinds) > 1 \
            else ""
        raise _UsageError(
            f"The prediction file {path!r} lacks {len(missing)} ids of the gold file "
            f"{gold_path!r} (e.g. {missing[:5]}) and has {extra} ids the gold lacks{hint}; "
            "every file must list the gold's items (--id-column).")
    return take


def _read_ids(path, option, args, n_items, against):
    """Cluster or stratum ids of ``--groups`` / ``--strata``: one id per line.

    Read like the label files (same header rules); errors name the option.
    ``against`` names the file whose row count the ids must match.
    """
    if path is None:
        return None
    # the reader needs pandas: imported when the command runs
    from sigtest._cli.io import read_ids

    try:
        values = read_ids(path, header=args.header, encoding=args.encoding)
    except ValueError as exc:
        raise _UsageError(f"{option}: {exc}") from None
    if len(values) != n_items:
        hint = (" (a header row? Pass --header to skip line 1 of every file)"
                if len(values) == n_items + 1 and args.header is None else "")
        raise _UsageError(f"The {option} file {path!r} has {len(values)} rows but {against} "
                          f"has {n_items}; give one id per item{hint}.")
    return values


def _design(args, n_items, against):
    """``{"groups": ids, "strata": ids}`` of the options given (empty without them)."""
    out = {}
    for key in ("groups", "strata"):
        values = _read_ids(getattr(args, key), f"--{key}", args, n_items, against)
        if values is not None:
            out[key] = values
    return out


def _same_length(files):
    """``files``: list of (role, path, values); every one must have as many rows."""
    role0, path0, values0 = files[0]
    for role, path, values in files[1:]:
        if len(values) != len(values0):
            raise _UsageError(
                f"The {role} file {path!r} has {len(values)} rows but the {role0} file "
                f"{path0!r} has {len(values0)}; every file must list the same items.")


def _first_rows_unseen(files, header):
    """Files too short for the per-file rule: line 1 of every label file unseen elsewhere.

    When each 1-D file's first value occurs nowhere else in any of the files
    (e.g. ``gold``, ``pred_a``, ``pred_b`` over a few labels), line 1 is a
    header in each; real data would need a class seen only once, in line 1,
    of every file. Files of real numbers (regression targets and predictions,
    read as float64 because some value is not whole) are not labels: their
    values are all distinct, so the rule does not apply to them.
    """
    if header is not None or len(files) < 2:
        return
    if any(v.ndim != 1 or len(v) < 3 or v.dtype.kind == "f" for _, _, v in files):
        return
    firsts = [str(v[0]) for _, _, v in files]
    rest = {str(x) for _, _, v in files for x in v[1:].tolist()}
    if len(set(firsts)) == len(firsts) and not set(firsts) & rest:
        names = ", ".join(repr(p) for _, p, _ in files)
        raise _UsageError(
            f"The files {names} seem to have header rows: the value in line 1 of each "
            f"({', '.join(map(repr, firsts))}) occurs nowhere else in any of them. Pass "
            "--header to skip line 1, or --no-header if it is data.")


# ---------------------------------------------------------------- commands
def _parse_system(spec):
    name, sep, path = spec.partition("=")
    if not sep:
        path, name = spec, Path(spec).stem
    if not name:
        raise _UsageError(f"The prediction argument {spec!r} has an empty system name.")
    return name, path


#: Options of a comparison of files that a table of scores (--scores) has no use for.
_FILE_OPTIONS = ("groups", "strata", "labels", "pos_label", "label_column", "id_column",
                 "header")
_SCORES_OPTIONS = ("scores_system", "scores_item", "scores_score", "scores_group",
                   "scores_dataset", "dataset", "on_missing", "harness", "filter")


def _option(name):
    return "--" + {"scores_" + k: k + "-column" for k in
                   ("system", "item", "score", "group", "dataset")}.get(
                       name, name).replace("_", "-")


def _run_compare_scores(args, out):
    """``compare --scores TABLE``: :func:`sigtest.read_scores` then ``compare``."""
    # imported when the command runs: `import sigtest.cli` (and --help) stays light
    from sigtest._workflows.scores_table import read_scores
    from sigtest.metrics import get_metric

    given = [o for o in _FILE_OPTIONS if getattr(args, o) is not None]
    if given:
        raise _UsageError(f"{_option(given[0])} is for gold and prediction files, not for "
                          "--scores (a group column of the table gives the clusters).")
    columns = {k: getattr(args, "scores_" + k) for k in ("system", "item", "score", "group",
                                                         "dataset")}
    metrics = tuple(args.metrics or ("mean",))
    for metric in metrics:  # misspelt names fail before the table is looked for
        get_metric(metric)
    test = _build_test(args)
    sources = _score_sources(args)
    table = read_scores(sources,
                        **{k: v for k, v in columns.items() if v is not None},
                        on_missing=args.on_missing or "error", encoding=args.encoding,
                        harness=args.harness, filter=args.filter)
    if args.dataset is not None and table.datasets == [None]:
        raise _UsageError(f"--dataset {args.dataset}: the table has no dataset column (named "
                          "'dataset', or given with --dataset-column).")
    if args.dataset is None and len(table.datasets) > 1:
        raise _UsageError(f"The table holds {len(table.datasets)} datasets "
                          f"{[str(d) for d in table.datasets]}: choose one with --dataset.")
    dataset = args.dataset
    if dataset is not None and dataset not in table.datasets:
        # dataset names read from a file may be numbers: match them as text
        dataset = next((d for d in table.datasets if str(d) == dataset), dataset)
    result = table.compare(
        dataset=dataset, metrics=metrics, test=test,
        pairs=_pairs(args), baseline=_baseline(args),
        correction=None if args.correction == "none" else args.correction,
        alpha=args.alpha, n_jobs=args.n_jobs, random_state=args.seed, verbose=args.progress,
        bootstrap=args.bootstrap,
    )
    _emit(_render(result, _output_format(args)), args, out)


def _score_sources(args):
    """The --scores path, or the files of an unquoted glob (which the shell expanded into
    the positional arguments)."""
    more = [p for p in (args.gold, *args.predictions) if p is not None]
    if not more:
        return _existing_table(args.scores)
    if all(Path(p).is_file() for p in [args.scores, *more]):
        return [args.scores, *more]
    raise _UsageError("--scores reads every system from one table: give no gold file "
                      "and no prediction files (several files of scores: quote a glob, "
                      "--scores 'out/*/samples_*.jsonl', or give a folder).")


def _existing_table(path):
    """The --scores path: a file, a folder or a glob (quoted, so that sigtest expands it)."""
    if not Path(path).exists() and not any(c in path for c in "*?["):
        raise _UsageError(f"The --scores table {path!r} does not exist.")
    return path


def _run_compare(args, out):
    # compare loads numba, scipy and pandas: imported when the command runs
    from sigtest._workflows.compare.api import compare

    _check_output(args.output, args.overwrite)
    if getattr(args, "scores", None) is not None:
        return _run_compare_scores(args, out)
    given = [o for o in _SCORES_OPTIONS if getattr(args, o, None) is not None]
    if given:
        raise _UsageError(f"{_option(given[0])} is for --scores TABLE.")
    if args.gold is None or not args.predictions:
        raise _UsageError("compare needs the gold file and at least one prediction file, or "
                          "--scores TABLE (a long table of per-item scores).")
    metrics = _metrics(args)
    multilabel = _multilabel(metrics)
    test = _build_test(args)  # a misspelt test name fails before the files are read
    gold_ids, y_true = _read_file(args.gold, args, multilabel)
    files = [("gold", args.gold, y_true)]
    predictions = {}
    for spec in args.predictions:
        name, path = _parse_system(spec)
        if name in predictions:
            raise _UsageError(f"The system name {name!r} is given twice.")
        ids, predictions[name] = _read_file(path, args, multilabel)
        if gold_ids is not None:
            predictions[name] = predictions[name][_by_ids(gold_ids, ids, path, args.gold)]
        files.append(("prediction", path, predictions[name]))
    _same_length(files)
    if args.label_column is None and args.id_column is None:
        _first_rows_unseen(files, args.header)
    labels, pos_label = _labels(args, y_true)
    extra = {k: v for k, v in (("labels", labels), ("pos_label", pos_label)) if v is not None}
    extra.update(_design(args, len(y_true), f"the gold file {args.gold!r}"))
    extra["verbose"] = args.progress
    result = compare(
        y_true, predictions, metrics=metrics, test=test, pairs=_pairs(args),
        baseline=_baseline(args),
        correction=None if args.correction == "none" else args.correction,
        alpha=args.alpha, n_jobs=args.n_jobs, random_state=args.seed,
        bootstrap=args.bootstrap, **extra,
    )
    _emit(_render(result, _output_format(args)), args, out)


def _run_feed(args, out):
    # the store loads pandas: imported when the command runs
    from sigtest._store.experiment import Experiment

    preds = _read(args.pred, args, multilabel=args.multilabel)
    gold = _read(args.gold, args, multilabel=args.multilabel)
    ids = None
    if args.ids is not None:  # ids keep their exact text (1e3 and 1000 are two items)
        from sigtest._cli.io import read_ids

        ids = read_ids(args.ids, header=args.header, encoding=args.encoding)
    files = [("prediction", args.pred, preds)]
    files += [(role, p, v) for role, p, v in (("gold", args.gold, gold), ("ids", args.ids, ids))
              if v is not None]
    _same_length(files)
    _first_rows_unseen([f for f in files if f[0] != "ids"], args.header)
    if ids is not None and ids.ndim != 1:
        raise _UsageError(f"The ids file {args.ids!r} must hold one id per line.")
    design = _design(args, len(preds), f"the prediction file {args.pred!r}")
    number = Experiment(args.store).feed(args.system, preds, y_true=gold, ids=ids,
                                         run=args.run, overwrite=args.overwrite, **design)
    out.write(f"stored run {number} of system {args.system!r} in {args.store}\n")


def _run_experiment(args, out):
    # the store loads pandas: imported when the command runs
    from sigtest._store.experiment import Experiment

    _check_output(args.output, args.overwrite)
    exp = Experiment.load(args.store)
    if not os.access(args.store, os.W_OK | os.X_OK):
        raise _UsageError(f"The store {args.store!r} is not writable (run writes results.tsv "
                          "and outcomes.json into it).")
    labels, pos_label = _labels(args, exp.gold()[1])
    extra = {k: v for k, v in (("labels", labels), ("pos_label", pos_label)) if v is not None}
    extra["verbose"] = args.progress
    result = exp.run(
        metrics=_metrics(args), test=_build_test(args), pairs=_pairs(args),
        baseline=_baseline(args),
        correction=None if args.correction == "none" else args.correction,
        runs=args.runs or "average", alpha=args.alpha,
        on_missing=args.on_missing or "error", n_jobs=args.n_jobs,
        random_state=args.seed, systems=args.systems, bootstrap=args.bootstrap, **extra)
    _emit(_render(result, _output_format(args)), args, out)


def _run_report(args, out):
    """``sigtest report``: ``run`` on a store, or ``compare`` on files, as a report."""
    if args.format is None:
        suffix = Path(args.output).suffix.lower() if args.output else ""
        fmt = _SUFFIX_FORMATS.get(suffix)
        args.format = fmt if fmt in REPORT_FORMATS else "markdown"
    if Path(args.source).is_dir():
        if args.predictions:
            raise _UsageError(f"{args.source!r} is an experiment directory: give no "
                              "prediction files (feed them with 'sigtest feed').")
        for option in ("groups", "strata", "label_column", "id_column"):
            if getattr(args, option) is not None:
                raise _UsageError(f"--{option.replace('_', '-')} is for prediction files; an "
                                  "experiment directory has its own (given to 'sigtest "
                                  "feed').")
        args.store = args.source
        return _run_experiment(args, out)
    if not args.predictions:
        raise _UsageError(f"{args.source!r} is not a directory: give the gold file then the "
                          "prediction files, or an experiment directory.")
    for option in ("runs", "on_missing", "systems"):
        if getattr(args, option) is not None:
            raise _UsageError(f"--{option.replace('_', '-')} is for an experiment directory, "
                              "not for prediction files.")
    args.gold = args.source
    return _run_compare(args, out)


def _run_remove(args, out):
    # the store loads pandas: imported when the command runs
    from sigtest._store.experiment import Experiment

    Experiment.load(args.store).remove(args.system, run=args.run)
    what = f"run {args.run} of system" if args.run is not None else "system"
    out.write(f"removed {what} {args.system!r} from {args.store}\n")


def _list(args, out):
    if args.command == "metrics":
        # imported when the command runs: `import sigtest.cli` (and --help) stays light
        from sigtest.metrics import get_metric, get_metric_names

        for name in get_metric_names():
            m = get_metric(name)
            orient = "higher" if m.greater_is_better else "lower"
            out.write(f"{name:34s} {m.input_type:12s} {orient} is better\n")
    else:
        # imported when the command runs: `import sigtest.cli` (and --help) stays light
        from sigtest.tests_ import get_test_names

        for name in get_test_names():
            out.write(name + "\n")


COMMANDS = {"compare": _run_compare, "feed": _run_feed, "run": _run_experiment,
             "remove": _run_remove, "metrics": _list, "tests": _list, "report": _run_report}
