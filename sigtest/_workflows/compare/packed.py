"""The result's own copies of the predictions, stored in the narrowest exact dtype.

A :class:`~sigtest.ComparisonResult` keeps a copy of every system's
predictions (``result.predictions``, and what :meth:`recompare`,
:meth:`ranks` and the report test again), so that a caller reusing its
arrays changes neither. Per-item 0/1 scores and class labels usually come
as ``float64`` or ``int64``: 8 bytes for a value that fits in one. The copy
is then stored as ``uint8`` (or ``int8``) with the dtype given, and read
back as that dtype: the same values bit for bit (checked when packing:
``-0.0``, fractions, NaN and values out of range stay unpacked). At 1,000
systems x 10^4 items that is 10 MB kept instead of 80 MB.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

__all__ = ["Packed", "pack", "pack_runs", "read_only_copy", "unpack", "unpack_runs"]

#: The narrow dtypes tried, each with the range of values it holds exactly.
_NARROW = ((np.uint8, 0, 255), (np.int8, -128, 127))


def read_only_copy(arr):
    """A read-only copy of ``arr`` as an array (the result's copies of the inputs).

    An array that is already such a copy (read-only, owning its data) is
    returned as is: :meth:`ComparisonResult.recompare` does not copy again.
    """
    if isinstance(arr, np.ndarray) and not arr.flags.writeable and arr.base is None:
        return arr
    out = np.array(arr, copy=True)
    out.flags.writeable = False
    return out


class Packed(NamedTuple):
    """One array stored narrow: ``values`` (read-only) read back as ``dtype``."""

    values: np.ndarray
    dtype: np.dtype


def _holds(dtype, flat):
    """Whether the 1-D ``flat`` comes back bit for bit from ``dtype`` (-0.0, a fraction,
    NaN or a value out of range does not)."""
    with np.errstate(invalid="ignore"):  # a cast out of range: garbage, never equal
        back = flat.astype(dtype).astype(flat.dtype)
    return np.array_equal(back.view(np.uint8), flat.view(np.uint8))


def _narrow(arr):
    """``arr`` in the first of :data:`_NARROW` that holds it bit for bit, or None."""
    if arr.dtype.kind not in "fiu" or arr.dtype.itemsize == 1 or not arr.size:
        return None
    flat = arr.reshape(-1)
    # the first values first: probabilities and other real scores stop here, before
    # any pass over the whole array
    if not any(_holds(dtype, flat[:64]) for dtype, _, _ in _NARROW):
        return None
    with np.errstate(invalid="ignore"):
        lo, hi = arr.min(), arr.max()  # NaN: no range holds it
    for dtype, low, high in _NARROW:
        if low <= lo and hi <= high and _holds(dtype, flat):
            return arr.astype(dtype)
    return None


def pack(arr):
    """The stored copy of one array: a :class:`Packed` when a narrow dtype holds it exactly,
    else a read-only copy (:func:`read_only_copy`)."""
    if isinstance(arr, Packed):
        return arr
    if isinstance(arr, np.ndarray) and arr.dtype.kind in "fiu":
        values = _narrow(np.ascontiguousarray(arr))
        if values is not None:
            values.flags.writeable = False
            return Packed(values, arr.dtype)
    return read_only_copy(arr)


def unpack(stored):
    """The array a stored copy holds: read-only, in the dtype given (a new one for a
    :class:`Packed`)."""
    if not isinstance(stored, Packed):
        return stored
    out = stored.values.astype(stored.dtype)
    out.flags.writeable = False
    return out


def pack_runs(runs):
    """``{system: [stored run, ...]}`` of ``{system: [run, ...]}``."""
    return {name: [pack(r) for r in rs] for name, rs in runs.items()}


def unpack_runs(stored):
    """``{system: [read-only run, ...]}`` of what :func:`pack_runs` returned."""
    return {name: [unpack(r) for r in rs] for name, rs in stored.items()}
