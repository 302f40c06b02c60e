"""Interval charts of the HTML report, written as plain SVG (no matplotlib needed).

Two charts, both "one row per item, a point and its interval on a common
axis": the per-system scores (with the letters beside them) and the pairwise
differences (a forest plot with the zero line, coloured by significance
after correction). The SVG is text: labels stay selectable and searchable,
the page needs no plotting extra, and the left margin is sized to the
longest label so no name is clipped.
"""

import html
import math

__all__ = ["interval_chart", "nice_ticks"]

_ROW = 24          # px per row
_TOP = 12
_AXIS = 34         # room for the tick labels under the plot
_PLOT_W = 360
_CHAR = 7.2        # px per character of a 12 px sans-serif label (generous)
_COLORS = {True: "#1f5f99", False: "#9a9a9a"}


def nice_ticks(low, high, n=5):
    """About ``n`` round tick values covering ``[low, high]``.

    Examples
    --------
    >>> from sigtest._report.svg import nice_ticks
    >>> nice_ticks(-0.013, 0.048)
    [-0.02, 0.0, 0.02, 0.04, 0.06]
    """
    if not (math.isfinite(low) and math.isfinite(high)):
        return [0.0]
    if high <= low:
        span = abs(low) or 1.0
        low, high = low - 0.05 * span, high + 0.05 * span
    raw = (high - low) / max(n - 1, 1)
    mag = 10.0 ** math.floor(math.log10(raw))
    step = next(m * mag for m in (1, 2, 2.5, 5, 10) if m * mag >= raw)
    first = math.floor(low / step)
    last = math.ceil(high / step)
    return [round(k * step, 12) + 0.0 for k in range(first, last + 1)]


def _fmt(v):
    return f"{v:.4g}"


def interval_chart(rows, *, xlabel, zero_line=False, legend=None, right_labels=False,
                   marks=(), row_height=_ROW):
    """An SVG chart of points with intervals, one row per item, top to bottom.

    Parameters
    ----------
    rows : list of dict
        ``label`` (text), ``value``, ``low``, ``high`` (floats; NaN bounds
        draw no interval; an infinite bound, of a one-sided interval, runs
        to the edge of the plot with an arrow head), ``highlight`` (bool: the coloured style) and
        optional ``right`` (text printed right of the plot, e.g. letters) and
        ``color`` (a CSS colour that replaces the style's, e.g. a tier's).
    xlabel : str
        Axis title.
    zero_line : bool, default=False
        Draw a dashed vertical line at 0.
    legend : tuple of str, optional
        ``(highlighted, plain)``: legend texts of the two styles.
    right_labels : bool, default=False
        Reserve room for the ``right`` texts.
    marks : sequence of (float, str)
        Dotted vertical lines with a label on top (e.g. the margins).
    row_height : int, default=24
        Pixels per row (the interactive leaderboard packs many systems at 16).

    Returns
    -------
    svg : str
        An ``<svg>`` element with ``role="img"`` and a ``<title>``.
    """
    values = [v for r in rows for v in (r["value"], r["low"], r["high"]) if math.isfinite(v)]
    values += [v for v, _ in marks]
    if zero_line:
        values.append(0.0)
    ticks = nice_ticks(min(values, default=0.0), max(values, default=1.0))
    lo, hi = ticks[0], ticks[-1]
    if hi <= lo:
        hi = lo + 1.0
    left = 12 + _CHAR * max((len(r["label"]) for r in rows), default=4)
    right_w = 12 + _CHAR * max((len(r.get("right", "")) for r in rows), default=0) \
        if right_labels else 12
    n = len(rows)
    legend_h = (22 if legend else 0) + (16 if marks else 0)
    height = _TOP + legend_h + row_height * n + _AXIS + 14
    width = left + _PLOT_W + right_w + 10
    top = _TOP + legend_h

    def x(v):
        return left + (v - lo) / (hi - lo) * _PLOT_W

    esc = html.escape
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" role="img" width="{width:.0f}" '
           f'height="{height:.0f}" viewBox="0 0 {width:.0f} {height:.0f}" '
           'font-family="Helvetica, Arial, sans-serif" font-size="12">',
           f"<title>{esc(xlabel)}</title>",
           f'<rect x="0" y="0" width="{width:.0f}" height="{height:.0f}" fill="#ffffff"/>']
    if legend:
        lx = left
        for flag, text in zip((True, False), legend):
            out.append(f'<rect x="{lx:.1f}" y="{_TOP + 2}" width="12" height="12" '
                       f'fill="{_COLORS[flag]}"/>')
            out.append(f'<text x="{lx + 17:.1f}" y="{_TOP + 12}">{esc(text)}</text>')
            lx += 30 + _CHAR * len(text)
    bottom = top + row_height * n
    # grid and ticks
    for t in ticks:
        out.append(f'<line x1="{x(t):.1f}" y1="{top}" x2="{x(t):.1f}" y2="{bottom}" '
                   'stroke="#e3e3e3"/>')
        out.append(f'<text x="{x(t):.1f}" y="{bottom + 15}" text-anchor="middle" '
                   f'fill="#333">{esc(_fmt(t))}</text>')
    out.append(f'<line x1="{left}" y1="{bottom}" x2="{left + _PLOT_W}" y2="{bottom}" '
               'stroke="#333"/>')
    out.append(f'<text x="{left + _PLOT_W / 2:.1f}" y="{bottom + 31}" text-anchor="middle" '
               f'fill="#333">{esc(xlabel)}</text>')
    for v, text in marks:
        out.append(f'<line x1="{x(v):.1f}" y1="{top - 4}" x2="{x(v):.1f}" y2="{bottom}" '
                   'stroke="#555" stroke-dasharray="1 3" stroke-width="1.5"/>')
        out.append(f'<text x="{x(v):.1f}" y="{top - 7}" text-anchor="middle" '
                   f'fill="#555">{esc(text)}</text>')
    if zero_line and lo <= 0 <= hi:
        out.append(f'<line x1="{x(0):.1f}" y1="{top - 4}" x2="{x(0):.1f}" y2="{bottom}" '
                   'stroke="#b22222" stroke-dasharray="4 3"/>')
    for k, r in enumerate(rows):
        out += _row_svg(r, top + row_height * k + row_height / 2, x, (lo, hi), left,
                        right_labels)
    out.append("</svg>")
    return "\n".join(out)


def _row_svg(r, cy, x, span, left, right_labels):
    """The SVG elements of one row at height ``cy``: label, interval, point, right text."""
    esc = html.escape
    lo, hi = span
    color = r.get("color", _COLORS[bool(r.get("highlight"))])
    out = [f'<text x="{left - 8:.1f}" y="{cy + 4:.1f}" text-anchor="end">'
           f'{esc(r["label"])}</text>']
    low, high = r["low"], r["high"]
    if not (math.isnan(low) or math.isnan(high)):
        x1 = x(min(max(low, lo), hi))
        x2 = x(min(max(high, lo), hi))
        out.append(f'<line x1="{x1:.1f}" y1="{cy:.1f}" x2="{x2:.1f}" '
                   f'y2="{cy:.1f}" stroke="{color}" stroke-width="2.5"/>')
        for end, bound, sign in ((x1, low, -1), (x2, high, 1)):
            if math.isinf(bound):  # one-sided: an arrow head at the edge
                out.append(f'<path d="M{end:.1f},{cy:.1f} l{-6 * sign},-4 v8 z" '
                           f'fill="{color}"/>')
    if math.isfinite(r["value"]):
        out.append(f'<circle cx="{x(r["value"]):.1f}" cy="{cy:.1f}" r="4.5" '
                   f'fill="{color}"/>')
    if right_labels and r.get("right"):
        out.append(f'<text x="{left + _PLOT_W + 12:.1f}" y="{cy + 4:.1f}" '
                   f'font-weight="bold">{esc(r["right"])}</text>')
    return out
