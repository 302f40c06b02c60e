"""The LaTeX table of a comparison's frame (:meth:`ComparisonResult.to_latex`)."""

from sigtest._report.format import CORRECTION_NAMES as _CORRECTION_NAMES
from sigtest._report.format import format_pvalue
from sigtest._results import stars_of

__all__ = ["comparison_latex"]


def comparison_latex(frame, correction, buf=None, *, float_format="%.4f", **kwargs):
    """LaTeX table of a comparison frame (``pandas.DataFrame.to_latex``).

    p-values print as ``<0.0001`` rather than ``0.0000``; adjusted p-values
    carry stars (``*`` <= .05, ``**`` <= .01); the columns are named
    ``p (raw)``, ``p (<correction>)`` (the name of ``correction``) and
    ``resamples (p-test)``; the ``significant`` column is dropped. The
    caller's frame is not changed.
    """
    frame = frame.copy()
    frame["pvalue"] = [format_pvalue(p) for p in frame["pvalue"]]
    frame["pvalue_adj"] = [f"{format_pvalue(p)}{stars_of(p)}" for p in frame["pvalue_adj"]]
    frame = frame.drop(columns=["significant"]).rename(columns={
        "pvalue": "p (raw)",
        "pvalue_adj": f"p ({_CORRECTION_NAMES.get(correction, correction)})",
        "n_resamples": "resamples (p-test)",
    })
    kwargs.setdefault("index", False)
    kwargs.setdefault("escape", True)  # system and metric names often hold "_"
    return frame.to_latex(buf, float_format=float_format, **kwargs)
