"""The interactive leaderboard page: the HTML report of a comparison of many systems.

:func:`leaderboard_html` renders one metric's leaderboard (the frame of
``ComparisonResult.leaderboard()``) with the pairwise frame
(``ComparisonResult.to_frame()``) as a block of HTML:

* the leaderboard table, best first, with a row per system: rank, rank
  interval, score and its interval, tier, P(best), best set. Clicking a
  column header sorts the rows (again: the other way); a filter box keeps
  the systems whose name contains the text typed, a check box the best set
  only. Rows are coloured by tier (the colours cycle over 10 hues when there
  are more tiers);
* the interval chart of the scores (inline SVG, :mod:`sigtest._report.svg`),
  coloured by the same tiers, in a box that scrolls when it is long;
* the pairwise differences, folded (``<details>``), sortable and filterable
  the same way. At most ``max_pairs`` pairs are written (default 2,000):
  with more, those closest in the ranking (neighbours first, then two
  places apart, ...), where the tiers part; the page says how many it
  shows, and ``to_frame()`` keeps every pair. 1,000 systems have 499,500
  pairs: written in full (about 350 bytes each) they would make a page of
  about 170 MB.

The script is about 80 lines of plain JavaScript written into the page
(:data:`SCRIPT`); the page loads nothing (no CDN, font or image) and opens
from ``file://`` offline. Without the script (JavaScript off) the tables
read the same, best first. This module renders what it is given and
computes no statistic.

:func:`leaderboard_section` builds the report section ``"leaderboard_page"``
(registered in :mod:`sigtest._report.sections`; HTML only: Markdown and
LaTeX leave it out, as they leave out the charts);
:func:`sigtest._report.build.page_sections` makes it the HTML report of more
than :data:`sigtest._report.leaderboard.MANY_SYSTEMS` (20) systems, the
threshold of the text and notebook views, in place of the score, pair, rank
and leaderboard tables.
"""

import html
import math

import numpy as np

from sigtest._report.format import format_interval as _interval
from sigtest._report.format import format_level, format_pvalue
from sigtest._report.format import format_number as _num
from sigtest._report.format import format_share as _share
from sigtest._report.svg import interval_chart

__all__ = ["MAX_PAIRS", "SCRIPT", "leaderboard_html", "leaderboard_section"]

#: Pairs written into the page by default (the rest stay in ``to_frame()``).
MAX_PAIRS = 2000

BOARD_COLUMNS = ("rank", "rank_low", "rank_high", "score", "ci_low", "ci_high", "tier",
                 "p_best", "in_best_set")
PAIR_COLUMNS = ("system_a", "system_b", "delta", "ci_low", "ci_high", "pvalue_adj",
                "significant")

# tier colours: (row tint, strong) per hue, cycled; neighbouring tiers always differ
_HUES = (("#e3eefa", "#1f5f99"), ("#fdebd8", "#c05a00"), ("#e2f3e2", "#2b7a2b"),
         ("#f7e1e1", "#b22222"), ("#ece6f5", "#6a3d9a"), ("#f3ebe3", "#8c564b"),
         ("#fae6f2", "#b8478f"), ("#ececec", "#555555"), ("#f2f4dc", "#7f8a10"),
         ("#dff4f6", "#128a99"))

CSS = "\n".join([
    ".sgt-lb { margin: 1rem 0 2rem; }",
    ".sgt-controls { display: flex; flex-wrap: wrap; gap: .4rem 1.2rem; align-items: center;",
    "  margin: .6rem 0; font-size: .92rem; }",
    ".sgt-controls input[type=search] { font: inherit; padding: .15rem .4rem; width: 16rem; }",
    ".sgt-count { color: #555; }",
    ".sgt-scroll { display: inline-block; max-width: 100%; max-height: 36rem; overflow: auto;",
    "  border: 1px solid #ddd; }",
    ".sigtest-report .sgt-scroll table { margin: 0; }",
    ".sigtest-report .sgt-table th { position: sticky; top: 0; z-index: 1; padding: 0; }",
    ".sgt-table th button { font: inherit; font-weight: bold; background: none; border: 0;",
    "  padding: .25rem .7rem; width: 100%; text-align: inherit; cursor: pointer;",
    "  color: inherit; }",
    ".sgt-table th[aria-sort=ascending] button::after { content: ' \\25B2'; font-size: .7em; }",
    ".sgt-table th[aria-sort=descending] button::after { content: ' \\25BC'; font-size: .7em; }",
    ".sgt-tier { display: inline-block; min-width: 1.6em; padding: 0 .3em; border-radius: 3px;",
    "  color: #fff; font-weight: bold; text-align: center; }",
    ".sgt-legend { font-size: .85rem; color: #555; }",
    ".sgt-legend .sgt-tier { margin-right: .2rem; }",
    ".sgt-chart { display: inline-block; max-width: 100%; max-height: 36rem; overflow: auto;",
    "  border: 1px solid #ddd; margin: .8rem 0; }",
    ".sgt-pairs { margin: 1rem 0; }",
    ".sgt-pairs > summary { cursor: pointer; font-weight: bold; color: #2b5c8a; }",
    ".sgt-sig { color: #1f5f99; font-weight: bold; }",
] + [f".sgt-t{k} td {{ background: {tint}; }}\n"
     f".sgt-t{k} td:first-child {{ box-shadow: inset 5px 0 0 {strong}; }}\n"
     f".sgt-t{k} .sgt-tier, .sgt-tier.sgt-t{k} {{ background: {strong}; }}"
     for k, (tint, strong) in enumerate(_HUES)])

SCRIPT = r"""(function () {
  "use strict";
  var collator = new Intl.Collator(undefined, {numeric: true, sensitivity: "base"});
  function each(list, f) { Array.prototype.forEach.call(list, f); }
  function sortKey(cell, numeric) {
    var v = cell.hasAttribute("data-v") ? cell.getAttribute("data-v") : cell.textContent;
    if (!numeric) { return v; }
    var x = parseFloat(v);
    return isNaN(x) ? null : x;
  }
  function sortRows(table, col, dir, numeric) {
    var body = table.tBodies[0], fresh = body.cloneNode(false);
    table.replaceChild(fresh, body);  // reorder the rows off the page: one reflow
    var keyed = Array.prototype.map.call(body.rows, function (row) {
      return [sortKey(row.cells[col], numeric), +row.getAttribute("data-i"), row];
    });
    keyed.sort(function (a, b) {
      if (a[0] === null || b[0] === null) {  // missing values last, either way
        return a[0] === b[0] ? a[1] - b[1] : (a[0] === null ? 1 : -1);
      }
      var c = numeric ? a[0] - b[0] : collator.compare(a[0], b[0]);
      return c === 0 ? a[1] - b[1] : dir * c;
    });
    keyed.forEach(function (k) { body.appendChild(k[2]); });
    table.replaceChild(body, fresh);
  }
  function filterRows(box) {
    var table = box.table, text = box.text ? box.text.value.trim().toLowerCase() : "";
    var best = box.best ? box.best.checked : false, shown = 0;
    each(table.tBodies[0].rows, function (row) {
      var keep = (!text || row.getAttribute("data-q").toLowerCase().indexOf(text) >= 0) &&
                 (!best || row.getAttribute("data-best") === "1");
      row.hidden = !keep;
      if (keep) { shown += 1; }
    });
    if (box.count) {
      box.count.textContent = shown + " of " + table.tBodies[0].rows.length + " shown";
    }
  }
  each(document.querySelectorAll("table.sgt-table"), function (table) {
    if (table.getAttribute("data-ready")) { return; }
    table.setAttribute("data-ready", "1");
    var heads = table.tHead.rows[0].cells;
    each(heads, function (th, col) {
      var button = th.querySelector("button");
      if (!button) { return; }
      button.addEventListener("click", function () {
        var dir = th.getAttribute("aria-sort") === "ascending" ? -1 : 1;
        each(heads, function (h) { h.removeAttribute("aria-sort"); });
        th.setAttribute("aria-sort", dir === 1 ? "ascending" : "descending");
        sortRows(table, col, dir, th.getAttribute("data-type") === "num");
      });
    });
    var controls = document.querySelector('[data-for="' + table.id + '"]');
    if (!controls) { return; }
    var box = {table: table, text: controls.querySelector("input[type=search]"),
               best: controls.querySelector("input[type=checkbox]"),
               count: controls.querySelector(".sgt-count")};
    if (box.text) { box.text.addEventListener("input", function () { filterRows(box); }); }
    if (box.best) { box.best.addEventListener("change", function () { filterRows(box); }); }
    filterRows(box);
  });
})();"""


def _esc(text):
    return html.escape(str(text), quote=True)


def _v(x):
    """A sort key for ``data-v``: a finite float as text, else ``NaN`` (sorted last)."""
    try:
        x = float(x)
    except (TypeError, ValueError):
        return "NaN"
    return repr(x) if math.isfinite(x) else ("1e308" if x > 0 else "-1e308" if x < 0 else "NaN")


def _check_frame(frame, name, columns):
    import pandas as pd

    if not isinstance(frame, pd.DataFrame):
        raise TypeError(f"The '{name}' parameter must be a pandas DataFrame; got "
                        f"{type(frame).__name__} instead.")
    missing = [c for c in columns if c not in frame.columns]
    if missing:
        raise ValueError(f"The '{name}' parameter lacks the columns {missing}; it has "
                         f"{list(frame.columns)}.")


def _tier_classes(tiers):
    """Tier string -> hue index, in order of first appearance (best first)."""
    order = {}
    for t in tiers:
        if t not in order:
            order[t] = len(order)
    return order


def _th(label, key_type, align, sort=None):
    aria = f' aria-sort="{sort}"' if sort else ""
    return (f'<th class="{align}" data-type="{key_type}"{aria}>'
            f'<button type="button">{_esc(label)}</button></th>')


def _floats(column):
    """A column as float64 (nullable integers' ``<NA>`` and non-numbers as NaN)."""
    import pandas as pd

    return pd.to_numeric(column, errors="coerce").to_numpy(dtype=np.float64, na_value=np.nan)


def _board_rows(board, tiers):
    rank, low, high = (_floats(board[c]) for c in ("rank", "rank_low", "rank_high"))
    score, ci_low, ci_high, p_best = (_floats(board[c])
                                      for c in ("score", "ci_low", "ci_high", "p_best"))
    best = np.asarray(board["in_best_set"].fillna(False), dtype=bool)
    rank_key = low * 1e6 + high  # by the low end, then the high end (NaN: last)
    rows = []
    for i, system in enumerate(board.index):
        tier = str(board["tier"].iat[i])
        cells = [
            f'<td class="r" data-v="{_v(rank[i])}">{_esc(_rank(rank[i]))}</td>',
            f'<td class="l">{_esc(system)}</td>',
            f'<td class="r" data-v="{_v(score[i])}">{_esc(_num(score[i]))}</td>',
            f'<td class="r" data-v="{_v(ci_low[i])}">'
            f'{_esc(_interval(ci_low[i], ci_high[i]))}</td>',
            f'<td class="r" data-v="{_v(rank_key[i])}">'
            f'{_esc(_rank_interval(low[i], high[i]))}</td>',
            f'<td class="c" data-v="{tiers[tier]}"><span class="sgt-tier">{_esc(tier)}</span>'
            "</td>",
            f'<td class="r" data-v="{_v(p_best[i])}">{_esc(_share(p_best[i]))}</td>',
            f'<td class="c" data-v="{int(best[i])}">{"yes" if best[i] else "no"}</td>',
        ]
        rows.append(f'<tr class="sgt-t{tiers[tier] % len(_HUES)}" data-i="{i}" '
                    f'data-q="{_esc(system)}" data-best="{int(best[i])}">'
                    + "".join(cells) + "</tr>")
    return rows


def _rank(x):
    return str(int(x)) if np.isfinite(x) else "n/a"


def _rank_interval(lo, hi):
    if not (np.isfinite(lo) and np.isfinite(hi)):
        return "n/a"
    return f"[{int(lo)}, {int(hi)}]"  # as in print(result)


def _shown_pairs(board, pairs, max_pairs):
    """The pairs written into the page: all, or the ``max_pairs`` closest in the ranking."""
    position = {s: i for i, s in enumerate(board.index)}
    a = pairs["system_a"].map(position).to_numpy(dtype=float)
    b = pairs["system_b"].map(position).to_numpy(dtype=float)
    keep = np.isfinite(a) & np.isfinite(b)
    pairs, a, b = pairs[keep], a[keep], b[keep]
    if len(pairs) <= max_pairs:
        order = np.lexsort((np.maximum(a, b), np.minimum(a, b)))
        return pairs.iloc[order], None
    gap = np.abs(a - b)
    order = np.lexsort((np.maximum(a, b), np.minimum(a, b), gap))[:max_pairs]
    return pairs.iloc[order], int(gap[order].max())


def _pairs_html(uid, board, pairs, max_pairs, n_total, alpha):
    shown, gap = _shown_pairs(board, pairs, max_pairs)
    n_sig = int(np.asarray(pairs["significant"], dtype=bool).sum())
    what = (f"all {len(shown):,} pairs" if gap is None else
            f"the {len(shown):,} pairs closest in the ranking of {n_total:,} (systems at most "
            f"{gap} places apart; every pair is in result.to_frame())")
    head = "".join([_th("A", "txt", "l"), _th("B", "txt", "l"), _th("delta = B - A", "num", "r"),
                    _th("CI of delta", "num", "r"), _th("p (adjusted)", "num", "r"),
                    _th("significant", "num", "c")])
    rows = []
    for i, r in enumerate(shown.itertuples(index=False)):
        sig = bool(r.significant)
        a, b = str(r.system_a), str(r.system_b)
        rows.append(
            f'<tr data-i="{i}" data-q="{_esc(a)}&#10;{_esc(b)}">'
            f'<td class="l">{_esc(a)}</td><td class="l">{_esc(b)}</td>'
            f'<td class="r" data-v="{_v(r.delta)}">{_esc(_num(r.delta, True))}</td>'
            f'<td class="r" data-v="{_v(r.ci_low)}">{_esc(_interval(r.ci_low, r.ci_high, True))}'
            f'</td><td class="r" data-v="{_v(r.pvalue_adj)}">{_esc(format_pvalue(r.pvalue_adj))}'
            f'</td><td class="c" data-v="{int(sig)}">'
            + ('<span class="sgt-sig">yes</span>' if sig else "no") + "</td></tr>")
    table_id = f"{uid}-pairs"
    return "\n".join([
        '<details class="sgt-pairs">',
        f"<summary>Pairwise differences: {n_sig:,} of {n_total:,} pairs significant; "
        f"{_esc(what)} below</summary>",
        f'<div class="sgt-controls" data-for="{table_id}">',
        '<label>Filter pairs by system <input type="search" placeholder="name contains"></label>',
        '<span class="sgt-count" aria-live="polite"></span></div>',
        '<div class="sgt-scroll">',
        f'<table class="sgt-table" id="{table_id}"><thead><tr>{head}</tr></thead><tbody>',
        *rows, "</tbody></table></div>",
        '<p class="note">Click a column header to sort. delta = score(B) - score(A); '
        "significant: adjusted p at most "
        + (f"alpha = {float(alpha):g}" if alpha is not None else "the comparison's alpha")
        + ".</p>",
        "</details>"])


_TIER_WORDS = "systems sharing a tier (a letter of it) are not significantly different"


def _levels(attrs):
    """(level of the rank intervals, level of the score intervals) as printed."""
    rank = attrs.get("confidence_level")
    score = attrs.get("score_ci_level", rank)
    if score is None or not np.isfinite(score):
        score = rank
    return tuple(format_level(v) if v is not None and np.isfinite(v) else "95 %"
                 for v in (rank, score))


def _chart(board, tiers, level, metric):
    score, low, high = (_floats(board[c]) for c in ("score", "ci_low", "ci_high"))
    rows = []
    for i, system in enumerate(board.index):
        tier = str(board["tier"].iat[i])
        rows.append({"label": str(system), "value": score[i], "low": low[i], "high": high[i],
                     "highlight": True, "right": tier,
                     "color": _HUES[tiers[tier] % len(_HUES)][1]})
    svg = interval_chart(rows, xlabel=f"{metric} ({level} CI)", right_labels=True,
                         row_height=24 if len(rows) <= 60 else 16)
    return (f'<figure class="sgt-chart">\n{svg}\n</figure>'
            f'<p class="note">{_esc(metric)}: each system\'s score and its {_esc(level)} '
            "interval, best first, coloured and labelled by tier.</p>")


def leaderboard_html(board, pairs=None, *, max_pairs=MAX_PAIRS, uid="sgt-lb-0"):
    """One metric's interactive leaderboard as HTML (table, chart, folded pairs).

    Parameters
    ----------
    board : pandas.DataFrame
        The frame of ``ComparisonResult.leaderboard(metric)``: best first,
        index ``system``, columns ``rank, rank_low, rank_high, score,
        ci_low, ci_high, tier, p_best, in_best_set``; ``attrs`` may hold
        ``metric``, ``confidence_level``, ``n_systems`` and
        ``n_significant_pairs``.
    pairs : pandas.DataFrame, optional
        The pairwise rows of that metric (``ComparisonResult.to_frame()``
        filtered to the metric and one test): ``system_a, system_b, delta,
        ci_low, ci_high, pvalue_adj, significant``. None: no pairs section.
    max_pairs : int, default=2000
        Pairs written into the page at most; with more pairs, those closest
        in the ranking are written and the page says so.
    uid : str, default="sgt-lb-0"
        Prefix of the element ids (one per leaderboard of a page).

    Returns
    -------
    markup : str
        HTML whose script is :data:`SCRIPT` and CSS :data:`CSS` (both to be
        inlined once per page: :func:`sigtest._report.doc.render_html` does
        it for an ``"html"`` block).

    Raises
    ------
    TypeError
        ``board`` or ``pairs`` is not a DataFrame.
    ValueError
        A frame lacks a column, or ``max_pairs`` is not a positive integer.

    Examples
    --------
    >>> import pandas as pd
    >>> from sigtest._report.leaderboard_page import leaderboard_html
    >>> board = pd.DataFrame(
    ...     {"rank": [1, 2], "rank_low": [1, 1], "rank_high": [2, 2], "score": [0.8, 0.7],
    ...      "ci_low": [0.75, 0.64], "ci_high": [0.85, 0.76], "tier": ["a", "a"],
    ...      "p_best": [0.9, 0.1], "in_best_set": [True, True]},
    ...     index=pd.Index(["new", "base"], name="system"))
    >>> markup = leaderboard_html(board)
    >>> markup.count("<tr class=")
    2
    """
    _check_frame(board, "board", BOARD_COLUMNS)
    if pairs is not None:
        _check_frame(pairs, "pairs", PAIR_COLUMNS)
    if isinstance(max_pairs, bool) or not isinstance(max_pairs, (int, np.integer)) \
            or max_pairs < 1:
        raise ValueError(f"The 'max_pairs' parameter must be a positive integer; got "
                         f"{max_pairs!r} instead.")
    attrs = board.attrs
    metric = str(attrs.get("metric", "score"))
    rank_level, level = _levels(attrs)
    tiers = _tier_classes(str(t) for t in board["tier"])
    k = len(board)
    n_pairs = k * (k - 1) // 2 if pairs is None else len(pairs)
    n_best = int(np.asarray(board["in_best_set"], dtype=bool).sum())
    facts = [f"{k:,} systems ranked on {metric}, best first", f"{len(tiers):,} tiers",
             f"{n_best:,} in the best set"]
    if "n_significant_pairs" in attrs:
        facts.insert(1, f"{int(attrs['n_significant_pairs']):,} of {n_pairs:,} pairs "
                        "significantly different")
    table_id = f"{uid}-board"
    head = "".join([_th("rank", "num", "r", "ascending"), _th("system", "txt", "l"),
                    _th("score", "num", "r"), _th(f"{level} CI", "num", "r"),
                    _th("rank interval", "num", "r"), _th("tier", "num", "c"),
                    _th("P(best)", "num", "r"), _th("best set", "num", "c")])
    legend = "".join(f'<span class="sgt-tier sgt-t{i % len(_HUES)}">{_esc(t)}</span>'
                     for t, i in list(tiers.items())[:30])
    more = f" ... ({len(tiers) - 30} more; colours repeat every {len(_HUES)} tiers)" \
        if len(tiers) > 30 else ""
    parts = [
        f'<section class="sgt-lb" id="{_esc(uid)}" data-metric="{_esc(metric)}">',
        f"<p>{_esc('; '.join(facts))}.</p>",
        f'<div class="sgt-controls" data-for="{table_id}">',
        '<label>Filter systems <input type="search" placeholder="name contains"></label>',
        '<label><input type="checkbox"> best set only</label>',
        '<span class="sgt-count" aria-live="polite"></span></div>',
        '<div class="sgt-scroll">',
        f'<table class="sgt-table" id="{table_id}">',
        f"<caption>{_esc(metric)}: leaderboard (click a column header to sort)</caption>",
        f"<thead><tr>{head}</tr></thead><tbody>",
        *_board_rows(board, tiers),
        "</tbody></table></div>",
        f'<p class="sgt-legend">Tiers: {legend}{_esc(more)}</p>' if any(tiers) else "",
        f'<p class="note">rank: observed, 1 = best; {_esc(level)} CI: interval of the score; '
        f"rank interval: simultaneous {_esc(rank_level)} interval of the rank; tier: "
        f"{_esc(attrs.get('tier_note') or _TIER_WORDS)}; P(best): share of resamples in "
        "which the system is best; best set: the set of systems not significantly worse "
        "than the best.</p>",
        _chart(board, tiers, level, metric),
    ]
    if pairs is not None:
        parts.append(_pairs_html(uid, board, pairs, max_pairs, n_pairs, attrs.get("alpha")))
    parts.append("</section>")
    return "\n".join(parts)


# ------------------------------------------------------------------ section
def leaderboard_section(result, ctx):
    """The report section ``"leaderboard_page"``: each metric's interactive leaderboard.

    One ``"html"`` block (its headings inside), so Markdown and LaTeX leave
    the whole section out (their leaderboard is the ``leaderboard`` section).
    """
    frame = ctx.frame
    parts = ["<h2>Leaderboard</h2>"]
    for j, metric in enumerate(result.metrics):
        board = result.leaderboard(metric)
        pairs = frame[(frame["metric"] == metric) & (frame["test"] == result.tests[0])]
        if len(result.metrics) > 1:
            parts.append(f"<h3>{_esc(metric)}</h3>")
        parts.append(leaderboard_html(board, pairs, uid=f"sgt-lb-{j}"))
    return [("html", "\n".join(parts), CSS, SCRIPT)]
