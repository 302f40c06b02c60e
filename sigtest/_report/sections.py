"""The sections of the report of a :class:`~sigtest.ComparisonResult`: registry and builders.

:meth:`ComparisonResult.report` builds a document from an ordered registry
of *sections* (:func:`register_section`), which
:mod:`sigtest._report.build` runs and renders as Markdown, HTML or LaTeX
(:mod:`sigtest._report.doc`). Built-in sections, in order:

``leaderboard`` the systems best first with rank and score intervals, tiers,
               P(best) and the best set (``result.leaderboard()``, one table
               per metric); by default only from 100 systems on, where it
               opens the report and ``scores``, ``pairs`` and ``ranks`` are
               left to ``sections=``;
``leaderboard_page`` HTML only: the interactive leaderboard (sortable,
               filterable, tiers coloured, chart, pairs folded); the
               default of ``report("html")`` beyond 20 systems
               (:mod:`sigtest._report.leaderboard_page`);
``methods``    the generated methods paragraph;
``scores``     per metric, each system's score with its interval (and the
               letters when every pair was tested), with a chart (HTML);
``pairs``      per metric, the pairwise differences with intervals, raw and
               adjusted p-values and stars, with a forest chart (HTML);
``ranks``      optional: the table of ``result.ranks()`` when the result has
               such a method;
``cv_tests``   optional: the per-fold CV tests of ``cross_val_compare``;
``references`` what to cite for the tests, the correction and the letters;
``signature``  the reproducibility signature
               (:func:`sigtest._report.signature.signature`).

A section is ``build(result, ctx) -> list of blocks`` plus ``available(result)``;
a later feature adds its section with one :func:`register_section` call
(e.g. ``after="pairs"``), and users pick sections with ``sections=``.
"""

from dataclasses import dataclass
from numbers import Integral

import numpy as np

from sigtest._report.format import (
    format_interval as _interval,
    format_number as _num,
    format_share as _share,
    CORRECTION_NAMES,
    format_level,
    format_margin,
    format_pvalue,
    frame_margins,
)
from sigtest._report.doc import Table
from sigtest._report.leaderboard import (
    leaderboard_available,
    leaderboard_default,
    leaderboard_blocks,
    small_report,
)
from sigtest._report.leaderboard_page import leaderboard_section
from sigtest._report.signature import (
    _n_items,
    _n_pairs,
    _resample_counts,
    _seed_text,
    _shown_seed,
    _specs,
    signature,
)
from sigtest._report.svg import interval_chart
from sigtest._report.tiers import letters_or_tiers
from sigtest._results import stars_of
from sigtest.tests_._registry import test_name

__all__ = ["method_table_section", "methods_text", "register_section", "section_names"]


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
    default : bool or callable, default=True
        Part of the report when ``sections`` is not given (a callable:
        ``default(result) -> bool``, e.g. only from 100 systems on).
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


def _selected(result, sections):
    """The sections to build, in registry order (``sections=None``: the default ones)."""
    registry = {s.name: s for s in _SECTIONS}
    if sections is None:
        return [s for s in _SECTIONS if s.available(result)
                and (s.default(result) if callable(s.default) else s.default)]
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


# ------------------------------------------------------------------- context
class _Context:
    """What the sections of one report share: computed once, cited once."""

    def __init__(self, result):
        self.result = result
        self.frame = result.to_frame()
        self._scores = None
        self._letters = {}
        self.references = []  # in order of first citation

    def scores(self):
        if self._scores is None:
            # the comparison's shared draws where it kept them (no resampling of its own)
            self._scores = self.result.scores(intervals="shared")
        return self._scores

    def cite(self, *refs):
        for ref in refs:
            if ref not in self.references:
                self.references.append(ref)

    def letters(self, metric):
        """The letters table of ``metric`` (first test), or None when undefined.

        When a valid display needs more than ``MAX_LETTERS`` letters, the
        ``letters`` column holds the step-down tiers instead and
        ``attrs["tier_note"]`` says so (:func:`sigtest._report.tiers.group_labels`).
        """
        r = self.result
        if r.pairs != "all" or r.n_runs > 1 or len(r.systems) < 2:
            return None
        if metric not in self._letters:
            self._letters[metric] = letters_or_tiers(r.letters(metric), self.frame, r.systems,
                                                     metric, r.tests[0])
        return self._letters[metric]


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
    "sidak": "Z. Sidak (1967). Rectangular confidence regions for the means of multivariate "
             "normal distributions. Journal of the American Statistical Association "
             "62(318), 626-633.",
    "hochberg": "Y. Hochberg (1988). A sharper Bonferroni procedure for multiple tests of "
                "significance. Biometrika 75(4), 800-802.",
    "hommel": "G. Hommel (1988). A stagewise rejective multiple test procedure based on a "
              "modified Bonferroni test. Biometrika 75(2), 383-386.",
    "fdr_by": "Y. Benjamini, D. Yekutieli (2001). The control of the false discovery rate in "
              "multiple testing under dependency. The Annals of Statistics 29(4), 1165-1188.",
    "max-t": "J. P. Romano, M. Wolf (2005). Stepwise multiple testing as formalized data "
             "snooping. Econometrica 73(4), 1237-1282.",
    "max-t-single-step": "P. H. Westfall, S. S. Young (1993). Resampling-Based Multiple "
                         "Testing. Wiley.",
    "multiplier": "V. Chernozhukov, D. Chetverikov, K. Kato (2013). Gaussian approximations "
                  "and multiplier bootstrap for maxima of sums of high-dimensional random "
                  "vectors. The Annals of Statistics 41(6), 2786-2819.",
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
                     "fdr_bh": "the Benjamini-Hochberg procedure (false discovery rate)",
                     "sidak": "the Sidak correction", "holm-sidak": "the Holm-Sidak method",
                     "hochberg": "Hochberg's step-up method", "hommel": "Hommel's method",
                     "fdr_by": "the Benjamini-Yekutieli procedure (false discovery rate)",
                     "max-t": "the step-down max-T method on shared bootstrap resamples "
                              "(Romano-Wolf)",
                     "max-t-single-step": "the single-step max-T method on shared bootstrap "
                                          "resamples (Westfall-Young)"}
_CORRECTION_WORDS.update(bh=_CORRECTION_WORDS["fdr_bh"], by=_CORRECTION_WORDS["fdr_by"])
#: the corrections whose reference is another's (aliases; Holm-Sidak: Holm's and Sidak's)
_CORRECTION_REFS = {"bh": ("fdr_bh",), "by": ("fdr_by",), "holm-sidak": ("holm", "sidak")}


def _registry_name(test):
    return test_name(test)


def _int(n):
    return f"{int(n):,}"


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


def _design_phrases(r, opts, ctx):
    """The sampling design of the methods paragraph: clusters, strata, overall, weights."""
    design = []
    if r.n_groups is not None:
        design.append(f"clustered in {_int(r.n_groups)} groups (whole groups are resampled)")
        ctx.cite(_REFS["clusters"])
    if r.n_strata is not None:
        design.append(f"stratified in {_int(r.n_strata)} strata (resampled within strata)")
    overall = opts.overall
    if overall is not None:
        who = "stratum" if overall == "macro" else "item"
        design.append(f"each score the {overall} average over the strata (every {who} "
                      "weighing the same)")
    if opts.sample_weight is not None and overall != "macro":
        design.append("with item weights")
    return design


def methods_text(result, ctx=None):
    """The generated methods paragraph of ``result`` (plain text), citing into ``ctx``."""
    ctx = _Context(result) if ctx is None else ctx
    return " ".join(_data_sentences(result, ctx) + [_tests_sentence(result, ctx)]
                    + _adjustment_sentences(result, ctx))


def _pair_count(m):
    return f"{m} pair{'s' if m != 1 else ''}"


def _data_sentences(r, ctx):
    """What was compared: systems, items and their design, folds and runs."""
    opts = r.options
    design = _design_phrases(r, opts, ctx)
    text = [f"We compared {len(r.systems)} systems ({', '.join(r.systems)}) on "
            f"N = {_int(_n_items(r))} items"
            + (f", {', '.join(design)}," if design else "")
            + f" with {'the metric' if len(r.metrics) == 1 else 'the metrics'} "
            f"{', '.join(r.metrics)}."]
    if r.cv_splits is not None:
        folds = r.cv_splits
        text.append(f"Predictions are the out-of-fold predictions of {len(folds[0])}-fold "
                    f"cross-validation ({len(folds)} repeat{'s' if len(folds) > 1 else ''}).")
    runs = {name: (len(v) if isinstance(v, list) else 1) for name, v in r.predictions.items()}
    if max(runs.values()) > 1 and r.cv_splits is None:
        mode = opts.runs
        text.append(f"Systems have up to {max(runs.values())} runs each, used with "
                    f"runs={mode!r}" + (f" ({r.n_runs} runs tested separately)."
                                        if r.n_runs > 1 else "."))
    return text


def _test_phrases(r, ctx):
    """One phrase per test (sidedness, resamples, interval), then the margins."""
    frame = ctx.frame
    alts = sorted(set(frame["alternative"].dropna()))
    alt = " or ".join(alts) if alts else "two-sided"
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
    if "margin" in frame or "margin_low" in frame:
        tests.append("margin " + ", ".join(format_margin(lo, hi)
                                           for lo, hi in frame_margins(frame)))
    return tests


def _tests_sentence(r, ctx):
    """Which pairs were compared, with which tests, under which seed."""
    m = _n_pairs(r)
    if r.pairs == "all":
        who = f"Every pair of systems ({_pair_count(m)})"
    elif r.pairs == "adjacent":
        who = (f"Each pair of neighbours in the ranking by observed {r.metrics[0]} "
               f"({_pair_count(m)})")
    else:
        base = sorted(set(ctx.frame["system_a"]))
        who = (f"Each system against the baseline{'s' if len(base) > 1 else ''} "
               f"{', '.join(base)} ({_pair_count(m)})")
    seed = _seed_text(_shown_seed(r))
    return (f"{who} was compared with " + "; ".join(_test_phrases(r, ctx))
            + (f", with random seed {seed}." if seed != "none" else
               ", with no fixed random seed (the resamples cannot be repeated)."))


def _adjustment_sentences(r, ctx):
    """Orientation, intervals, multiplicity, multiplier bootstrap and letters."""
    m = _n_pairs(r)
    text = ["Differences are B - A; intervals of differences are "
            + ("simultaneous (Bonferroni over the pairs)." if r.ci_coverage == "simultaneous"
               else "marginal (not adjusted for multiplicity).")]
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
        for key in _CORRECTION_REFS.get(r.correction, (r.correction,)):
            if key in _REFS:
                ctx.cite(_REFS[key])
    if getattr(r, "bootstrap", "resample") == "multiplier":
        text.append("The shared bootstrap differences were Gaussian multiplier draws on the "
                    "systems' jackknife influence values (their jackknife covariance) instead "
                    "of resamples of the items.")
        ctx.cite(_REFS["multiplier"])
    shown = ctx.letters(r.metrics[0])
    if shown is not None and shown.attrs.get("tier_note"):
        # too many letters: the tables show numbered step-down tiers instead
        note = shown.attrs["tier_note"]
        text.append(note[:1].upper() + note[1:].rstrip(".") + ".")
    elif shown is not None:
        text.append("Systems sharing a letter are not significantly different (compact "
                    "letter display; Piepho 2004).")
        ctx.cite(_REFS["letters"])
    return text


# ------------------------------------------------------------------ sections
def _cell(v):
    """A cell of a generic table: floats as numbers, booleans as yes/no."""
    if isinstance(v, (bool, np.bool_)):
        return "yes" if v else "no"
    return _num(v) if isinstance(v, float) else str(v)


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
        methods = ", ".join(sorted({str(v) for v in part["ci_method"]}))
        notes = [f"Bootstrap intervals of each score ({', '.join(map(_int, resamples))} "
                 f"resamples; {methods})."]
        if letters is not None and letters.attrs.get("tier_note"):
            notes.append(f"Best first; {letters.attrs['tier_note']} (adjusted p <= "
                         f"{result.alpha:g}, test {result.tests[0]}).")
        elif letters is not None:
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


def _pair_cells(row, with_run, with_test, optional):
    """The cells of one pair's row of the pairwise table."""
    cells = ([str(row.run)] if with_run else []) + ([str(row.test)] if with_test else [])
    cells += [str(row.system_a), str(row.system_b), _num(row.delta, True),
              _interval(row.ci_low, row.ci_high, True), format_pvalue(row.pvalue),
              format_pvalue(row.pvalue_adj), stars_of(row.pvalue_adj)]
    if "margin" in optional:
        m, lo = getattr(row, "margin", np.nan), getattr(row, "margin_low", np.nan)
        cells.append(_num(m) if np.isfinite(m) else format_margin(
            lo, row.margin_high) if np.isfinite(lo) else "")
    if "prob_better" in optional:
        cells.append("" if not np.isfinite(row.prob_worse) else
                     f"{row.prob_worse:.3f} / {row.prob_equivalent:.3f} / "
                     f"{row.prob_better:.3f}")
    return cells


def _margin_marks(result, metric, part):
    """``(position, label)`` of each margin on the raw B - A axis of the first test."""
    marks = []
    if "margin" in part or "margin_low" in part:
        first = part[part["test"] == result.tests[0]]
        gib = getattr(result, "_greater_is_better", {}).get(metric, True)
        for alt in sorted(set(first["alternative"])):
            # oriented margins as marks on the raw B - A axis (a loss flips them)
            for low, high in frame_margins(first[first["alternative"] == alt]):
                ends = [low] if alt == "non-inferiority" else [low, high]
                marks += [(v if gib else -v, f"{v if gib else -v:+g}") for v in ends]
    return marks


def _pairs_section(result, ctx):
    frame = ctx.frame
    corr = CORRECTION_NAMES.get(result.correction, result.correction)
    blocks = [("heading", 1, "Pairwise differences (B - A)")]
    optional = [c for c in ("margin", "prob_better")
                if c in frame or (c == "margin" and "margin_low" in frame)]
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
            rows.append(_pair_cells(row, "run" in part, len(result.tests) > 1, optional))
            if row.test == result.tests[0]:
                chart.append({"label": (f"run {row.run}: " if "run" in part else "")
                              + f"{row.system_b} - {row.system_a}",
                              "value": row.delta, "low": row.ci_low, "high": row.ci_high,
                              "highlight": bool(row.significant)})
        lead = len(columns) - 7 - len(optional)
        align = "l" * (lead + 2) + "rrrrl" + "r" * len(optional)
        notes = [f"delta = score(B) - score(A); CI: {level + ' ' if level else ''}interval of "
                 f"delta ({result.ci_coverage}); stars on adjusted p: * <= .05, ** <= .01."]
        marks = _margin_marks(result, metric, part)
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


register_section("leaderboard", leaderboard_blocks, available=leaderboard_available,
                 default=leaderboard_default)
register_section("leaderboard_page", leaderboard_section, available=leaderboard_available,
                 default=False)
register_section("methods", _methods_section)
register_section("scores", _scores_section, default=small_report)
register_section("pairs", _pairs_section, default=small_report)
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


register_section("ranks", _ranks_section, available=_has_ranks, after="pairs",
                 default=small_report)
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
