"""The report of a :class:`~sigtest.ComparisonResult`: tables, methods text, references, signature.

:meth:`ComparisonResult.report` builds a document from an ordered registry
of *sections* (:func:`register_section`) and renders it as Markdown, HTML or
LaTeX (:mod:`sigtest._report.doc`). Built-in sections, in order:

``methods``    the generated methods paragraph;
``scores``     per metric, each system's score with its interval (and the
               letters when every pair was tested), with a chart (HTML);
``pairs``      per metric, the pairwise differences with intervals, raw and
               adjusted p-values and stars, with a forest chart (HTML);
``ranks``      optional: the table of ``result.ranks()`` when the result has
               such a method;
``cv_tests``   optional: the per-fold CV tests of ``cross_val_compare``;
``references`` what to cite for the tests, the correction and the letters;
``signature``  the reproducibility signature (:func:`signature`).

A section is ``build(result, ctx) -> list of blocks`` plus ``available(result)``;
a later feature adds its section with one :func:`register_section` call
(e.g. ``after="pairs"``), and users pick sections with ``sections=``.
"""

import hashlib
from dataclasses import dataclass
from numbers import Integral

import numpy as np

from sigtest._report.format import CORRECTION_NAMES, format_level, format_pvalue
from sigtest._report.doc import RENDERERS, Table, html_fragment, render
from sigtest._report.svg import interval_chart
from sigtest._results import stars_of
from sigtest._version import __version__

__all__ = ["register_section", "section_names", "build_report", "signature",
           "methods_text", "report_html_fragment", "REPORT_FORMATS"]

REPORT_FORMATS = tuple(RENDERERS)


# ------------------------------------------------------------------ registry
@dataclass(frozen=True)
class _Section:
    name: str
    build: object
    available: object
    default: bool


_SECTIONS = []


def register_section(name, build, *, available=None, after=None, default=True,
                     overwrite=False):
    """Add a section to the report (used by the features that grow it).

    Parameters
    ----------
    name : str
        Section name, as in ``ComparisonResult.report(sections=[...])``.
    build : callable
        ``build(result, ctx) -> list`` of blocks of :mod:`sigtest._report.doc`;
        ``ctx`` is a :class:`_Context` (cached ``scores()``, ``frame``,
        ``letters``, the list of references to extend).
    available : callable, optional
        ``available(result) -> bool``; an unavailable section is left out
        of the default report and is an error when requested. Default:
        always available.
    after : str, optional
        Insert after this section (default: before ``references``).
    default : bool, default=True
        Part of the report when ``sections`` is not given.
    overwrite : bool, default=False
        Replace a section of the same name.
    """
    names = section_names()
    if name in names:
        if not overwrite:
            raise ValueError(f"A report section named {name!r} exists; pass overwrite=True.")
        del _SECTIONS[names.index(name)]
        names = section_names()
    entry = _Section(name, build, available or (lambda result: True), default)
    if after is None:
        at = names.index("references") if "references" in names else len(names)
    else:
        if after not in names:
            raise ValueError(f"Unknown report section {after!r}; sections are {names}.")
        at = names.index(after) + 1
    _SECTIONS.insert(at, entry)


def section_names():
    """Names of the registered sections, in report order."""
    return [s.name for s in _SECTIONS]


# ------------------------------------------------------------------- context
class _Context:
    """What the sections of one report share: computed once, cited once."""

    def __init__(self, result):
        self.result = result
        self.frame = result.to_frame()
        self._scores = None
        self.references = []  # in order of first citation

    def scores(self):
        if self._scores is None:
            self._scores = self.result.scores()
        return self._scores

    def cite(self, *refs):
        for ref in refs:
            if ref not in self.references:
                self.references.append(ref)

    def letters(self, metric):
        """The letters table of ``metric`` (first test), or None when undefined."""
        r = self.result
        if r.pairs != "all" or r.n_runs > 1 or len(r.systems) < 2:
            return None
        return r.letters(metric)


# ------------------------------------------------------------- descriptions
_REFS = {
    "permutation": "E. W. Noreen (1989). Computer-Intensive Methods for Testing Hypotheses: "
                   "An Introduction. Wiley.",
    "bca": "B. Efron (1987). Better bootstrap confidence intervals. Journal of the American "
           "Statistical Association 82(397), 171-185.",
    "bootstrap": "T. Berg-Kirkpatrick, D. Burkett, D. Klein (2012). An empirical "
                 "investigation of statistical significance in NLP. EMNLP-CoNLL, 995-1005.",
    "boostsa": "T. Fornaciari, A. Uma, M. Poesio, D. Hovy (2022). Hard and soft evaluation "
               "of NLP models with BOOtSTrap SAmpling - BooStSa. ACL: System "
               "Demonstrations.",
    "mcnemar": "Q. McNemar (1947). Note on the sampling error of the difference between "
               "correlated proportions or percentages. Psychometrika 12(2), 153-157.",
    "paired_t": "Student (1908). The probable error of a mean. Biometrika 6(1), 1-25.",
    "sign": "W. J. Conover (1999). Practical Nonparametric Statistics, 3rd ed., section 3.4. "
            "Wiley.",
    "wilcoxon": "F. Wilcoxon (1945). Individual comparisons by ranking methods. Biometrics "
                "Bulletin 1(6), 80-83.",
    "bayesian_bootstrap": "D. B. Rubin (1981). The Bayesian bootstrap. The Annals of "
                          "Statistics 9(1), 130-134.",
    "holm": "S. Holm (1979). A simple sequentially rejective multiple test procedure. "
            "Scandinavian Journal of Statistics 6(2), 65-70.",
    "bonferroni": "O. J. Dunn (1961). Multiple comparisons among means. Journal of the "
                  "American Statistical Association 56(293), 52-64.",
    "fdr_bh": "Y. Benjamini, Y. Hochberg (1995). Controlling the false discovery rate: a "
              "practical and powerful approach to multiple testing. Journal of the Royal "
              "Statistical Society B 57(1), 289-300.",
    "letters": "H.-P. Piepho (2004). An algorithm for a letter-based representation of "
               "all-pairwise comparisons. Journal of Computational and Graphical Statistics "
               "13(2), 456-466.",
    "clusters": "A. C. Davison, D. V. Hinkley (1997). Bootstrap Methods and their "
                "Application, sections 3.7-3.8. Cambridge University Press.",
    "bestgen": "Y. Bestgen (2022). Please, don't forget the difference and the confidence "
               "interval when seeking for the state-of-the-art status. LREC, 5956-5962.",
}

_TEST_WORDS = {
    "permutation": "paired permutation test",
    "bca": "BCa bootstrap interval",
    "bootstrap": "paired bootstrap test of Berg-Kirkpatrick et al.",
    "boostsa": "BooStSa bootstrap test",
    "mcnemar": "McNemar test",
    "paired_t": "paired t-test",
    "sign": "sign test",
    "wilcoxon": "Wilcoxon signed-rank test",
    "bayesian_bootstrap": "Bayesian bootstrap",
}

_CORRECTION_WORDS = {"holm": "Holm's method", "bonferroni": "the Bonferroni correction",
                     "fdr_bh": "the Benjamini-Hochberg procedure (false discovery rate)"}


def _specs(result):
    """``[(name, pvalue_test, interval_test or None)]`` as the comparison built them."""
    opts = result._inputs["options"]
    m = _n_pairs(result)
    return result._inputs["test_specs"](opts["test"], m=m if result.correction is not None else 1, m_ci=m,
                        alpha=result.alpha, simultaneous=result.ci == "simultaneous")


def _registry_name(test):
    from sigtest.tests_._registry import test_name

    return test_name(test)


def _n_pairs(result):
    frame = result._frame
    first = frame[(frame["metric"] == result.metrics[0]) & (frame["test"] == result.tests[0])]
    if "run" in first:
        first = first[first["run"] == first["run"].iloc[0]]
    return len(first)


def _n_items(result):
    return int(next(iter(result._inputs["targets"].values())).shape[0])


def _int(n):
    return f"{int(n):,}"


def _resample_counts(frame, name):
    values = sorted({int(v) for v in frame.loc[frame["test"] == name, "n_resamples"]})
    return [v for v in values if v > 0]


def _test_phrase(test, counts, ctx):
    """``"paired permutation test (B = 9,999 resamples)"`` and its citations."""
    reg = _registry_name(test)
    words = _TEST_WORDS.get(reg, f"test {reg!r}")
    if reg in _REFS:
        ctx.cite(_REFS[reg])
    params = test.get_params(deep=False) if hasattr(test, "get_params") else {}
    b = params.get("n_resamples")
    extra = []
    if isinstance(b, Integral) and b > 0:
        enumerated = [c for c in counts if c != b]
        extra.append(f"B = {_int(b)} resamples")
        if enumerated:
            span = (_int(enumerated[0]) if len(enumerated) == 1
                    else f"{_int(enumerated[0])}-{_int(enumerated[-1])}")
            extra.append(f"exact where cheaper: {span} patterns enumerated")
    return words + (f" ({'; '.join(extra)})" if extra else "")


def _shown_seed(result):
    """The ``random_state`` the user gave (cross_val_compare's, not its tests' child seed)."""
    inputs = result._inputs
    return inputs.get("random_state_shown", inputs["options"].get("random_state"))


def _seed_text(random_state):
    if random_state is None:
        return "none"
    if isinstance(random_state, Integral) and not isinstance(random_state, bool):
        return str(int(random_state))
    if isinstance(random_state, np.random.SeedSequence):
        return f"seedseq({random_state.entropy})"
    return type(random_state).__name__


def methods_text(result, ctx=None):
    """The generated methods paragraph of ``result`` (plain text), citing into ``ctx``."""
    ctx = _Context(result) if ctx is None else ctx
    r, frame = result, ctx.frame
    opts = r._inputs["options"]
    k, n, m = len(r.systems), _n_items(r), _n_pairs(r)
    names = ", ".join(r.systems)
    metrics = ", ".join(r.metrics)
    design = []
    if r.n_groups is not None:
        design.append(f"clustered in {_int(r.n_groups)} groups (whole groups are resampled)")
        ctx.cite(_REFS["clusters"])
    if r.n_strata is not None:
        design.append(f"stratified in {_int(r.n_strata)} strata (resampled within strata)")
    if opts.get("sample_weight") is not None:
        design.append("with item weights")
    text = [f"We compared {k} systems ({names}) on N = {_int(n)} items"
            + (f", {', '.join(design)}," if design else "")
            + f" with {'the metric' if len(r.metrics) == 1 else 'the metrics'} {metrics}."]
    if r.cv_splits is not None:
        folds = r.cv_splits
        text.append(f"Predictions are the out-of-fold predictions of {len(folds[0])}-fold "
                    f"cross-validation ({len(folds)} repeat{'s' if len(folds) > 1 else ''}).")
    runs = {name: (len(v) if isinstance(v, list) else 1) for name, v in r.predictions.items()}
    if max(runs.values()) > 1 and r.cv_splits is None:
        mode = opts.get("runs_mode", "average")
        text.append(f"Systems have up to {max(runs.values())} runs each, used with "
                    f"runs={mode!r}" + (f" ({r.n_runs} runs tested separately)."
                                        if r.n_runs > 1 else "."))
    alts = sorted(set(frame["alternative"].dropna()))
    alt = " or ".join(alts) if alts else "two-sided"
    if r.pairs == "all":
        who = f"Every pair of systems ({m} pair{'s' if m != 1 else ''})"
    else:
        base = sorted(set(frame["system_a"]))
        who = (f"Each system against the baseline{'s' if len(base) > 1 else ''} "
               f"{', '.join(base)} ({m} pair{'s' if m != 1 else ''})")
    seed = _seed_text(_shown_seed(r))
    tests = []
    for name, ptest, itest in _specs(r):
        sided = "" if _registry_name(ptest) == "bayesian_bootstrap" else f"{alt} "
        phrase = f"a {sided}{_test_phrase(ptest, _resample_counts(frame, name), ctx)}"
        rows = frame[frame["test"] == name]
        levels = sorted({float(v) for v in rows["ci_level"] if np.isfinite(v)})
        level = ", ".join(format_level(v) for v in levels) or "95 %"
        if itest is not None:
            phrase += (f" for the p-value, with the {level} "
                       f"{_test_phrase(itest, [], ctx)} of the difference")
        elif levels and (np.isfinite(rows["ci_low"]) | np.isfinite(rows["ci_high"])).any():
            phrase += f" with its {level} interval of the difference"
        tests.append(phrase)
    if "margin" in frame:
        margins = sorted({float(v) for v in frame["margin"] if np.isfinite(v)})
        tests.append("margin " + ", ".join(f"{v:g}" for v in margins))
    text.append(f"{who} was compared with " + "; ".join(tests)
                + (f", with random seed {seed}." if seed != "none" else
                   ", with no fixed random seed (the resamples cannot be repeated)."))
    text.append("Differences are B - A; intervals of differences are "
                + ("simultaneous (Bonferroni over the pairs)." if r.ci == "simultaneous"
                   else "marginal (not adjusted for multiplicity)."))
    ctx.cite(_REFS["bestgen"])
    if r.correction is None:
        text.append(f"p-values were not adjusted for multiple comparisons; a difference is "
                    f"called significant when its p-value is at most {r.alpha:g}.")
    else:
        text.append(f"p-values were adjusted with {_CORRECTION_WORDS.get(r.correction, r.correction)}"
                    f" over the {m} comparison{'s' if m != 1 else ''} of each metric"
                    + (" and test" if len(r.tests) > 1 else "")
                    + f", and a difference is called significant when its adjusted p-value "
                    f"is at most {r.alpha:g} (* p <= .05, ** p <= .01).")
        if r.correction in _REFS:
            ctx.cite(_REFS[r.correction])
    if ctx.letters(r.metrics[0]) is not None:
        text.append("Systems sharing a letter are not significantly different (compact "
                    "letter display; Piepho 2004).")
        ctx.cite(_REFS["letters"])
    return " ".join(text)


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


def signature(result):
    """The reproducibility signature of ``result`` (see :meth:`ComparisonResult.signature`)."""
    r = result
    opts = r._inputs["options"]
    frame = r._frame
    specs = _specs(r)
    b_p, b_ci = [], []
    for name, ptest, itest in specs:
        counts = _resample_counts(frame, name)
        params = ptest.get_params(deep=False) if hasattr(ptest, "get_params") else {}
        b = params.get("n_resamples")
        b_p.append(str(b) if isinstance(b, Integral) else (str(counts[-1]) if counts else "-"))
        if itest is not None:
            ib = itest.get_params(deep=False).get("n_resamples") \
                if hasattr(itest, "get_params") else None
            b_ci.append(str(ib) if isinstance(ib, Integral) else "-")
    targets = r._inputs["targets"]
    y = _combined(f"{key}:{_digest(targets[key])}" for key in sorted(targets))
    preds = []
    for name in sorted(r.systems):
        value = r._predictions[name]
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
        ("pairs", r.pairs if r.pairs == "all"
         else "baseline:" + ",".join(sorted(set(frame["system_a"])))),
        ("alt", ",".join(alts)),
        ("ci", r.ci),
        ("n", str(_n_items(r))),
        ("k", str(len(r.systems))),
        ("y", y),
        ("pred", _combined(preds)),
    ]
    if "margin" in frame:
        fields.append(("margin", ",".join(f"{v:g}" for v in sorted(
            {float(v) for v in frame["margin"] if np.isfinite(v)}))))
    if any(isinstance(v, list) for v in r._predictions.values()) and r.cv_splits is None:
        fields.append(("runs", str(opts.get("runs_mode", "average"))))
    if r.cv_splits is not None:
        fields.append(("cv", f"{len(r.cv_splits[0])}x{len(r.cv_splits)}"))
    if r.n_groups is not None:
        fields.append(("groups", f"{r.n_groups}:{_partition_digest(opts['groups'])}"))
    if r.n_strata is not None:
        fields.append(("strata", f"{r.n_strata}:{_partition_digest(opts['strata'])}"))
    if opts.get("sample_weight") is not None:
        fields.append(("weights", _digest(opts["sample_weight"])[:8]))
    return "|".join(f"{key}:{_clean(value)}" for key, value in fields)


# ------------------------------------------------------------------ sections
def _num(v, signed=False):
    if v is None or not np.isfinite(v):
        return "nan"
    return f"{v:+.4f}" if signed else f"{v:.4f}"


def _share(p):
    """A share of resamples (P(best)): three decimals for every value.

    Not a p-value, so not four decimals: exact 0 and 1 read ``0.000`` and
    ``1.000`` like the shares beside them; a share strictly between that
    would round to them reads ``<0.001`` or ``>0.999`` (never rounded away).
    """
    if p is None or not np.isfinite(p):
        return "nan"
    if 0 < p < 0.0005:
        return "<0.001"
    if 0.9995 <= p < 1:
        return ">0.999"
    return f"{p:.3f}"


def _cell(v):
    """A cell of a generic table: floats as numbers, booleans as yes/no."""
    if isinstance(v, (bool, np.bool_)):
        return "yes" if v else "no"
    return _num(v) if isinstance(v, float) else str(v)


def _interval(lo, hi, signed=False):
    """``[lo, hi]``; a one-sided interval reads ``[lo, +inf)`` or ``(-inf, hi]``."""
    if np.isnan(lo) or np.isnan(hi) or (np.isinf(lo) and np.isinf(hi)):
        return "n/a"
    left = "(-inf" if np.isinf(lo) else f"[{_num(lo, signed)}"
    right = "+inf)" if np.isinf(hi) else f"{_num(hi, signed)}]"
    return f"{left}, {right}"


def _methods_section(result, ctx):
    return [("heading", 1, "Methods"), ("paragraph", methods_text(result, ctx))]


def _scores_section(result, ctx):
    table = ctx.scores()
    blocks = [("heading", 1, "Scores of each system")]
    for metric in result.metrics:
        part = table[table["metric"] == metric]
        letters = ctx.letters(metric)
        levels = sorted({float(v) for v in part["ci_level"] if np.isfinite(v)})
        level = ", ".join(format_level(v) for v in levels)
        resamples = sorted({int(v) for v in part["n_resamples"]})
        columns = (["run"] if "run" in part else []) + ["system", "score", f"{level} CI"]
        if letters is not None:
            columns.append("letters")
            order = list(letters.index)
            part = part.set_index("system").loc[order].reset_index()
        rows = []
        for row in part.itertuples(index=False):
            cells = ([str(row.run)] if "run" in part else []) + [
                str(row.system), _num(row.score), _interval(row.ci_low, row.ci_high)]
            if letters is not None:
                cells.append(letters.loc[row.system, "letters"])
            rows.append(cells)
        notes = [f"Bootstrap intervals of each score ({', '.join(map(_int, resamples))} "
                 "resamples)."]
        if letters is not None:
            notes.append(f"Best first; systems sharing a letter are not significantly "
                         f"different (adjusted p > {result.alpha:g}, test {result.tests[0]}).")
        align = "l" * (len(columns) - 2 - (letters is not None)) + "rr" + (
            "c" if letters is not None else "")
        blocks += [("heading", 2, metric),
                   ("table", Table(columns, rows, caption=f"{metric}: score of each system",
                                   align=align, notes=notes))]
        chart_rows = [{"label": (f"run {row.run}: " if "run" in part else "") + str(row.system),
                       "value": row.score, "low": row.ci_low, "high": row.ci_high,
                       "highlight": True,
                       "right": letters.loc[row.system, "letters"] if letters is not None
                       else ""} for row in part.itertuples(index=False)]
        blocks.append(("figure", interval_chart(chart_rows, xlabel=f"{metric} ({level} CI)",
                                                right_labels=letters is not None),
                       f"{metric}: each system's score and its {level} bootstrap interval"
                       + ("; letters as in the table." if letters is not None else ".")))
    return blocks


def _pairs_section(result, ctx):
    frame = ctx.frame
    corr = CORRECTION_NAMES.get(result.correction, result.correction)
    blocks = [("heading", 1, "Pairwise differences (B - A)")]
    optional = [c for c in ("margin", "prob_better") if c in frame]
    for metric in result.metrics:
        part = frame[frame["metric"] == metric]
        columns = (["run"] if "run" in part else []) + (["test"] if len(result.tests) > 1
                                                        else [])
        levels = sorted({float(v) for v in part["ci_level"] if np.isfinite(v)})
        level = ", ".join(format_level(v) for v in levels)
        columns += ["A", "B", "delta", f"{level} CI".lstrip(), "p (raw)", f"p ({corr})", ""]
        if "margin" in optional:
            columns.append("margin")
        if "prob_better" in optional:
            columns.append("P(B worse/equiv./better)")
        rows, chart = [], []
        for row in part.itertuples(index=False):
            cells = ([str(row.run)] if "run" in part else []) + (
                [str(row.test)] if len(result.tests) > 1 else [])
            cells += [str(row.system_a), str(row.system_b), _num(row.delta, True),
                      _interval(row.ci_low, row.ci_high, True), format_pvalue(row.pvalue),
                      format_pvalue(row.pvalue_adj), stars_of(row.pvalue_adj)]
            if "margin" in optional:
                cells.append(_num(row.margin) if np.isfinite(row.margin) else "")
            if "prob_better" in optional:
                cells.append("" if not np.isfinite(row.prob_worse) else
                             f"{row.prob_worse:.3f} / {row.prob_equivalent:.3f} / "
                             f"{row.prob_better:.3f}")
            rows.append(cells)
            if row.test == result.tests[0]:
                chart.append({"label": (f"run {row.run}: " if "run" in part else "")
                              + f"{row.system_b} - {row.system_a}",
                              "value": row.delta, "low": row.ci_low, "high": row.ci_high,
                              "highlight": bool(row.significant)})
        lead = len(columns) - 7 - len(optional)
        align = "l" * (lead + 2) + "rrrrl" + "r" * len(optional)
        notes = [f"delta = score(B) - score(A); CI: {level + ' ' if level else ''}interval of "
                 f"delta ({result.ci}); stars on adjusted p: * <= .05, ** <= .01."]
        marks = []
        if "margin" in part:
            first = part[part["test"] == result.tests[0]]
            for alt, margin in sorted({(a, float(m)) for a, m in
                                       zip(first["alternative"], first["margin"])
                                       if np.isfinite(m)}):
                marks.append((-margin, f"-{margin:g}"))
                if alt == "equivalence":
                    marks.append((margin, f"+{margin:g}"))
        blocks += [("heading", 2, metric),
                   ("table", Table(columns, rows, caption=f"{metric}: pairwise differences",
                                   align=align, notes=notes)),
                   ("figure", interval_chart(
                       chart, xlabel=f"{metric}: B - A ({level} CI)".replace("( CI)", "(CI)"),
                       zero_line=True,
                       legend=(f"significant (adjusted p <= {result.alpha:g})",
                               "not significant"), marks=sorted(set(marks))),
                    f"{metric}: differences and their intervals ({result.tests[0]}); "
                    "the dashed line is no difference"
                    + ("; the dotted lines are the margins." if marks else "."))]
    return blocks


def _frame_table(frame, caption):
    """A generic table of a DataFrame (index included when named)."""
    import pandas as pd

    if not (isinstance(frame.index, pd.RangeIndex) and frame.index.name is None):
        frame = frame.reset_index()
    columns = [str(c) for c in frame.columns]
    rows = []
    for values in frame.itertuples(index=False):
        rows.append([_cell(v) for v in values])
    align = "".join("r" if frame[c].dtype.kind in "fiu" else "l" for c in frame.columns)
    return Table(columns, rows, caption=caption, align=align)


def method_table_section(method, title):
    """A section showing the DataFrame that ``result.<method>()`` returns.

    For the features that add a table method to :class:`ComparisonResult`
    (e.g. ``ranks``): the section is available when the result has the
    method.
    """
    def build(result, ctx):
        table = getattr(result, method)()
        return [("heading", 1, title), ("table", _frame_table(table, title))]

    def available(result):
        return callable(getattr(result, method, None))

    return build, available


def _cv_section(result, ctx):
    f = result.cv_tests()
    rows = [[str(r.system_a), str(r.system_b), str(r.metric), str(r.cv_test),
             _num(r.delta, True), _num(r.statistic) if np.isfinite(r.statistic) else "",
             format_pvalue(r.pvalue) if np.isfinite(r.pvalue) else "", str(r.n_folds)]
            for r in f.itertuples(index=False)]
    return [("heading", 1, "Per-fold cross-validation tests"),
            ("table", Table(["A", "B", "metric", "cv test", "mean delta", "statistic", "p",
                             "folds"], rows, caption="per-fold tests (uncorrected p)",
                            align="llllrrrr"))]


def _has_cv_tests(result):
    try:
        result.cv_tests()
    except (ValueError, AttributeError):
        return False
    return True


def _references_section(result, ctx):
    methods_text(result, ctx)  # cites the tests, correction and letters (idempotent)
    if not ctx.references:
        return []
    return [("heading", 1, "References"), ("list", list(ctx.references))]


def _signature_section(result, ctx):
    return [("heading", 1, "Reproducibility signature"),
            ("paragraph", "Report it with the results: it fixes the test, resamples, seed, "
                          "metrics, correction, sigtest version and the hashes of the data."),
            ("code", signature(result))]


register_section("methods", _methods_section)
register_section("scores", _scores_section)
register_section("pairs", _pairs_section)
register_section("references", _references_section)
register_section("signature", _signature_section, after="references")
def _ranks_section(result, ctx):
    """The leaderboard: rank intervals, P(best) and the best set of ``result.ranks()``."""
    table = result.ranks().copy()
    table["p_best"] = [_share(p) for p in table["p_best"]]
    text = ("Ranks with simultaneous 95 % intervals (rank_low, rank_high), the share of "
            "bootstrap resamples in which each system is best (p_best), and the model "
            "confidence set of the best systems (in_best_set; Hansen, Lunde & Nason 2011).")
    return [("heading", 1, "Ranks"), ("paragraph", text),
            ("table", _frame_table(table, "Ranks"))]


def _has_ranks(result):
    return result.n_runs == 1  # ranks() needs one comparison, not runs tested separately


register_section("ranks", _ranks_section, available=_has_ranks, after="pairs")
register_section("cv_tests", _cv_section, available=_has_cv_tests, after="ranks")


def _mde_section(result, ctx):
    """Minimum detectable effects of the non-significant rows (opt-in: it simulates)."""
    table = result.minimum_detectable_effects(random_state=0)
    if table.empty:
        return [("heading", 1, "Minimum detectable effects"),
                ("paragraph", "Every pair is significant: no minimum detectable effect to show.")]
    shown = table[["system_a", "system_b", "metric", "delta", "pvalue", "mde", "mde_low",
                   "mde_high", "mde_power"]]
    return [("heading", 1, "Minimum detectable effects"),
            ("paragraph", "For each non-significant pair, the smallest improvement over "
                          "system A that the test detects with 80 % power on a test set like "
                          "this one (simulated from A's predictions; seed 0; see "
                          "sigtest.minimum_detectable_effect), with its 95 % Monte Carlo "
                          "interval (mde_low, mde_high)."),
            ("table", _frame_table(shown, "minimum detectable effects"))]


register_section("mde", _mde_section, after="pairs", default=False)


# -------------------------------------------------------------------- report
def _title(result):
    return f"Comparison of {len(result.systems)} systems"


def _selected(result, sections):
    registry = {s.name: s for s in _SECTIONS}
    if sections is None:
        return [s for s in _SECTIONS if s.default and s.available(result)]
    if isinstance(sections, str) or not all(isinstance(s, str) for s in sections):
        raise TypeError("The 'sections' parameter must be a list of section names; got "
                        f"{sections!r}.")
    chosen = []
    for name in sections:
        if name not in registry:
            raise ValueError(f"The 'sections' parameter names an unknown section {name!r}; "
                             f"sections are {section_names()}.")
        if not registry[name].available(result):
            raise ValueError(f"The 'sections' parameter asks for {name!r}, which this result "
                             "does not have.")
        if name not in chosen:
            chosen.append(name)
    # references are collected while the other sections build: keep registry order
    return [s for s in _SECTIONS if s.name in chosen]


def _blocks(result, sections):
    ctx = _Context(result)
    blocks = []
    chosen = _selected(result, sections)
    late = {"references", "signature"}
    for section in chosen:
        if section.name not in late:
            blocks += section.build(result, ctx)
    for section in chosen:
        if section.name in late:
            blocks += section.build(result, ctx)
    return blocks


def build_report(result, fmt="markdown", path=None, sections=None):
    """The report of ``result`` as text (see :meth:`ComparisonResult.report`)."""
    if fmt not in RENDERERS:
        raise ValueError(f"The 'format' parameter must be one of {list(REPORT_FORMATS)}; got "
                         f"{fmt!r} instead.")
    text = render(_blocks(result, sections), _title(result), fmt)
    if path is not None:
        with open(path, "w", encoding="utf-8") as fh:
            fh.write(text)
    return text


def report_html_fragment(result):
    """The HTML report as one ``<div>`` (for Jupyter's ``_repr_html_``)."""
    return html_fragment(_blocks(result, None), _title(result))
