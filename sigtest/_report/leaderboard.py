"""The leaderboard as text, as report blocks and as the report's opening section.

:meth:`ComparisonResult.leaderboard` gives a DataFrame (columns in
:data:`sigtest._workflows.compare.leaderboard.LEADERBOARD_COLUMNS`); this
module shows it:

* :func:`leaderboard_text`: ``print(result)`` and ``repr(result)`` of a
  comparison of more than :data:`MANY_SYSTEMS` systems (the pairs stay in
  :meth:`ComparisonResult.to_frame`): at most :data:`MAX_TEXT_ROWS` rows a
  metric, whatever the number of systems;
* the ``leaderboard`` report section (:func:`leaderboard_blocks`), the
  report's first section by default from :data:`REPORT_LEADERBOARD_SYSTEMS`
  systems on, when the score and pairwise tables become sections to ask
  for (``sections=``).

The result is only read through its public attributes and methods
(``leaderboard``, ``metrics``, ``systems``, ...), so this module sits in the
report layer below the workflows that build the result.
"""

import numpy as np

from sigtest._report.doc import Table

__all__ = ["MANY_SYSTEMS", "MAX_TEXT_ROWS", "REPORT_LEADERBOARD_SYSTEMS", "leaderboard_available",
           "leaderboard_blocks", "leaderboard_default", "leaderboard_text", "shows_leaderboard",
           "small_report"]

#: ``print(result)``, ``repr(result)`` and the notebook view of a comparison of
#: more than this many systems show the leaderboard instead of every pair.
MANY_SYSTEMS = 20

#: Rows of the leaderboard text per metric: the best ones, then one line
#: counting the rest (``result.leaderboard()`` has them all).
MAX_TEXT_ROWS = 40

#: From this many systems the report opens with the leaderboard and leaves
#: the per-system and pairwise tables to ``sections=``.
REPORT_LEADERBOARD_SYSTEMS = 100


def shows_leaderboard(result):
    """Whether the text and notebook views of ``result`` are its leaderboard."""
    return len(result.systems) > MANY_SYSTEMS and result.n_runs == 1


def _num(v):
    return "nan" if v is None or not np.isfinite(v) else f"{v:.4f}"


def _share(p):
    """P(best) with three decimals; never rounded to 0 or 1 when it is not."""
    if p is None or not np.isfinite(p):
        return "nan"
    if 0 < p < 0.0005:
        return "<0.001"
    if 0.9995 <= p < 1:
        return ">0.999"
    return f"{p:.3f}"


def _missing(v):
    """A missing rank (``pd.NA`` in an Int64 column, or None / NaN)."""
    import pandas as pd

    return v is None or bool(pd.isna(v))


def _rank_interval(lo, hi):
    return "n/a" if _missing(lo) or _missing(hi) else f"[{int(lo)}, {int(hi)}]"


def _rows(table, limit=None):
    """Plain-text cells of the leaderboard rows (the first ``limit`` ones)."""
    shown = table if limit is None else table.iloc[:limit]
    rows = []
    for system, row in zip(shown.index, shown.itertuples(index=False)):
        rank = "n/a" if _missing(row.rank) else str(int(row.rank))
        ci = ("n/a" if not (np.isfinite(row.ci_low) and np.isfinite(row.ci_high))
              else f"[{_num(row.ci_low)}, {_num(row.ci_high)}]")
        rows.append([rank, str(system), _rank_interval(row.rank_low, row.rank_high),
                     _num(row.score), ci, str(row.tier), _share(row.p_best),
                     "yes" if row.in_best_set else ""])
    return rows


def _columns(attrs):
    level = f"{attrs['confidence_level']:.0%}".replace("%", " %")
    score_level = attrs.get("score_ci_level", np.nan)
    score_ci = (f"{score_level:.0%}".replace("%", " %") + " CI" if np.isfinite(score_level)
                else "CI")
    tier = {"letters": "letters", "tiers": "tier"}.get(attrs.get("tier_kind"), "tier")
    return ["rank", "system", f"rank {level} CI", "score", score_ci, tier, "P(best)",
            "best set"]


def _summary_line(table):
    a = table.attrs
    k = a["n_systems"]
    pairs = k * (k - 1) // 2
    return (f"{a['metric']}: {k} systems, {a['n_significant_pairs']:,} of {pairs:,} pairs "
            f"significantly different (test {a['test']}, correction {a['correction']!r}, "
            f"alpha {a['alpha']:g})")


def _tier_words(attrs):
    kind = attrs.get("tier_kind")
    if kind == "letters":
        return "systems sharing a letter are not significantly different"
    if kind == "tiers":
        return attrs["tier_note"]
    return attrs.get("tier_note", "")


def leaderboard_text(result):
    """The text of ``print(result)`` for many systems: one leaderboard a metric.

    At most :data:`MAX_TEXT_ROWS` rows per metric, so the text of 1,000
    systems is as long as that of 50.
    """
    import pandas as pd

    k = len(result.systems)
    parts = [f"ComparisonResult: {k} systems, {len(result.metrics)} metric(s), "
             f"pairs={result.pairs!r}, correction={result.correction!r}, "
             f"alpha={result.alpha}; leaderboard per metric (every pair: "
             "result.to_frame())"]
    for metric in result.metrics:
        table = result.leaderboard(metric)
        shown = pd.DataFrame(_rows(table, MAX_TEXT_ROWS), columns=_columns(table.attrs))
        text = shown.to_string(index=False)
        if len(table) > MAX_TEXT_ROWS:
            text += (f"\n... {len(table) - MAX_TEXT_ROWS} more systems "
                     f"(result.leaderboard({metric!r}) has every one)")
        notes = [_tier_words(table.attrs)] if _tier_words(table.attrs) else []
        parts.append("\n".join([_summary_line(table), text] + [f"note: {n}" for n in notes]))
    return "\n\n".join(parts)


def leaderboard_blocks(result, ctx=None):
    """The ``leaderboard`` report section: a paragraph, then one table a metric."""
    intro = ("Systems best first. rank: observed rank (1 = best) with its simultaneous "
             "confidence interval over all systems (Mogstad et al. 2024); score with its "
             "bootstrap interval (its method below each table); P(best): share of the shared bootstrap resamples in which "
             "the system is best; best set: the model confidence set of the best system "
             "(Hansen, Lunde & Nason 2011). Pairwise tables: report(sections=[\"pairs\"]).")
    blocks = [("heading", 1, "Leaderboard"), ("paragraph", intro)]
    for metric in result.metrics:
        table = result.leaderboard(metric)
        notes = [_summary_line(table) + "."]
        if table.attrs.get("score_ci_method"):
            notes.append(f"Score intervals: {table.attrs['score_ci_method']}.")
        if _tier_words(table.attrs):
            notes.append(_tier_words(table.attrs)[0].upper() + _tier_words(table.attrs)[1:]
                         + ".")
        blocks += [("heading", 2, metric),
                   ("table", Table(_columns(table.attrs), _rows(table),
                                   caption=f"{metric}: leaderboard", align="rlrrrcrc",
                                   notes=notes))]
    return blocks


def leaderboard_available(result):
    """Whether ``result`` has a leaderboard (one run: ranks need one comparison)."""
    return result.n_runs == 1 and callable(getattr(result, "leaderboard", None))


def leaderboard_default(result):
    """Whether the report opens with the leaderboard: from 100 systems on."""
    return len(result.systems) >= REPORT_LEADERBOARD_SYSTEMS and leaderboard_available(result)


def small_report(result):
    """Whether the report keeps its per-system and pairwise tables by default."""
    return not leaderboard_default(result)
