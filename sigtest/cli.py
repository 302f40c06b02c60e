"""Command-line interface: ``sigtest compare``, ``feed``, ``run``, ``remove``, ``metrics``, ``tests``.

Examples
--------
::

    sigtest compare gold.txt base=a.txt new=b.txt -m accuracy -m f1_macro
    sigtest compare gold.txt a.txt b.txt --labels pos,neg,neu -m f1_macro
    sigtest compare gold.txt a.txt b.txt --pos-label pos -o table.csv --format csv
    sigtest compare gold.txt a.txt b.txt --groups docs.txt --strata domains.txt
    sigtest feed store/ h0 h0_seed0.txt --gold gold.txt --ids ids_seed0.txt --groups docs.txt
    sigtest feed store/ h1 h1_seed0.txt --ids ids_seed0.txt
    sigtest run store/ --pairs baseline --baseline h0 --runs each
    sigtest remove store/ h1 --run 0
    sigtest compare gold.tsv a.tsv b.tsv c.tsv --pairs baseline --baseline a
    sigtest compare gold.npy a.npy b.npy --test bootstrap -B 9999 --format csv
    sigtest compare gold.txt a.txt b.txt --baseline a --margin 0.01 --alternative non-inferiority
    sigtest compare gold.txt a.txt b.txt c.txt --baseline a --format markdown
    sigtest report gold.txt a.txt b.txt c.txt -o report.html
    sigtest report store/ --systems h0 h1 -o report.tex
    sigtest run store/ --systems h0 h1 --format json
    sigtest metrics
    sigtest tests

File formats (chosen by suffix): ``.npy`` (a NumPy array; object arrays are
refused), ``.csv`` (comma separated), ``.tsv`` (tab separated — BooStSa read
these as comma separated), anything else as whitespace-separated text. One
column gives labels (kept as strings unless every value is an integer);
several numeric columns give an ``(n_samples, n_classes)`` array of
probabilities, whose rows must sum to 1: rows off by rounding (at most
``1e-3``) are renormalised with a warning (with a multilabel metric, rows
are label memberships and need not sum to 1).

``--header`` skips a first row of column names; ``--no-header`` reads it as
data. Without either, a first row that does not look like the rest of its
column (text over numbers, column numbers over probabilities, a label that
never occurs again in a column of few labels) stops with an error that
suggests ``--header``; see :mod:`sigtest._io` for the exact rule. Files too
short to judge alone are judged together: when line 1 of every label file
(gold and predictions) holds a value seen nowhere else in any of them, the
files are taken for headed.

``--labels`` (a comma-separated list, or a file with one label per line)
fixes the class set of the label metrics, e.g. the macro average of
``f1_macro``; ``--pos-label`` names the positive class of one-class scores.
Both are converted to the type of the gold labels (integers when the gold
labels are integers).

``--groups FILE`` (``compare`` and ``feed``) gives the cluster id of every
item, one per line in the order of the gold (of the ``--ids`` for ``feed``):
e.g. the document of each sentence. The tests then resample whole clusters
(``groups=`` of :func:`sigtest.compare`); ``--strata FILE`` likewise gives a
stratum id per item (e.g. a domain) for resampling within strata. Both are
read like the label files (ints or strings, the same header rules; a file
with one more row than the gold suggests ``--header``); ``feed`` stores them
with the gold, and ``run`` uses them.

Outputs of ``compare`` and ``run`` (``--format``): ``table`` (the default,
also called ``text``) prints the pairs table with stars, each system's score
with its confidence interval (:meth:`ComparisonResult.scores
<sigtest.ComparisonResult.scores>`) and the letters (when every pair was
tested); ``csv`` and ``json`` hold the pairs table (full precision);
``markdown``, ``latex`` and ``html`` are the whole report
(:meth:`ComparisonResult.report <sigtest.ComparisonResult.report>`), which
``sigtest report`` writes from an experiment directory or from files. Every
output ends with the reproducibility signature
(:meth:`ComparisonResult.signature <sigtest.ComparisonResult.signature>`): a
last ``signature:`` line, the report's last section, or a ``signature``
column in csv and json. ``--baseline`` implies ``--pairs baseline``.

Errors are reported as one line ``sigtest: error: ...`` on stderr with exit
status 2 (usage and input errors; an unexpected internal error gives 1),
never a traceback; warnings as ``sigtest: warning: ...``. Outputs (``-o``,
the store of ``run``) are checked before anything is computed: the
directory must exist and be writable, and an existing ``-o`` file is only
replaced with ``--overwrite``. In the text and LaTeX tables p-values have 4
decimals, and those below ``0.0001`` read ``<0.0001``, never ``0.0000``
(:func:`sigtest._format.format_pvalue`); csv and json keep full precision.
"""

from __future__ import annotations

import argparse
import os
import sys
import warnings
from pathlib import Path

# numpy, pandas and the library are imported inside the functions that need
# them, so that ``sigtest --help`` starts fast (issue 9).

__all__ = ["main", "read_predictions"]


def __getattr__(name):
    if name == "read_predictions":  # re-exported from sigtest._io (imports pandas)
        from ._io import read_predictions

        return read_predictions
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

#: ``--alternative``: the tests' ``alternative`` values (sigtest.tests_._base).
_ALTERNATIVES = ("two-sided", "greater", "less", "non-inferiority", "equivalence")
_MARGIN_ALTERNATIVES = ("non-inferiority", "equivalence")
_FORMATS = ("table", "text", "csv", "json", "markdown", "latex", "html")
#: formats of ``ComparisonResult.report`` (the whole report); "text" is "table"
_REPORT_FORMATS = ("markdown", "html", "latex")
# library wording -> command-line wording in error messages
_CLI_WORDS = (
    (" (header=True)", ""), (" (header=False)", ""), ("overwrite=True", "--overwrite"),
    ("on_missing='intersect'", "--on-missing intersect"), ("runs='each'", "--runs each"),
    ("The 'labels' parameter", "--labels"), ("The 'pos_label' parameter", "--pos-label"),
    ("the 'groups' parameter", "--groups"), ("The 'groups' parameter", "--groups"),
    ("the 'strata' parameter", "--strata"), ("The 'strata' parameter", "--strata"),
    ("call run() first", "run 'sigtest run' first"),
)


class _UsageError(ValueError):
    """An error in the command-line arguments or files (exit status 2)."""


# ------------------------------------------------------------------ parser
def _build_parser():
    from . import __version__

    parser = argparse.ArgumentParser(
        prog="sigtest", description="Significance tests for comparing ML/NLP systems."
    )
    parser.add_argument("--version", action="version", version=f"sigtest {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)

    cmp_ = sub.add_parser("compare", help="test every pair of systems (or each vs a baseline)")
    cmp_.add_argument("gold", help="file with the gold labels (or gold distributions)")
    cmp_.add_argument(
        "predictions", nargs="+",
        help="prediction files, as PATH or NAME=PATH (name defaults to the file stem)",
    )
    _add_test_options(cmp_)
    _add_design_options(cmp_, "in the order of the gold file")
    _add_header_option(cmp_)
    _add_column_options(cmp_)
    _add_output_options(cmp_)

    feed = sub.add_parser("feed", help="store one run of one system in an experiment directory")
    feed.add_argument("store", help="experiment directory (created if needed)")
    feed.add_argument("system", help="system name")
    feed.add_argument("pred", help="file with the predictions of this run")
    feed.add_argument("--gold", default=None,
                      help="file with the gold labels of the same items (first feed)")
    feed.add_argument("--ids", default=None,
                      help="file with the item ids, one per prediction (default: 0..N-1)")
    feed.add_argument("--run", type=int, default=None,
                      help="run number (default: the system's next one)")
    feed.add_argument("--overwrite", action="store_true", help="replace an existing run")
    feed.add_argument("--multilabel", action="store_true",
                      help="several columns are label memberships (rows need not sum to 1)")
    _add_design_options(feed, "one per prediction, stored with the gold")
    _add_header_option(feed)

    run = sub.add_parser("run", help="compare every system of an experiment directory and save "
                                     "results.tsv and outcomes.json in it")
    run.add_argument("store", help="experiment directory filled by 'sigtest feed'")
    _add_test_options(run)
    _add_store_options(run)
    _add_output_options(run)

    rep = sub.add_parser(
        "report", help="write the report (Markdown, HTML or LaTeX) of a comparison, from an "
                       "experiment directory or from a gold file and prediction files")
    rep.add_argument("source", help="experiment directory filled by 'sigtest feed', or the "
                                    "gold file (then give the prediction files)")
    rep.add_argument("predictions", nargs="*",
                     help="with a gold file: prediction files, as PATH or NAME=PATH")
    _add_test_options(rep)
    _add_design_options(rep, "with a gold file, in its order")
    _add_header_option(rep)
    _add_column_options(rep)
    _add_store_options(rep)
    rep.add_argument("--format", choices=_REPORT_FORMATS, default=None,
                     help="report format (default: from the -o suffix .md/.html/.tex, else "
                          "markdown)")
    rep.add_argument("-o", "--output", default=None, help="write the report to this file")
    rep.add_argument("--overwrite", action="store_true",
                     help="replace the --output file if it exists")

    rm = sub.add_parser("remove", help="remove a system (or one of its runs) from an "
                                       "experiment directory")
    rm.add_argument("store", help="experiment directory")
    rm.add_argument("system", help="system name")
    rm.add_argument("--run", type=int, default=None,
                    help="remove only this run (default: the whole system)")

    sub.add_parser("metrics", help="list the registered metrics")
    sub.add_parser("tests", help="list the registered significance tests")
    return parser


def _add_store_options(cmd):
    """Options of a comparison of an experiment directory (``run``, ``report``)."""
    from ._constants import RUNS_MODES

    cmd.add_argument("--runs", choices=RUNS_MODES, default=None,
                     help="how several runs per system are used (default: average, the "
                          "per-item statistics averaged over runs; nested: the "
                          "hierarchical bootstrap over runs and items; pool is BooStSa's "
                          "mode)")
    cmd.add_argument("--on-missing", choices=("error", "intersect"), default=None,
                     help="a run lacking some gold ids: error (default), or test on the "
                          "common ids")
    cmd.add_argument("--systems", nargs="+", default=None, metavar="NAME",
                     help="compare only these systems, in this order (default: all, in feed "
                          "order)")


def _add_header_option(cmd):
    cmd.add_argument("--header", action=argparse.BooleanOptionalAction, default=None,
                     help="files have a header row (--no-header: line 1 is data; default: "
                          "stop if line 1 looks like a header)")


def _add_column_options(cmd):
    cmd.add_argument("--label-column", default=None, metavar="COL",
                     help="read the labels from this column of every file (gold and "
                          "predictions): a header name (then line 1 is the header) or a "
                          "number from 1; default with --id-column: the other column of a "
                          "two-column file")
    cmd.add_argument("--id-column", default=None, metavar="COL",
                     help="read item ids from this column of every file and align each "
                          "prediction file to the gold by them (as 'feed --ids'); every file "
                          "must list the gold's ids, in any order")


def _add_design_options(cmd, order):
    cmd.add_argument("--groups", default=None, metavar="FILE",
                     help=f"file with the cluster id of every item ({order}), e.g. its "
                          "document: whole clusters are resampled")
    cmd.add_argument("--strata", default=None, metavar="FILE",
                     help=f"file with the stratum id of every item ({order}), e.g. its "
                          "domain: the bootstrap resamples within strata")


def _add_output_options(cmd):
    cmd.add_argument("--format", choices=_FORMATS, default=None,
                     help="output format: table (the text tables, default), csv or json (the "
                          "pairs table with a signature column), markdown, latex or html (the "
                          "whole report, as 'sigtest report'); default: from the -o suffix "
                          ".csv/.json/.tex/.md/.html, else table")
    cmd.add_argument("-o", "--output", default=None, help="write the table to this file")
    cmd.add_argument("--overwrite", action="store_true",
                     help="replace the --output file if it exists")


def _add_test_options(cmd):
    from ._constants import CORRECTIONS

    """Options shared by ``compare`` and ``run``: metrics, test, pairs, correction, seed."""
    cmd.add_argument("-m", "--metric", action="append", dest="metrics",
                     help="metric name (repeatable; default: accuracy and f1_macro)")
    cmd.add_argument("--test", default=None,
                     help="test name (see 'sigtest tests'); default: permutation p-value "
                          "with the BCa interval of the difference")
    cmd.add_argument("-B", "--n-resamples", type=int, default=None,
                     help="resamples per test (default: the test's own)")
    cmd.add_argument("--pairs", choices=("all", "baseline"), default=None,
                     help="test every pair (default) or each system against --baseline "
                          "(the default with --margin)")
    cmd.add_argument("--baseline", action="append", default=None,
                     help="baseline system name (repeatable); implies --pairs baseline")
    cmd.add_argument("--margin", type=float, default=None,
                     help="margin of a non-inferiority or equivalence test, in metric units "
                          "(e.g. 0.01); needs --alternative and --baseline")
    cmd.add_argument("--alternative", choices=_ALTERNATIVES, default=None,
                     help="alternative hypothesis of each system B against --baseline A "
                          "(default: the test's own, two-sided for the default test): "
                          "two-sided, greater (B better), less (B worse); with --margin, "
                          "non-inferiority (B is not worse than the baseline by --margin or "
                          "more) or equivalence (|B - A| < --margin, TOST; test: bca unless "
                          "--test names one with an interval: paired_t, mcnemar)")
    cmd.add_argument("--correction", default="holm",
                     choices=(*CORRECTIONS, "none"))
    cmd.add_argument("--alpha", type=float, default=0.05)
    cmd.add_argument("--labels", default=None,
                     help="class set of the label metrics: comma-separated labels, or a file "
                          "with one label per line")
    cmd.add_argument("--pos-label", default=None, help="positive class of one-class scores")
    cmd.add_argument("--seed", type=int, default=0, help="random_state (default: 0)")
    cmd.add_argument("--n-jobs", type=int, default=None)
    cmd.add_argument("--progress", action=argparse.BooleanOptionalAction, default=True,
                     help="progress bar on stderr for long runs, drawn only when stderr is a "
                          "terminal (default: on)")


# ---------------------------------------------------------------- helpers
def _build_test(args):
    """The test(s) named by ``--test`` and ``-B``.

    Neither given: ``None``, i.e. compare's default (permutation + BCa, with
    the number of resamples chosen for the number of comparisons).
    """
    from .tests_ import BCaInterval, PairedPermutation, get_test

    if args.margin is not None or args.alternative in _MARGIN_ALTERNATIVES:
        return _margin_test(args)
    if args.test is None and args.n_resamples is None and args.alternative is None:
        return None
    extra = {} if args.n_resamples is None else {"n_resamples": args.n_resamples}
    if args.test is None and getattr(args, "runs", None) == "nested":
        from .tests_ import HierarchicalBootstrap  # the one test of runs='nested'

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
    from .tests_ import get_test

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
    from .tests_ import get_test

    if args.margin is None or args.alternative not in _MARGIN_ALTERNATIVES:
        given, missing = (("--margin", "--alternative") if args.margin is not None
                          else (f"--alternative {args.alternative}", "--margin"))
        raise _UsageError(f"{given} needs {missing} (--alternative non-inferiority or "
                          "equivalence, --margin a positive number in metric units).")
    if args.baseline is None:
        raise _UsageError("--margin needs --baseline: non-inferiority and equivalence are "
                          "tested for each system against the baseline.")
    if not args.margin > 0:
        raise _UsageError(f"--margin must be a positive number (metric units). Got "
                          f"{args.margin!r}.")
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
    from .metrics import get_metric

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
            from ._io import read_predictions

            values = read_predictions(spec, header=False)
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
    if fmt in _REPORT_FORMATS:  # the report ends with its signature section
        return result.report(fmt)
    if fmt in ("csv", "json"):
        frame = result.to_frame()
        frame["signature"] = result.signature()
        if fmt == "csv":  # formula-like names quoted (CSV injection)
            from ._format import csv_safe

            return csv_safe(frame).to_csv(index=False)
        return frame.to_json(orient="records", indent=2)
    # the tables print p-values with sigtest._format.format_pvalue
    return (str(result) + "\n\n" + _scores_text(result.scores()) + _letters_text(result)
            + "\n\nsignature: " + result.signature())


def _letters_text(result):
    """The letters of every metric (all pairs tested, one run), or nothing."""
    if result.pairs != "all" or result.n_runs > 1:
        return ""
    import pandas as pd

    table = pd.concat({m: result.letters(m)["letters"] for m in result.metrics}, axis=1)
    order = result.letters(result.metrics[0]).index
    table = table.loc[order]
    table.index.name = "system"
    return ("\n\nletters (systems sharing a letter are not significantly different; "
            f"best first on {result.metrics[0]}; test {result.tests[0]})\n"
            + table.reset_index().to_string(index=False))


def _scores_text(table):
    """The per-system table of ``ComparisonResult.scores()`` as text (4 decimals)."""
    import pandas as pd

    from ._format import format_level

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
    from ._io import read_predictions

    return None if path is None else read_predictions(path, header=args.header,
                                                      multilabel=multilabel)


def _read_file(path, args, multilabel):
    """``(ids or None, values)`` of a gold or prediction file of ``compare``.

    With ``--label-column`` / ``--id-column`` the columns are picked
    (:func:`sigtest._io.read_columns`), else the whole file is read.
    """
    if args.label_column is None and args.id_column is None:
        return None, _read(path, args, multilabel=multilabel)
    from ._io import read_columns

    return read_columns(path, label_column=args.label_column, id_column=args.id_column,
                        header=args.header)


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
    from ._io import read_ids

    try:
        values = read_ids(path, header=args.header)
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
    of every file.
    """
    if header is not None or len(files) < 2:
        return
    if any(v.ndim != 1 or len(v) < 3 for _, _, v in files):
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


def _run_compare(args, out):
    from ._compare import compare

    _check_output(args.output, args.overwrite)
    metrics = _metrics(args)
    multilabel = _multilabel(metrics)
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
        y_true, predictions, metrics=metrics, test=_build_test(args), pairs=_pairs(args),
        baseline=_baseline(args),
        correction=None if args.correction == "none" else args.correction,
        alpha=args.alpha, n_jobs=args.n_jobs, random_state=args.seed, **extra,
    )
    _emit(_render(result, _output_format(args)), args, out)


def _run_feed(args, out):
    from .experiment import Experiment

    preds = _read(args.pred, args, multilabel=args.multilabel)
    gold = _read(args.gold, args, multilabel=args.multilabel)
    ids = _read(args.ids, args)
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
    from .experiment import Experiment

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
        random_state=args.seed, systems=args.systems, **extra)
    _emit(_render(result, _output_format(args)), args, out)


def _run_report(args, out):
    """``sigtest report``: ``run`` on a store, or ``compare`` on files, as a report."""
    if args.format is None:
        suffix = Path(args.output).suffix.lower() if args.output else ""
        fmt = _SUFFIX_FORMATS.get(suffix)
        args.format = fmt if fmt in _REPORT_FORMATS else "markdown"
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
    from .experiment import Experiment

    Experiment.load(args.store).remove(args.system, run=args.run)
    what = f"run {args.run} of system" if args.run is not None else "system"
    out.write(f"removed {what} {args.system!r} from {args.store}\n")


def _list(args, out):
    if args.command == "metrics":
        from .metrics import get_metric, get_metric_names

        for name in get_metric_names():
            m = get_metric(name)
            orient = "higher" if m.greater_is_better else "lower"
            out.write(f"{name:34s} {m.input_type:10s} {orient} is better\n")
    else:
        from .tests_ import get_test_names

        for name in get_test_names():
            out.write(name + "\n")


_COMMANDS = {"compare": _run_compare, "feed": _run_feed, "run": _run_experiment,
             "remove": _run_remove, "metrics": _list, "tests": _list, "report": _run_report}


def _one_line(exc):
    text = " ".join(str(exc).split()) or type(exc).__name__
    for lib, cli in _CLI_WORDS:
        text = text.replace(lib, cli)
    return text


def _show_warning(message, category, filename, lineno, file=None, line=None):
    print(f"sigtest: warning: {_one_line(message)}", file=sys.stderr)


def main(argv=None, out=None):
    """Entry point of the ``sigtest`` command.

    Parameters
    ----------
    argv : list of str, optional
        Arguments (default: ``sys.argv[1:]``).
    out : file-like, optional
        Where tables and listings go (default: ``sys.stdout``).

    Returns
    -------
    status : int
        0 on success; 2 for usage and input errors (one line
        ``sigtest: error: ...`` on stderr, no traceback); 1 for an
        unexpected internal error; 130 when interrupted.
    """
    out = sys.stdout if out is None else out
    parser = _build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # argparse printed its usage and error
        return exc.code if isinstance(exc.code, int) else 2
    with warnings.catch_warnings():
        warnings.showwarning = _show_warning
        try:
            _COMMANDS[args.command](args, out)
        except (ValueError, TypeError, OSError) as exc:
            print(f"sigtest: error: {_one_line(exc)}", file=sys.stderr)
            return 2
        except KeyboardInterrupt:
            print("sigtest: interrupted", file=sys.stderr)
            return 130
        except Exception as exc:  # an internal error: still one line, but status 1
            print(f"sigtest: error: unexpected {type(exc).__name__}: {_one_line(exc)} "
                  "(please report this)", file=sys.stderr)
            return 1
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
