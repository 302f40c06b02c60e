"""ComparisonResult.report / signature / _repr_html_ (issue 14, section 1).

The browser check of the HTML page is in tests/report/test_report_browser.py.
"""

import hashlib
import html
import re
import shutil
import subprocess
import xml.etree.ElementTree as ET
from html.parser import HTMLParser

import numpy as np
import pandas as pd
import pytest

from sigtest import SmallSampleWarning
from markdown_it import MarkdownIt

from sigtest import BCaInterval, ComparisonResult, PairedPermutation, compare
from sigtest._report.format import format_pvalue
from sigtest._report.sections import register_section, section_names
from sigtest._report.doc import escape_latex, escape_markdown
from sigtest._report.svg import interval_chart, nice_ticks

ODD = "<b>&_%"  # a system name every format must print literally
NAMES = ["base", ODD, "new_model"]


def _data(n=150, seed=0, names=NAMES, probs=(0.65, 0.75, 0.85)):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 3, n)
    preds = {name: np.where(rng.random(n) < p, y, (y + 1) % 3) for name, p in zip(names, probs)}
    return y, preds


def _test(b=999):
    return (PairedPermutation(n_resamples=b), BCaInterval(n_resamples=b))


@pytest.fixture(scope="module")
def result():
    y, preds = _data()
    return compare(y, preds, metrics=["accuracy", "f1_macro"], test=_test(), random_state=0)


@pytest.fixture(scope="module")
def reports(result):
    return {fmt: result.report(fmt) for fmt in ("markdown", "html", "latex")}


# ------------------------------------------------------------------ markdown
def _md_tables(text):
    """Every pipe table of ``text``: a list of rows, each a list of raw cells."""
    tables, current = [], None
    for line in text.splitlines():
        if line.startswith("| "):
            cells = [c.strip() for c in re.split(r"(?<!\\)\|", line)[1:-1]]
            if current is None:
                current = []
                tables.append(current)
            current.append(cells)
        else:
            current = None
    return [[t[0]] + t[2:] for t in tables]  # drop the rule line


def _unescape_md(cell):
    return re.sub(r"\\(.)", r"\1", cell)


def test_markdown_tables_hold_the_results(result, reports):
    tables = _md_tables(reports["markdown"])
    frame = result.to_frame()
    scores = result.scores()
    # per metric: a scores table then (after both) a pairs table; then the
    # ranks table of ComparisonResult.ranks() (all metrics in one table)
    assert len(tables) == 2 * len(result.metrics) + 1
    head, *rows = tables[2 * len(result.metrics)]
    ranks = result.ranks()
    assert head == list(ranks.columns)
    assert [(_unescape_md(r[0]), r[1]) for r in rows] == list(zip(ranks["system"],
                                                                   ranks["metric"]))
    assert [int(r[2]) for r in rows] == list(ranks["rank"])
    for k, metric in enumerate(result.metrics):
        head, *rows = tables[k]
        assert head == ["system", "score", "95 % CI", "letters"]
        letters = result.letters(metric)
        assert [_unescape_md(r[0]) for r in rows] == list(letters.index)  # best first
        assert [r[3] for r in rows] == list(letters["letters"])
        part = scores[scores["metric"] == metric].set_index("system")
        for r in rows:
            s = part.loc[_unescape_md(r[0])]
            assert r[1] == f"{s.score:.4f}"
            assert r[2] == f"[{s.ci_low:.4f}, {s.ci_high:.4f}]"
        head, *rows = tables[len(result.metrics) + k]
        assert head[:6] == ["A", "B", "delta", "95 % CI", "p (raw)", "p (Holm)"]
        part = frame[frame["metric"] == metric]
        assert len(rows) == len(part) == 3
        for r, f in zip(rows, part.itertuples()):
            assert (_unescape_md(r[0]), _unescape_md(r[1])) == (f.system_a, f.system_b)
            assert r[2] == f"{f.delta:+.4f}"
            assert r[3] == f"[{f.ci_low:+.4f}, {f.ci_high:+.4f}]"
            assert r[4] == format_pvalue(f.pvalue) and r[5] == format_pvalue(f.pvalue_adj)
            assert r[6] == ("\\*\\*" if f.pvalue_adj <= .01 else "\\*" if f.pvalue_adj <= .05
                            else "")


def test_ranks_table_prints_yes_no_and_shares_with_three_decimals(result, reports):
    # in_best_set as yes/no (not Python's True/False); p_best a share with
    # three decimals for every value, 0 and 1 included (not "0" beside "1.000")
    head, *rows = _md_tables(reports["markdown"])[2 * len(result.metrics)]
    ranks = result.ranks()
    assert {0.0, 1.0} & set(ranks["p_best"])  # the case the format must get right
    best = head.index("in_best_set")
    assert [r[best] for r in rows] == ["yes" if v else "no" for v in ranks["in_best_set"]]
    shares = [r[head.index("p_best")] for r in rows]
    for cell, p in zip(shares, ranks["p_best"]):
        if cell == "<0.001":
            assert 0 < p < 0.001
        elif cell == ">0.999":
            assert 0.999 < p < 1
        else:  # a share with three decimals, exact 0 and 1 included
            assert re.fullmatch(r"[01]\.\d{3}", cell) and abs(float(cell) - p) <= 5e-4, cell
            assert (float(cell) in (0, 1)) == (p in (0, 1)), cell  # never rounded to 0 or 1
    for fmt, text in reports.items():
        assert not re.search(r"\bTrue\b|\bFalse\b", text), fmt


def test_share_is_never_rounded_to_zero_or_one():
    from sigtest._report.sections import _share

    assert [_share(p) for p in (0.0, 0.0004, 0.0005, 0.5, 0.9994, 0.9996, 1.0, np.nan)] == [
        "0.000", "<0.001", "0.001", "0.500", "0.999", ">0.999", "1.000", "nan"]


def test_markdown_renders_names_literally(reports):
    # rendered by a CommonMark parser, every name reads as typed (no tag, no
    # entity, no emphasis), and the tables are real tables
    md = MarkdownIt("commonmark").enable("table")
    rendered = md.render(reports["markdown"])
    assert "<table>" in rendered
    cells = re.findall(r"<td[^>]*>(.*?)</td>", rendered)
    texts = {html.unescape(c) for c in cells}
    for name in NAMES:
        assert name in texts
    assert "<b>" not in rendered  # escaped, not a tag


@pytest.mark.parametrize("text", [ODD, "a_b", "_x_", "*y*", "[l](http://x)", "&amp;", "a|b",
                                  "`c`", "<http://x>", "#h", "~~s~~", "x\\y", "<0.0001"])
def test_escape_markdown_roundtrips_through_a_parser(text):
    md = MarkdownIt("commonmark")
    out = md.render(escape_markdown(text)).strip()
    assert html.unescape(re.sub(r"^<p>|</p>$", "", out)) == text


# --------------------------------------------------------------------- latex
def test_latex_is_a_booktabs_document_with_escaped_names(result, reports):
    tex = reports["latex"]
    assert tex.startswith("\\documentclass{article}") and "\\usepackage{booktabs}" in tex
    assert tex.rstrip().endswith("\\end{document}")
    assert ODD not in tex and escape_latex(ODD) in tex
    assert escape_latex(ODD) == r"\textless{}b\textgreater{}\&\_\%"
    assert tex.count("\\begin{tabular}") == tex.count("\\end{tabular}") == 5  # + ranks
    assert tex.count("\\toprule") == tex.count("\\midrule") == tex.count("\\bottomrule") == 5
    # every table is placed [H] (package float): it stays under its heading
    # in the compiled PDF instead of floating away from it
    preamble = tex.split("\\begin{document}")[0]
    assert "\\usepackage{float}" in preamble
    assert tex.count("\\begin{table}[H]") == tex.count("\\begin{table}") == 5
    # every row of a tabular has as many cells as its column spec
    for spec, body in re.findall(r"\\begin\{tabular\}\{(\w+)\}(.*?)\\end\{tabular\}", tex, re.S):
        for line in body.splitlines():
            if line.endswith(r"\\"):
                assert len(re.findall(r"(?<!\\)&", line)) == len(spec) - 1, line
    # braces balance (escaped ones aside)
    plain = re.sub(r"\\[{}]", "", tex)
    assert plain.count("{") == plain.count("}")


@pytest.mark.skipif(shutil.which("pdflatex") is None,
                    reason="pdflatex is not installed (the LaTeX structure is checked above)")
def test_latex_compiles(reports, tmp_path):
    (tmp_path / "r.tex").write_text(reports["latex"])
    run = subprocess.run(["pdflatex", "-interaction=nonstopmode", "-halt-on-error", "r.tex"],
                         cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stdout[-2000:]


# ---------------------------------------------------------------------- html
class _Collect(HTMLParser):
    def __init__(self):
        super().__init__()
        self.tags, self.text, self.attrs = [], [], []

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        self.attrs += attrs

    def handle_data(self, data):
        self.text.append(data)


def test_html_is_self_contained_and_escaped(reports):
    page = reports["html"]
    parser = _Collect()
    parser.feed(page)
    assert "script" not in parser.tags and "link" not in parser.tags
    assert "iframe" not in parser.tags and "img" not in parser.tags
    for key, value in parser.attrs:  # no external resource, no event handler
        assert not key.startswith("on")
        if key in ("src", "href"):
            pytest.fail(f"external reference {key}={value}")
    assert "url(" not in page and "@import" not in page
    assert parser.tags.count("svg") == 4 and parser.tags.count("table") == 5  # + ranks
    text = "".join(parser.text)
    for name in NAMES:
        assert name in text  # the parser unescapes: the name reads literally
    assert ODD not in page  # ... because the page escapes it
    # each inline SVG is well-formed XML with the names as text
    for svg in re.findall(r"<svg.*?</svg>", page, re.S):
        root = ET.fromstring(svg)
        assert root.tag.endswith("svg")


def test_repr_html_is_the_fragment(result):
    frag = result._repr_html_()
    assert frag.startswith('<div class="sigtest-report">') and frag.endswith("</div>")
    assert "<html" not in frag and "<script" not in frag and html.escape(ODD) in frag


# ------------------------------------------------------------------- methods
def test_methods_paragraph_and_references(result, reports):
    md = reports["markdown"]
    para = md.split("## Methods\n\n")[1].split("\n\n")[0]
    assert "We compared 3 systems" in para and "N = 150 items" in para
    assert "two-sided paired permutation test (B = 999 resamples" in para
    assert "95 % BCa bootstrap interval (B = 999 resamples)" in para
    assert "with random seed 0." in para and "Holm's method over the 3 comparisons" in para
    assert "letter" in para
    refs = md.split("## References\n\n")[1].split("\n\n")[0]
    for author in ("Noreen", "Efron", "Holm", "Piepho", "Bestgen"):
        assert author in refs
    assert "McNemar" not in refs and "Benjamini" not in refs


@pytest.mark.parametrize("correction", ["hommel", "by", "holm-sidak"])
def test_methods_name_and_cite_every_correction(correction):
    words, author = {"hommel": ("Hommel's method", "Hommel (1988)"),
                     "by": ("Benjamini-Yekutieli", "Yekutieli (2001)"),
                     "holm-sidak": ("Holm-Sidak method", "Sidak (1967)")}[correction]
    y, preds = _data(n=80)
    r = compare(y, preds, metrics="accuracy", test="mcnemar", correction=correction)
    md = r.report("markdown", sections=["methods", "references"])
    assert words in md and author in md


def test_methods_follow_the_options():
    y, preds = _data(n=80)
    r = compare(y, preds, metrics="accuracy", test="mcnemar", correction="bonferroni",
                pairs="baseline", baseline="base", random_state=None)
    md = r.report("markdown", sections=["methods", "references"])
    assert "Each system against the baseline base (2 pairs)" in md
    assert "McNemar test" in md and "Bonferroni" in md and "Dunn" in md
    assert "no fixed random seed" in md
    assert "letter" not in md  # no letters with baseline pairs
    assert "Noreen" not in md and "Scores" not in md
    r2 = compare(y, preds, metrics="accuracy", test=_test(199), correction=None,
                 random_state=3)
    md2 = r2.report(sections=["methods"])
    assert "not adjusted for multiple comparisons" in md2 and "with random seed 3." in md2


def test_sections_registry_takes_a_new_section(result, monkeypatch):
    import sigtest._report.sections as _report

    # the leaderboard comes first, a default section only from 100 systems on; then the
    # interactive page (HTML only), the default of report("html") beyond 20 systems
    assert section_names()[:5] == ["leaderboard", "leaderboard_page", "methods", "scores",
                                   "pairs"]
    assert "## Leaderboard" not in result.report()
    # the leaderboard of ComparisonResult.ranks() is part of the default report
    md = result.report()
    assert md.index("## Pairwise") < md.index("## Ranks") < md.index("## References")
    assert "## Ranks" not in result.report(sections=["pairs"])
    # a later feature adding a table method gets its section from one call
    monkeypatch.setattr(_report, "_SECTIONS", list(_report._SECTIONS))
    table = pd.DataFrame({"mean rank": [1.5, 2.0, 2.5]},
                         index=pd.Index(NAMES, name="system"))
    build, available = _report.method_table_section("tiers", "Tiers")
    register_section("tiers", build, available=available, after="ranks")
    assert "## Tiers" not in result.report()  # no such method yet: left out
    with pytest.raises(ValueError, match="'tiers'"):
        result.report(sections=["tiers"])  # ... and an error when asked for
    monkeypatch.setattr(ComparisonResult, "tiers", lambda self: table, raising=False)
    md = result.report()
    assert md.index("## Ranks") < md.index("## Tiers") < md.index("## References")
    tiers = next(t for t in _md_tables(md) if t[0] == ["system", "mean rank"])
    assert [[_unescape_md(c) for c in row] for row in tiers[1:]] == [
        ["base", "1.5000"], [ODD, "2.0000"], ["new_model", "2.5000"]]
    with pytest.raises(ValueError, match="exists"):
        register_section("ranks", lambda r, c: [])


def test_bad_arguments(result, tmp_path):
    with pytest.raises(ValueError, match="'format'"):
        result.report("docx")
    with pytest.raises(ValueError, match="unknown section 'plots'"):
        result.report(sections=["plots"])
    with pytest.raises(TypeError, match="'sections'"):
        result.report(sections="methods")
    path = tmp_path / "r.md"
    text = result.report("markdown", path=path)
    assert path.read_text(encoding="utf-8") == text


# ----------------------------------------------------------------- signature
def _sha8(values):
    """Naive twin of the prediction digest of one system (int labels)."""
    a = np.asarray(values)
    h = hashlib.sha256(f"num{a.shape}".encode() + a.astype("<i8").tobytes())
    return h.hexdigest()


def test_signature_fields(result, reports):
    sig = result.signature()
    fields = dict(f.split(":", 1) for f in sig.split("|"))
    import sigtest

    assert fields["sigtest"] == sigtest.__version__
    assert fields["test"] == "permutation+bca" and fields["B"] == "999"
    assert fields["B_ci"] == "999" and fields["seed"] == "0"
    assert fields["metric"] == "accuracy,f1_macro" and fields["corr"] == "holm"
    assert fields["pairs"] == "all" and fields["n"] == "150" and fields["k"] == "3"
    assert re.fullmatch(r"[0-9a-f]{8}", fields["y"]) and re.fullmatch(r"[0-9a-f]{8}",
                                                                      fields["pred"])
    # the prediction digest, recomputed naively
    y, preds = _data()
    parts = [f"{name}={_sha8(preds[name])}" for name in sorted(preds)]
    h = hashlib.sha256(b"".join(p.encode() + b"\x1e" for p in parts)).hexdigest()[:8]
    assert fields["pred"] == h
    for text in reports.values():
        assert sig in text.replace("\\textbar{}\\allowbreak ", "|").replace("\\_", "_") \
            or html.escape(sig) in text


@pytest.mark.filterwarnings("ignore::sigtest.exceptions.SmallSampleWarning")
def test_signature_is_stable_and_sensitive():
    y, preds = _data(n=60)
    kw = dict(metrics="accuracy", test=_test(99), random_state=0)
    sig = compare(y, preds, **kw).signature()
    # order of the systems and integer width do not matter
    rev = {k: preds[k].astype(np.int32) for k in reversed(list(preds))}
    assert compare(y.astype(np.int32), rev, **kw).signature() == sig
    changed = dict(preds)
    changed["base"] = preds["base"].copy()
    changed["base"][0] = (changed["base"][0] + 1) % 3
    assert compare(y, changed, **kw).signature().split("|pred:")[0] == sig.split("|pred:")[0]
    assert compare(y, changed, **kw).signature() != sig
    assert "seed:1" in compare(y, preds, **{**kw, "random_state": 1}).signature()
    groups = np.arange(60) // 6
    sig_g = compare(y, preds, groups=groups, **kw).signature()
    assert "|groups:10:" in sig_g


@pytest.mark.filterwarnings("ignore::sigtest.exceptions.SmallSampleWarning")
def test_several_runs_and_cv_tests():
    from sigtest import cross_val_compare
    from sklearn.datasets import make_classification
    from sklearn.dummy import DummyClassifier
    from sklearn.linear_model import LogisticRegression

    y, preds = _data(n=60)
    runs = {k: [v, np.roll(v, 1)] for k, v in preds.items()}
    r = compare(y, runs, metrics="accuracy", test=_test(99), runs="each", random_state=0)
    md = r.report()
    assert "| run |" in md and "letters" not in md  # letters need one run
    assert "runs='each' (2 runs tested separately)" in md and "runs:each" in r.signature()
    X, yc = make_classification(n_samples=60, random_state=0)
    cv = cross_val_compare({"dummy": DummyClassifier(), "lr": LogisticRegression()}, X, yc,
                           cv=3, metrics="accuracy", test=_test(99), cv_test="corrected_t",
                           random_state=0)
    md = cv.report()
    assert "## Per-fold cross-validation tests" in md and "corrected_t" in md
    assert "3-fold cross-validation" in md and "|cv:3x1" in cv.signature()


# ---------------------------------------------------------------------- svg
def test_nice_ticks_cover_the_range():
    for lo, hi in [(-0.013, 0.048), (0.61, 0.87), (0, 1), (-3, -2.5), (5, 5)]:
        ticks = nice_ticks(lo, hi)
        assert ticks[0] <= lo and ticks[-1] >= hi and 2 <= len(ticks) <= 8
        steps = np.diff(ticks)
        assert np.allclose(steps, steps[0])


def test_interval_chart_fits_its_labels():
    rows = [{"label": "a_very_long_system_name_" * 3, "value": 0.1, "low": -0.2,
             "high": 0.3, "highlight": True},
            {"label": ODD, "value": np.nan, "low": np.nan, "high": np.nan,
             "highlight": False}]
    svg = interval_chart(rows, xlabel="x", zero_line=True, legend=("yes", "no"))
    root = ET.fromstring(svg)
    ns = "{http://www.w3.org/2000/svg}"
    texts = [t.text for t in root.iter(ns + "text")]
    assert rows[0]["label"] in texts and ODD in texts
    # right-aligned labels end left of the plot and start inside the canvas
    label = next(t for t in root.iter(ns + "text") if t.text == rows[0]["label"])
    assert float(label.get("x")) - 7.2 * len(rows[0]["label"]) >= 0
    assert len(list(root.iter(ns + "circle"))) == 1  # the NaN row draws nothing


_W = np.random.default_rng(9).random(100)


@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize("options, phrases, field", [
    (dict(test=["mcnemar", "paired_t", _test(99)]),
     ["McNemar test with its 95 % interval", "paired t-test", "| test "], "test:mcnemar,"),
    (dict(test="bayesian_bootstrap"), ["a Bayesian bootstrap", "P(B worse/equiv./better)"],
     "test:bayesian_bootstrap"),
    (dict(test=_test(99), ci="simultaneous"), ["98.33 % BCa", "simultaneous (Bonferroni"],
     "ci:simultaneous"),
    (dict(test="bootstrap", sample_weight=_W), ["with item weights", "Berg-Kirkpatrick"],
     "|weights:"),
    (dict(test="bootstrap", strata=np.arange(100) % 4), ["stratified in 4 strata"],
     "|strata:4:"),
])
def test_report_describes_each_design(options, phrases, field):
    rng = np.random.default_rng(2)
    y = rng.integers(0, 2, 100)
    preds = {k: np.where(rng.random(100) < p, y, 1 - y)
             for k, p in (("a", .7), ("b", .8), ("c", .75))}
    r = compare(y, preds, metrics="accuracy", random_state=0, **options)
    md = r.report("markdown")
    for phrase in phrases:
        assert phrase in md, phrase
    assert field in r.signature()
    for fmt in ("html", "latex"):
        assert r.signature().split("|")[0] in r.report(fmt)


def test_one_sided_intervals_and_margins():
    from sigtest._report.sections import _interval

    assert _interval(0.1, np.inf, True) == "[+0.1000, +inf)"
    assert _interval(-np.inf, 0.2) == "(-inf, 0.2000]"
    assert _interval(np.nan, 0.2) == "n/a"
    rows = [{"label": "b - a", "value": 0.15, "low": 0.07, "high": np.inf, "highlight": True}]
    root = ET.fromstring(interval_chart(rows, xlabel="d", zero_line=True,
                                        marks=[(-0.02, "-0.02")]))
    ns = "{http://www.w3.org/2000/svg}"
    assert "-0.02" in [t.text for t in root.iter(ns + "text")]
    assert len(list(root.iter(ns + "path"))) == 1  # the arrow head of the +inf bound
    y, preds = _data(n=100)
    r = compare(y, preds, metrics="accuracy", pairs="baseline", baseline="base",
                test=BCaInterval(n_resamples=199, margin=0.02, alternative="equivalence"),
                random_state=0)
    md = r.report("markdown")
    assert "equivalence" in md and "margin 0.02" in md and "|margin:0.02" in r.signature()
    page = r.report("html")
    assert ">-0.02</text>" in page and ">+0.02</text>" in page  # both margins drawn


@pytest.mark.filterwarnings("ignore")
def test_degenerate_scores_give_a_report():
    # an undefined precision and degenerate intervals: NaN cells read "n/a", no crash
    y = np.r_[np.zeros(30, int), np.ones(30, int)]
    a = np.zeros(60, int)
    b = np.r_[np.zeros(50, int), np.ones(10, int)]
    r = compare(y, {"a": a, "b": b, "c": b.copy()}, metrics="precision", pos_label=1,
                test=_test(99), random_state=0)
    for fmt in ("markdown", "html", "latex"):
        assert "n/a" in r.report(fmt)
    tables = _md_tables(r.report("markdown"))
    # a vs b and a vs c: every resample gives delta = 1, a point interval at the
    # 95 % level (issue 20; it was nan); b vs c, identical: "n/a"
    assert tables[1][0][:4] == ["A", "B", "delta", "95 % CI"]


def test_mde_section_is_opt_in_and_lists_the_non_significant_rows(monkeypatch):
    # B differs from A on 6 of 60 items (4 better, 2 worse): far from
    # significant, so the opt-in section shows its one pair with a positive MDE.
    from sigtest import compare

    # the section calls minimum_detectable_effects with its defaults (1000
    # simulations, ~50 s); the search itself is tested in test_power.py, so
    # here it runs on 60 simulations and the section must show that table
    original = ComparisonResult.minimum_detectable_effects

    def fewer_simulations(self, *args, **kwargs):
        kwargs.setdefault("n_simulations", 60)
        return original(self, *args, **kwargs)

    monkeypatch.setattr(ComparisonResult, "minimum_detectable_effects", fewer_simulations)
    rng = np.random.default_rng(3)
    y = rng.integers(0, 2, 60)
    a = np.where(rng.random(60) < 0.75, y, 1 - y)
    b = a.copy()
    wrong, right = np.flatnonzero(a != y), np.flatnonzero(a == y)
    b[wrong[:4]] = y[wrong[:4]]
    b[right[:2]] = 1 - y[right[:2]]
    with pytest.warns(SmallSampleWarning):  # 6 discordant items: BCa says so
        r = compare(y, {"A": a, "B": b}, metrics=["accuracy"], random_state=0)
    assert "Minimum detectable" not in r.report()
    md = r.report(sections=["mde"])
    assert "## Minimum detectable effects" in md
    row = [line for line in md.splitlines() if line.startswith("| A ")]
    assert len(row) == 1
    cells = [c.strip() for c in row[0].strip("|").split("|")]
    assert 0 < float(cells[5]) < 1  # the mde column
    want = r.minimum_detectable_effects(random_state=0).iloc[0]  # the seed the section uses
    assert [float(c) for c in cells[5:8]] == pytest.approx(
        [want.mde, want.mde_low, want.mde_high], rel=1e-3, abs=1e-4)
