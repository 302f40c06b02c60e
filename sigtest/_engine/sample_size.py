"""The one rule of a bootstrap sample size, plain and within strata.

:func:`resolve_sample_size` turns a ``sample_size`` argument (``None``, a
fraction in (0, 1] or an int) into a number of units per resample; it is
shared by the engine's bootstrap kernels, the rank-metric bootstrap and
:class:`~sigtest.BergKirkpatrickBootstrap`. :func:`stratified_sample_size`
is its form for a stratified bootstrap (a fraction applied in each stratum).
The module imports nothing of sigtest, so any engine module can use it.
"""

from __future__ import annotations

import math
import numbers

__all__ = ["resolve_sample_size", "stratified_sample_size"]


def resolve_sample_size(sample_size, n_samples):
    """Number of items per bootstrap resample: the one rounding rule.

    ``None`` -> ``n_samples``; a float ``f`` in (0, 1] -> ``max(1, floor(f * n))``
    (with a ``1e-9`` guard so that e.g. ``0.1 * 30`` gives 3); an int >= 1 ->
    itself. :class:`~sigtest.BergKirkpatrickBootstrap` uses the same rule.
    """
    if sample_size is None:
        return int(n_samples)
    if isinstance(sample_size, bool):
        raise ValueError(f"The 'sample_size' parameter must be a number. Got {sample_size!r}.")
    if isinstance(sample_size, numbers.Integral):
        if sample_size < 1:
            raise ValueError(
                f"The 'sample_size' parameter must be an int >= 1 or a float in (0, 1]. "
                f"Got {sample_size!r} instead."
            )
        return int(sample_size)
    if isinstance(sample_size, numbers.Real) and 0.0 < float(sample_size) <= 1.0:
        return max(1, int(math.floor(float(sample_size) * n_samples + 1e-9)))
    raise ValueError(
        "The 'sample_size' parameter must be an int >= 1 or a float in (0, 1]. "
        f"Got {sample_size!r} instead."
    )


def stratified_sample_size(sample_size, n_units):
    """``sample_size`` of a stratified bootstrap: ``None`` or a fraction per stratum."""
    if sample_size is None:
        return None
    if isinstance(sample_size, numbers.Integral) and not isinstance(sample_size, bool):
        if int(sample_size) == n_units:
            return None
        raise ValueError(
            "With strata, the 'sample_size' parameter must be a fraction in (0, 1] (applied "
            f"within each stratum) or None. Got the int {sample_size!r} instead."
        )
    resolve_sample_size(sample_size, n_units)  # the one check of a fraction
    return None if float(sample_size) == 1.0 else float(sample_size)
