"""Shared argument checks of the engine's drivers (no numba: cheap to import)."""

import numbers

import numpy as np

__all__ = ["check_allocation", "check_array_like", "check_n_resamples", "check_positive_int"]


def check_positive_int(value, name):
    """``value`` as an int >= 1 (bools refused), else a ValueError naming ``name``."""
    if not isinstance(value, numbers.Integral) or isinstance(value, bool) or value < 1:
        raise ValueError(f"The '{name}' parameter must be an int >= 1. Got {value!r} instead.")
    return int(value)


def check_n_resamples(n_resamples):
    """``n_resamples`` as an int >= 1 (ValueError naming it otherwise)."""
    return check_positive_int(n_resamples, "n_resamples")


def _physical_memory():
    """Bytes of physical memory, or ``None`` where the OS does not say."""
    import os

    try:
        return int(os.sysconf("SC_PAGE_SIZE")) * int(os.sysconf("SC_PHYS_PAGES"))
    except (AttributeError, ValueError, OSError):  # pragma: no cover - e.g. Windows
        return None


def check_allocation(n_resamples, bytes_per_resample, what="the resampled statistics"):
    """Refuse a run whose resampled arrays cannot fit in memory (ValueError naming B).

    ``n_resamples * bytes_per_resample`` is what the drivers allocate at once
    (keys, column sums of A and B); above the physical memory (or 2**40
    bytes where it is unknown) numpy would fail with ``MemoryError`` or
    "Maximum allowed dimension exceeded" after a long wait.
    """
    need = int(n_resamples) * int(bytes_per_resample)
    limit = _physical_memory() or 2**40
    if need > limit:
        raise ValueError(
            f"The 'n_resamples' parameter is too large: n_resamples={n_resamples} needs about "
            f"{need / 2**30:,.1f} GiB for {what} ({bytes_per_resample} bytes per resample), "
            f"more than this machine's {limit / 2**30:,.1f} GiB of memory. Use fewer "
            "resamples (10,000 is plenty for p-values down to 1e-3)."
        )


def check_array_like(x, name):
    """``x`` as an array of at least one dimension; errors name the parameter.

    Parameters
    ----------
    x : array-like
        A list, an array, a pandas Series or DataFrame (its ``to_numpy()``).
    name : str
        The parameter's name, for the messages.

    Returns
    -------
    arr : ndarray

    Raises
    ------
    ValueError
        ``None``, a scalar, or a ragged sequence (rows of different lengths)
        that numpy cannot make an array of.
    """
    if x is None:
        raise ValueError(f"The '{name}' parameter must be array-like. Got None instead.")
    if hasattr(x, "to_numpy"):  # pandas Series / DataFrame
        x = x.to_numpy()
    try:
        arr = np.asarray(x)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"The '{name}' parameter could not be converted to an array: {exc}") from exc
    if arr.ndim == 0:
        raise ValueError(f"The '{name}' parameter must be array-like (got a scalar: {x!r}).")
    return arr
