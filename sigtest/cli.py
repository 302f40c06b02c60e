"""Command-line interface: ``sigtest compare GOLD PRED...``, ``sigtest feed``, ``sigtest run``.

Examples
--------
::

    sigtest compare gold.txt base=a.txt new=b.txt -m accuracy -m f1_macro
    sigtest feed store/ h0 h0_seed0.txt --gold gold.txt --ids ids_seed0.txt
    sigtest feed store/ h1 h1_seed0.txt --ids ids_seed0.txt
    sigtest run store/ --pairs baseline --baseline h0 --runs each
    sigtest compare gold.tsv a.tsv b.tsv c.tsv --pairs baseline --baseline a
    sigtest compare gold.npy a.npy b.npy --test bootstrap -B 9999 --format csv
    sigtest metrics
    sigtest tests

File formats (chosen by suffix): ``.npy`` (a NumPy array), ``.csv`` (comma
separated), ``.tsv`` (tab separated — BooStSa read these as comma separated),
anything else as whitespace-separated text. One column gives labels (kept as
strings unless every value is an integer); several numeric columns give an
``(n_samples, n_classes)`` array of probabilities. ``--header`` skips a first
row of column names.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np
import pandas as pd

__all__ = ["main", "read_predictions"]

_FORMATS = ("text", "csv", "json", "latex")


def read_predictions(path, *, header=False):
    """Read gold labels or predictions from ``path``.

    Parameters
    ----------
    path : str or Path
        ``.npy``, ``.csv``, ``.tsv`` or whitespace-separated text.
    header : bool, default=False
        Whether the first row holds column names.

    Returns
    -------
    values : ndarray of shape (n_samples,) or (n_samples, n_columns)
        1-D labels (int64 if all values are integers, else str), or a 2-D
        float64 array when the file has several columns.
    """
    path = Path(path)
    if not path.is_file():
        raise ValueError(f"The file {str(path)!r} does not exist.")
    if path.suffix == ".npy":
        values = np.load(path, allow_pickle=False)
    else:
        sep = {".csv": ",", ".tsv": "\t"}.get(path.suffix, r"\s+")
        frame = pd.read_csv(
            path, sep=sep, header=0 if header else None, dtype=str,
            keep_default_na=False, engine="python" if sep == r"\s+" else "c",
        )
        if frame.shape[0] == 0:
            raise ValueError(f"The file {str(path)!r} holds no rows.")
        values = frame.to_numpy()
        if values.shape[1] == 1:
            values = values[:, 0]
        else:
            try:
                values = values.astype(np.float64)
            except ValueError as exc:
                raise ValueError(
                    f"The file {str(path)!r} has {values.shape[1]} columns, so it must hold "
                    f"numbers (probabilities), but: {exc}."
                ) from None
    if values.ndim == 1 and values.dtype.kind in "UO":
        try:
            as_int = values.astype(np.int64)
            if np.array_equal(as_int.astype(str), values.astype(str)):
                values = as_int
        except (ValueError, OverflowError):
            pass
    if values.ndim not in (1, 2) or values.shape[0] == 0:
        raise ValueError(f"The file {str(path)!r} must hold a non-empty 1-D or 2-D array.")
    return values


def _parse_system(spec):
    name, sep, path = spec.partition("=")
    if not sep:
        path, name = spec, Path(spec).stem
    if not name:
        raise ValueError(f"The prediction argument {spec!r} has an empty system name.")
    return name, path


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
    cmp_.add_argument("--header", action="store_true", help="files have a header row")
    cmp_.add_argument("--format", choices=_FORMATS, default="text")
    cmp_.add_argument("-o", "--output", default=None, help="write the table to this file")

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
    feed.add_argument("--header", action="store_true", help="files have a header row")

    run = sub.add_parser("run", help="compare every system of an experiment directory and save "
                                     "results.tsv and outcomes.json in it")
    run.add_argument("store", help="experiment directory filled by 'sigtest feed'")
    _add_test_options(run)
    run.add_argument("--runs", choices=("pool", "each", "mean"), default="pool",
                     help="how several runs per system are used (default: pool)")
    run.add_argument("--on-missing", choices=("error", "intersect"), default="error",
                     help="a run lacking some gold ids: error, or test on the common ids")
    run.add_argument("--format", choices=_FORMATS, default="text")
    run.add_argument("-o", "--output", default=None, help="write the table to this file")

    sub.add_parser("metrics", help="list the registered metrics")
    sub.add_parser("tests", help="list the registered significance tests")
    return parser


def _add_test_options(cmd):
    """Options shared by ``compare`` and ``run``: metrics, test, pairs, correction, seed."""
    cmd.add_argument("-m", "--metric", action="append", dest="metrics",
                     help="metric name (repeatable; default: accuracy and f1_macro)")
    cmd.add_argument("--test", default=None,
                     help="test name (see 'sigtest tests'); default: permutation p-value "
                          "with the BCa interval of the difference")
    cmd.add_argument("-B", "--n-resamples", type=int, default=None,
                     help="resamples per test (default: the test's own)")
    cmd.add_argument("--pairs", choices=("all", "baseline"), default="all")
    cmd.add_argument("--baseline", action="append", default=None,
                     help="baseline system name (repeatable), with --pairs baseline")
    cmd.add_argument("--correction", default="holm",
                     choices=("holm", "bonferroni", "fdr_bh", "none"))
    cmd.add_argument("--alpha", type=float, default=0.05)
    cmd.add_argument("--seed", type=int, default=0, help="random_state (default: 0)")
    cmd.add_argument("--n-jobs", type=int, default=None)


def _build_test(args):
    """The test(s) named by ``--test`` and ``-B`` (default: permutation + BCa)."""
    from .tests_ import BCaInterval, PairedPermutation, get_test

    extra = {} if args.n_resamples is None else {"n_resamples": args.n_resamples}
    if args.test is None:
        return (PairedPermutation(**extra), BCaInterval(**extra))
    return get_test(args.test, **extra)


def _baseline(args):
    baseline = args.baseline
    return baseline[0] if baseline is not None and len(baseline) == 1 else baseline


def _run_compare(args, out):
    from ._compare import compare

    y_true = read_predictions(args.gold, header=args.header)
    predictions = {}
    for spec in args.predictions:
        name, path = _parse_system(spec)
        if name in predictions:
            raise ValueError(f"The system name {name!r} is given twice.")
        predictions[name] = read_predictions(path, header=args.header)
    test, baseline = _build_test(args), _baseline(args)
    result = compare(
        y_true, predictions,
        metrics=tuple(args.metrics or ("accuracy", "f1_macro")),
        test=test, pairs=args.pairs, baseline=baseline,
        correction=None if args.correction == "none" else args.correction,
        alpha=args.alpha, n_jobs=args.n_jobs, random_state=args.seed,
    )
    _write_result(result, args, out)


def _write_result(result, args, out):
    if args.format == "text":
        text = str(result)
    elif args.format == "csv":
        text = result.to_frame().to_csv(index=False)
    elif args.format == "json":
        text = result.to_frame().to_json(orient="records", indent=2)
    else:
        text = result.to_latex()
    if args.output:
        Path(args.output).write_text(text + ("" if text.endswith("\n") else "\n"))
    else:
        out.write(text + ("" if text.endswith("\n") else "\n"))


def _run_feed(args, out):
    from .experiment import Experiment

    def read(path):
        return None if path is None else read_predictions(path, header=args.header)

    number = Experiment(args.store).feed(
        args.system, read(args.pred), y_true=read(args.gold), ids=read(args.ids),
        run=args.run, overwrite=args.overwrite)
    out.write(f"stored run {number} of system {args.system!r} in {args.store}\n")


def _run_experiment(args, out):
    from .experiment import Experiment

    result = Experiment.load(args.store).run(
        metrics=tuple(args.metrics or ("accuracy", "f1_macro")), test=_build_test(args),
        pairs=args.pairs, baseline=_baseline(args),
        correction=None if args.correction == "none" else args.correction,
        runs=args.runs, alpha=args.alpha, on_missing=args.on_missing, n_jobs=args.n_jobs,
        random_state=args.seed)
    _write_result(result, args, out)


def main(argv=None, out=None):
    """Entry point of the ``sigtest`` command; returns the exit status."""
    out = sys.stdout if out is None else out
    parser = _build_parser()
    args = parser.parse_args(argv)
    try:
        if args.command == "metrics":
            from .metrics import get_metric, get_metric_names

            for name in get_metric_names():
                m = get_metric(name)
                orient = "higher" if m.greater_is_better else "lower"
                out.write(f"{name:34s} {m.input_type:10s} {orient} is better\n")
        elif args.command == "tests":
            from .tests_ import get_test_names

            for name in get_test_names():
                out.write(name + "\n")
        elif args.command == "feed":
            _run_feed(args, out)
        elif args.command == "run":
            _run_experiment(args, out)
        else:
            _run_compare(args, out)
    except (ValueError, TypeError) as exc:
        print(f"sigtest: error: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
