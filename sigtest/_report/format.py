"""Text formatting shared by the result tables (p-values, levels)."""

import math

__all__ = ["format_pvalue", "format_level", "CORRECTION_NAMES", "csv_safe", "csv_unsafe",
           "frame_margins", "format_margin", "format_number", "format_share", "format_interval"]

#: Short names of the corrections in table headers (``p (Holm)``).
CORRECTION_NAMES = {"holm": "Holm", "bonferroni": "Bonferroni", "fdr_bh": "BH", "bh": "BH",
                    "sidak": "Sidak", "holm-sidak": "Holm-Sidak", "hochberg": "Hochberg",
                    "hommel": "Hommel", "fdr_by": "BY", "by": "BY", "max-t": "max-T",
                    "max-t-single-step": "max-T single-step",
                    None: "uncorrected"}


def format_pvalue(pvalue, digits=4):
    """Format a p-value with ``digits`` decimals, never as a plain zero.

    Parameters
    ----------
    pvalue : float
        A p-value in [0, 1] or NaN.
    digits : int, default=4
        Decimals shown.

    Returns
    -------
    text : str
        ``"<0.0001"`` (for ``digits=4``) when the value would round to zero
        or below the last digit shown, ``"nan"`` for NaN, else the value.

    Examples
    --------
    >>> from sigtest._report.format import format_pvalue
    >>> format_pvalue(0.00001), format_pvalue(0.01234), format_pvalue(1.0)
    ('<0.0001', '0.0123', '1.0000')
    """
    p = float(pvalue)
    if math.isnan(p):
        return "nan"
    floor = 10.0 ** (-digits)
    if p < floor:
        return f"<{floor:.{digits}f}"
    return f"{p:.{digits}f}"


def format_level(level):
    """A confidence level as a percentage without trailing zeros (``95 %``).

    Parameters
    ----------
    level : float
        In (0, 1).

    Returns
    -------
    text : str

    Examples
    --------
    >>> from sigtest._report.format import format_level
    >>> format_level(0.95), format_level(1 - 0.05 / 6)
    ('95 %', '99.17 %')
    """
    return f"{100 * float(level):.4g} %"


#: First characters that make a spreadsheet read a cell as a formula (OWASP).
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def _is_formula(text):
    """Whether ``text`` needs the quote of :func:`csv_safe` (recursively over quotes)."""
    return text[:1] in _FORMULA_START or (text[:1] == "'" and _is_formula(text[1:]))


def csv_safe(frame):
    r"""A copy of ``frame`` whose text cells cannot run as spreadsheet formulas.

    A text cell starting with ``=``, ``+``, ``-``, ``@``, a tab or a carriage
    return (e.g. a system named ``=cmd|' /C calc'!A0``) is prefixed with a
    single quote, as the OWASP *CSV Injection* page recommends, so Excel,
    LibreOffice and Google Sheets show it as text. A cell that already
    starts with quotes before such a character gets one more quote, so the
    escape is undone exactly by :func:`csv_unsafe`. Numbers (e.g. a
    negative ``delta``) are left as they are.

    Parameters
    ----------
    frame : pandas.DataFrame
        A table about to be written as CSV or TSV.

    Returns
    -------
    safe : pandas.DataFrame
        The same table (a copy) with its formula-like text cells quoted.

    References
    ----------
    OWASP Foundation, *CSV Injection*,
    https://owasp.org/www-community/attacks/CSV_Injection.

    Examples
    --------
    >>> import pandas as pd
    >>> from sigtest._report.format import csv_safe
    >>> safe = csv_safe(pd.DataFrame({"system": ["=1+2", "b", "'@x"], "delta": [-0.5, 1, 2]}))
    >>> safe["system"].tolist(), safe["delta"].tolist()
    (["'=1+2", 'b', "''@x"], [-0.5, 1.0, 2.0])
    """
    out = frame.copy()
    for column in out.columns:
        if out[column].dtype.kind in "OSU" or str(out[column].dtype) == "string":
            out[column] = out[column].map(
                lambda v: "'" + v if isinstance(v, str) and _is_formula(v) else v)
    return out


def csv_unsafe(values):
    """Undo :func:`csv_safe` on the text cells ``values`` (a pandas Series)."""
    return values.map(lambda v: v[1:] if isinstance(v, str) and v[:1] == "'"
                      and _is_formula(v[1:]) else v)


def frame_margins(frame):
    """The margins of a comparison frame as sorted oriented pairs ``(low, high)``.

    A scalar ``margin`` m (column ``margin``) is ``(-m, m)``; an asymmetric
    pair is in the columns ``margin_low`` and ``margin_high``.
    """
    out = set()
    if "margin" in frame:
        out |= {(-float(m), float(m)) for m in frame["margin"] if math.isfinite(m)}
    if "margin_low" in frame:
        out |= {(float(lo), float(hi)) for lo, hi in zip(frame["margin_low"],
                                                          frame["margin_high"])
                if math.isfinite(lo)}
    return sorted(out)


def format_margin(low, high):
    """``"m"`` for the symmetric margins ``(-m, m)``, else ``"(low, high)"``."""
    return f"{high:g}" if low == -high else f"({low:g}, {high:g})"


def format_number(v, signed=False):
    """A score or difference in a table: four decimals (``signed``: with its sign), or ``nan``.

    Examples
    --------
    >>> from sigtest._report.format import format_number
    >>> format_number(0.81234), format_number(0.0123, signed=True), format_number(None)
    ('0.8123', '+0.0123', 'nan')
    """
    if v is None or not math.isfinite(v):
        return "nan"
    return f"{v:+.4f}" if signed else f"{v:.4f}"


def format_share(p):
    """A share of resamples (P(best)): three decimals for every value.

    Not a p-value, so not four decimals: exact 0 and 1 read ``0.000`` and
    ``1.000`` like the shares beside them; a share strictly between that
    would round to them reads ``<0.001`` or ``>0.999`` (never rounded away).

    Examples
    --------
    >>> from sigtest._report.format import format_share
    >>> format_share(0.0), format_share(0.0002), format_share(0.25), format_share(0.9999)
    ('0.000', '<0.001', '0.250', '>0.999')
    """
    if p is None or not math.isfinite(p):
        return "nan"
    if 0 < p < 0.0005:
        return "<0.001"
    if 0.9995 <= p < 1:
        return ">0.999"
    return f"{p:.3f}"


def format_interval(lo, hi, signed=False):
    """``[lo, hi]``; a one-sided interval reads ``[lo, +inf)`` or ``(-inf, hi]``.

    Examples
    --------
    >>> from sigtest._report.format import format_interval
    >>> format_interval(0.1, 0.2), format_interval(-0.01, math.inf, signed=True)
    ('[0.1000, 0.2000]', '[-0.0100, +inf)')
    >>> format_interval(math.nan, 0.2)
    'n/a'
    """
    if math.isnan(lo) or math.isnan(hi) or (math.isinf(lo) and math.isinf(hi)):
        return "n/a"
    left = "(-inf" if math.isinf(lo) else f"[{format_number(lo, signed)}"
    right = "+inf)" if math.isinf(hi) else f"{format_number(hi, signed)}]"
    return f"{left}, {right}"
