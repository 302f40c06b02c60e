"""Text formatting shared by the result tables (p-values, levels)."""

import math

__all__ = ["format_pvalue", "format_level", "CORRECTION_NAMES"]

#: Short names of the corrections in table headers (``p (Holm)``).
CORRECTION_NAMES = {"holm": "Holm", "bonferroni": "Bonferroni", "fdr_bh": "BH",
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
    >>> from sigtest._format import format_pvalue
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
    >>> from sigtest._format import format_level
    >>> format_level(0.95), format_level(1 - 0.05 / 6)
    ('95 %', '99.17 %')
    """
    return f"{100 * float(level):.4g} %"
