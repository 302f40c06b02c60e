"""The reproducibility signature of a :class:`~sigtest.ComparisonResult`.

:func:`signature` is what :meth:`ComparisonResult.signature` returns and what
the ``signature`` section of the report prints: one line of ``key:value``
fields (version, tests, resample counts, seed, metrics, correction, digests
of the targets, predictions, clusters, strata and weights). The facts it
reads from a result (the test specs, the resample counts, the shown seed,
the number of items) are shared with the methods text of
:mod:`sigtest._report.sections`. Imports numpy and the version only.
"""

import hashlib
from numbers import Integral

import numpy as np

from sigtest._report.format import frame_margins
from sigtest._version import __version__

__all__ = ["signature"]


# ------------------------------------------------------- facts of a result
def _specs(result):
    """``[(name, pvalue_test, interval_test or None)]`` as the comparison built them."""
    return result.test_specs


def _n_pairs(result):
    frame = result._frame
    first = frame[(frame["metric"] == result.metrics[0]) & (frame["test"] == result.tests[0])]
    if "run" in first:
        first = first[first["run"] == first["run"].iloc[0]]
    return len(first)


def _n_items(result):
    return int(next(iter(result.targets.values())).shape[0])


def _resample_counts(frame, name):
    values = sorted({int(v) for v in frame.loc[frame["test"] == name, "n_resamples"]})
    return [v for v in values if v > 0]


def _shown_seed(result):
    """The ``random_state`` the user gave (cross_val_compare's, not its tests' child seed)."""
    return result.random_state


def _seed_text(random_state):
    if random_state is None:
        return "none"
    if isinstance(random_state, Integral) and not isinstance(random_state, bool):
        return str(int(random_state))
    if isinstance(random_state, np.random.SeedSequence):
        return f"seedseq({random_state.entropy})"
    return type(random_state).__name__


# ----------------------------------------------------------------- signature
def _digest(array):
    """sha256 of an array's values, shape and kind (ints and bools as int64, floats as float64)."""
    a = np.asarray(array)
    h = hashlib.sha256()
    h.update(f"{a.dtype.kind in 'OUS' and 'text' or 'num'}{a.shape}".encode())
    if a.dtype.kind in "OUS":
        h.update("\x1f".join(str(v) for v in a.ravel().tolist()).encode("utf-8"))
    elif a.dtype.kind in "biu":
        h.update(np.ascontiguousarray(a, dtype="<i8").tobytes())
    else:
        h.update(np.ascontiguousarray(a, dtype="<f8").tobytes())
    return h.hexdigest()


def _partition_digest(ids):
    """Digest of the partition of the items that ``ids`` define (not of the id labels).

    Ids are renumbered by first appearance, so ``["d1", "d1", "d2"]`` and
    ``[7, 7, 3]`` (the same clusters) have the same digest.
    """
    _, first, inverse = np.unique(np.asarray(ids), return_index=True, return_inverse=True)
    rank = np.empty(first.shape[0], dtype=np.int64)
    rank[np.argsort(first, kind="stable")] = np.arange(first.shape[0])
    return _digest(rank[inverse.ravel()])[:8]


def _combined(parts):
    h = hashlib.sha256()
    for part in parts:
        h.update(part.encode("utf-8") + b"\x1e")
    return h.hexdigest()[:8]


def _clean(text):
    return str(text).replace("|", "/").replace("\n", " ")


def _resample_fields(r, frame):
    """The resample counts of each test's p-value and (when separate) interval."""
    b_p, b_ci = [], []
    for name, ptest, itest in _specs(r):
        counts = _resample_counts(frame, name)
        params = ptest.get_params(deep=False) if hasattr(ptest, "get_params") else {}
        b = params.get("n_resamples")
        b_p.append(str(b) if isinstance(b, Integral) else (str(counts[-1]) if counts else "-"))
        if itest is not None:
            ib = itest.get_params(deep=False).get("n_resamples") \
                if hasattr(itest, "get_params") else None
            b_ci.append(str(ib) if isinstance(ib, Integral) else "-")
    return b_p, b_ci


def _design_fields(r, frame, opts):
    """The optional fields: margins, runs, folds, groups, strata, overall, weights, draws."""
    fields = []
    if "margin" in frame or "margin_low" in frame:
        fields.append(("margin", ",".join(
            f"{hi:g}" if lo == -hi else f"{lo:g}..{hi:g}" for lo, hi in frame_margins(frame))))
    if any(isinstance(v, list) for v in r._predictions.values()) and r.cv_splits is None:
        fields.append(("runs", str(opts.runs)))
    if r.cv_splits is not None:
        fields.append(("cv", f"{len(r.cv_splits[0])}x{len(r.cv_splits)}"))
    if r.n_groups is not None:
        fields.append(("groups", f"{r.n_groups}:{_partition_digest(opts.groups)}"))
    if r.n_strata is not None:
        fields.append(("strata", f"{r.n_strata}:{_partition_digest(opts.strata)}"))
    if opts.overall is not None:
        fields.append(("overall", opts.overall))
    if opts.sample_weight is not None:
        fields.append(("weights", _digest(opts.sample_weight)[:8]))
    if getattr(r, "bootstrap", "resample") == "multiplier":
        fields.append(("draws", "multiplier"))
    return fields


def signature(result):
    """The reproducibility signature of ``result`` (see :meth:`ComparisonResult.signature`)."""
    r = result
    opts = r.options
    frame = r._frame
    b_p, b_ci = _resample_fields(r, frame)
    targets = r.targets
    y = _combined(f"{key}:{_digest(targets[key])}" for key in sorted(targets))
    preds, predictions = [], r.predictions
    for name in sorted(r.systems):
        value = predictions[name]
        runs = value if isinstance(value, list) else [value]
        preds.append(name + "=" + ",".join(_digest(v) for v in runs))
    alts = sorted(set(frame["alternative"].dropna()))
    fields = [
        ("sigtest", __version__),
        ("test", ",".join(r.tests)),
        ("B", ",".join(b_p)),
    ]
    if b_ci:
        fields.append(("B_ci", ",".join(b_ci)))
    fields += [
        ("seed", _seed_text(_shown_seed(r))),
        ("metric", ",".join(r.metrics)),
        ("corr", r.correction or "none"),
        ("alpha", f"{r.alpha:g}"),
        ("pairs", r.pairs if r.pairs != "baseline"
         else "baseline:" + ",".join(sorted(set(frame["system_a"])))),
        ("alt", ",".join(alts)),
        ("ci", r.ci_coverage),
        ("n", str(_n_items(r))),
        ("k", str(len(r.systems))),
        ("y", y),
        ("pred", _combined(preds)),
    ]
    fields += _design_fields(r, frame, opts)
    return "|".join(f"{key}:{_clean(value)}" for key, value in fields)
