"""Command-line interface: ``sigtest compare``, ``feed``, ``run``, ``remove``, ``metrics``, ``tests``.

Examples
--------
::

    sigtest compare gold.txt base=a.txt new=b.txt -m accuracy -m f1_macro
    sigtest compare gold.txt a.txt b.txt --labels pos,neg,neu -m f1_macro
    sigtest compare gold.txt a.txt b.txt --pos-label pos -o table.csv --format csv
    sigtest compare gold.txt a.txt b.txt --groups docs.txt --strata domains.txt
    sigtest compare --scores runs.csv --dataset gsm8k --baseline base
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

``--encoding CODEC`` reads the input files (and a ``--scores`` table) in
another encoding than UTF-8 (``latin-1``, ``cp1252``, ...). A table of
ids and labels given without ``--id-column`` / ``--label-column`` is
refused with a message that names them.

``--header`` skips a first row of column names; ``--no-header`` reads it as
data. Without either, a first row that does not look like the rest of its
column (text over numbers, column numbers over probabilities, a label that
never occurs again in a column of few labels) stops with an error that
suggests ``--header``; see :mod:`sigtest._cli.io` for the exact rule. Files too
short to judge alone are judged together: when line 1 of every label file
(gold and predictions) holds a value seen nowhere else in any of them, the
files are taken for headed.

``--labels`` (a comma-separated list, or a file with one label per line)
fixes the class set of the label metrics, e.g. the macro average of
``f1_macro``; ``--pos-label`` names the positive class of the one-class
scores (``f1``, ``precision``, ``recall``; other metrics ignore it; default 1
for 0/1 or -1/1 labels, as in scikit-learn).
Both are converted to the type of the gold labels (integers when the gold
labels are integers).

``compare --scores TABLE`` reads a long table of per-item scores instead of
a gold file and prediction files (one row per system and item, as evaluation
harnesses write them; :func:`sigtest.read_scores`): columns ``system``,
``item``, ``score`` and, when present, ``group`` (cluster ids) and
``dataset`` (choose one with ``--dataset NAME``); other names with
``--system-column``, ``--item-column``, ``--score-column``,
``--group-column``, ``--dataset-column``; items missing for some system are
an error unless ``--on-missing intersect``. The metric is ``mean``; repeated
rows of an item are its samples, and the tests resample whole items.

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
(:func:`sigtest._report.format.format_pvalue`); csv and json keep full precision.
"""

from __future__ import annotations

import sys
import warnings

from sigtest._cli.commands import COMMANDS
from sigtest._cli.parser import build_parser, check_usage

# numpy, pandas and the library are imported inside the functions that need
# them (sigtest._cli.commands), so that ``sigtest --help`` starts fast.

__all__ = ["main", "read_predictions"]


def __getattr__(name):
    if name == "read_predictions":  # re-exported from sigtest._cli.io (imports pandas)
        from sigtest._cli.io import read_predictions

        return read_predictions
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


# library wording -> command-line wording in error messages
_CLI_WORDS = (
    (" (header=True)", ""), (" (header=False)", ""), ("overwrite=True", "--overwrite"),
    (" (encoding=)", ""), ("The 'encoding' parameter", "--encoding"), ("encoding='latin-1' or 'cp1252'", "--encoding latin-1 or cp1252"),
    ("on_missing='intersect'", "--on-missing intersect"), ("runs='each'", "--runs each"),
    ("The 'labels' parameter", "--labels"), ("The 'pos_label' parameter", "--pos-label"),
    ("the 'groups' parameter", "--groups"), ("The 'groups' parameter", "--groups"),
    ("the 'strata' parameter", "--strata"), ("The 'strata' parameter", "--strata"),
    ("call run() first", "run 'sigtest run' first"),
    *((f"(the '{k}' parameter)", f"(--{k}-column)")
      for k in ("system", "item", "score", "group", "dataset")),
)


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
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
        check_usage(parser, args)
    except SystemExit as exc:  # argparse printed its usage and error
        return exc.code if isinstance(exc.code, int) else 2
    with warnings.catch_warnings():
        warnings.showwarning = _show_warning
        try:
            COMMANDS[args.command](args, out)
        except (ValueError, TypeError, OSError, ImportError) as exc:
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
