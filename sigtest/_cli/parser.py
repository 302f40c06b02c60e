"""The argparse tree of the ``sigtest`` command and its option groups.

:func:`build_parser` builds the subcommands (``compare``, ``feed``, ``run``,
``report``, ``remove``, ``metrics``, ``tests``) from shared option groups
(test, design, header, column, store and output options). Numpy-free, so that
``sigtest --help`` starts fast: the choices come from plain tuples here and
from :mod:`sigtest._constants`.
"""

from __future__ import annotations

import argparse
import re

from sigtest._constants import (BOOTSTRAP_OPTIONS, CORRECTION_ALIASES, CORRECTIONS, HARNESSES,
                               MAXT_ALIASES, MAXT_CORRECTIONS, RUNS_MODES)
from sigtest._version import __version__

__all__ = ["ALTERNATIVES", "FORMATS", "MARGIN_ALTERNATIVES", "REPORT_FORMATS", "build_parser",
           "check_usage"]

#: ``--alternative``: the tests' ``alternative`` values (sigtest.tests_._base).
ALTERNATIVES = ("two-sided", "greater", "less", "non-inferiority", "equivalence")
MARGIN_ALTERNATIVES = ("non-inferiority", "equivalence")
FORMATS = ("table", "text", "csv", "json", "markdown", "latex", "html")
#: formats of ``ComparisonResult.report`` (the whole report); "text" is "table"
REPORT_FORMATS = ("markdown", "html", "latex")


# ------------------------------------------------------------------ parser
class _Parser(argparse.ArgumentParser):
    """argparse's parser; a misspelt choice (``--correction holmm``, a command)
    gets "Did you mean ...?" before argparse's list of choices."""

    def error(self, message):
        found = re.search(r"invalid choice: '([^']*)' \(choose from (.*)\)$", message)
        if found:
            # imported on this error path only: the parser stays numpy-free
            from sigtest.utils._names import did_you_mean

            choices = re.findall(r"'([^']*)'", found.group(2)) or [
                c.strip() for c in found.group(2).split(",")]
            hint = did_you_mean(found.group(1), choices)
            if hint:
                message = message.replace(" (choose from", f".{hint} (choose from", 1)
        super().error(message)


def _margin_arg(text):
    """``--margin``: a number m, or ``low,high`` (an asymmetric pair, as a tuple)."""
    parts = text.split(",")
    try:
        values = [float(v) for v in parts]
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"expected a number or low,high (e.g. 0.01 or -0.01,0.02), got {text!r}") from None
    if len(values) == 1:
        return values[0]
    if len(values) != 2:
        raise argparse.ArgumentTypeError(
            f"expected a number or low,high (two numbers), got {text!r}")
    return tuple(values)


def build_parser():
    """The ``sigtest`` parser: one subparser per command."""
    parser = _Parser(
        prog="sigtest", description="Significance tests for comparing ML/NLP systems."
    )
    parser.add_argument("--version", action="version", version=f"sigtest {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)

    cmp_ = sub.add_parser("compare", help="test every pair of systems (or each vs a baseline)")
    cmp_.add_argument("gold", nargs="?", default=None,
                      help="file with the gold labels (or gold distributions); none with "
                           "--scores")
    cmp_.add_argument(
        "predictions", nargs="*",
        help="prediction files, as PATH or NAME=PATH (name defaults to the file stem)",
    )
    _add_scores_options(cmp_)
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
    rep.add_argument("--format", choices=REPORT_FORMATS, default=None,
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
    parser.compare_parser = cmp_  # for check_usage
    return parser


def check_usage(parser, args):
    """Usage rules argparse cannot express; a violation exits as argparse's own errors do.

    ``compare`` takes a gold file and prediction files, or ``--scores TABLE``.
    """
    if args.command == "compare" and args.scores is None and (
            args.gold is None or not args.predictions):
        parser.compare_parser.error("the following arguments are required: gold, predictions "
                                    "(or --scores TABLE)")


def _add_store_options(cmd):
    """Options of a comparison of an experiment directory (``run``, ``report``)."""
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


def _add_scores_options(cmd):
    """``compare --scores TABLE``: a long table of per-item scores (sigtest.read_scores)."""
    cmd.add_argument("--scores", default=None, metavar="TABLE",
                     help="long table of per-item scores (.csv, .tsv, .parquet, .jsonl) with "
                          "columns system, item, score (and group, dataset when present), "
                          "instead of a gold file and prediction files; the metric is 'mean'. "
                          "Also a quoted glob, a folder, or the files of an evaluation harness "
                          "(--harness)")
    cmd.add_argument("--harness", choices=HARNESSES, default=None,
                     help="with --scores: read what a harness writes: lm-eval "
                          "(lm-evaluation-harness --log_samples files "
                          "<model>/samples_<task>_<date>.jsonl; --score-column names the "
                          "metric, --filter the filter) or inspect (inspect_ai .eval/.json "
                          "logs; --score-column names the scorer); default: from the file "
                          "names")
    cmd.add_argument("--filter", default=None, metavar="NAME",
                     help="with --harness lm-eval: the filter to read (e.g. strict-match), "
                          "required when the files hold several")
    for key in ("system", "item", "score", "group", "dataset"):
        cmd.add_argument(f"--{key}-column", dest=f"scores_{key}", default=None, metavar="COL",
                         help=f"with --scores: name of the {key} column (default: {key})")
    cmd.add_argument("--dataset", default=None, metavar="NAME",
                     help="with --scores and a dataset column: the dataset to compare")
    cmd.add_argument("--on-missing", choices=("error", "intersect"), default=None,
                     help="with --scores: items some system did not score are an error "
                          "(default), or only the items every system scored are tested")


def _add_header_option(cmd):
    cmd.add_argument("--header", action=argparse.BooleanOptionalAction, default=None,
                     help="files have a header row (--no-header: line 1 is data; default: "
                          "stop if line 1 looks like a header)")
    cmd.add_argument("--encoding", default=None, metavar="CODEC",
                     help="text encoding of the input files, e.g. latin-1 or cp1252 "
                          "(default: UTF-8, with or without a byte-order mark)")


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
    cmd.add_argument("--format", choices=FORMATS, default=None,
                     help="output format: table (the text tables, default), csv or json (the "
                          "pairs table with a signature column), markdown, latex or html (the "
                          "whole report, as 'sigtest report'); default: from the -o suffix "
                          ".csv/.json/.tex/.md/.html, else table")
    cmd.add_argument("-o", "--output", default=None, help="write the table to this file")
    cmd.add_argument("--overwrite", action="store_true",
                     help="replace the --output file if it exists")


def _add_test_options(cmd):
    """Options shared by ``compare`` and ``run``: metrics, test, pairs, correction, seed."""
    cmd.add_argument("-m", "--metric", action="append", dest="metrics",
                     help="metric name (repeatable; default: accuracy and f1_macro)")
    cmd.add_argument("--test", default=None,
                     help="test name (see 'sigtest tests'); default: permutation p-value "
                          "with the BCa interval of the difference")
    cmd.add_argument("-B", "--n-resamples", type=int, default=None,
                     help="resamples per test (default: the test's own)")
    cmd.add_argument("--pairs", choices=("all", "baseline", "adjacent"), default=None,
                     help="test every pair (default), each system against --baseline "
                          "(the default with --margin), or only the neighbours in the "
                          "ranking by the first metric's observed score")
    cmd.add_argument("--baseline", action="append", default=None,
                     help="baseline system name (repeatable); implies --pairs baseline")
    cmd.add_argument("--margin", type=_margin_arg, default=None,
                     help="margin of a non-inferiority or equivalence test, in metric units "
                          "(e.g. 0.01), or an asymmetric pair low,high of the oriented "
                          "difference with low < 0 < high (write --margin=-0.01,0.02; "
                          "non-inferiority uses low); needs --alternative and --baseline")
    cmd.add_argument("--alternative", choices=ALTERNATIVES, default=None,
                     help="alternative hypothesis of each system B against --baseline A "
                          "(default: the test's own, two-sided for the default test): "
                          "two-sided, greater (B better), less (B worse); with --margin, "
                          "non-inferiority (B is not worse than the baseline by --margin or "
                          "more) or equivalence (|B - A| < --margin, TOST; test: bca unless "
                          "--test names one with an interval: paired_t, mcnemar)")
    methods = [name for name in CORRECTIONS if name not in CORRECTION_ALIASES]
    cmd.add_argument("--correction", default="auto",
                     choices=(*CORRECTIONS, *MAXT_CORRECTIONS, *MAXT_ALIASES, "auto", "none"),
                     metavar="{" + ",".join(["auto", *methods, *MAXT_CORRECTIONS, "none"]) + "}",
                     help="multiple-comparison correction (default: auto, as compare: Holm, "
                          "or max-T for large families on 10^4 items or more); statsmodels' "
                          "other names of these methods (bh, sh, fdr_i, ...) and "
                          "romano-wolf (= max-t) are accepted too")
    cmd.add_argument("--bootstrap", default="auto", choices=BOOTSTRAP_OPTIONS,
                     help="source of the shared bootstrap draws (default: auto, as compare: "
                          "Gaussian multiplier draws for max-T when resampling would cost "
                          "more than 2e10 unit visits)")
    cmd.add_argument("--alpha", type=float, default=0.05)
    cmd.add_argument("--labels", default=None,
                     help="class set of the label metrics: comma-separated labels, or a file "
                          "with one label per line")
    cmd.add_argument("--pos-label", default=None,
                     help="positive class of the one-class scores f1, precision, recall "
                     "(default 1 for 0/1 or -1/1 labels; other metrics ignore it)")
    cmd.add_argument("--seed", type=int, default=0, help="random_state (default: 0)")
    cmd.add_argument("--n-jobs", type=int, default=None)
    cmd.add_argument("--progress", action=argparse.BooleanOptionalAction, default=True,
                     help="progress bar on stderr for long runs, drawn only when stderr is a "
                          "terminal (default: on)")
