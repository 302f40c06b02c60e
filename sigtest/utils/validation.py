"""Random-state handling shared by the significance tests and ``compare``; the check of
an array of real numbers (p-values, scores) given by the user."""

import numbers

import numpy as np

__all__ = ["SpawnedSeeds", "check_random_state_seed", "real_array", "spawn_seeds"]

_MAX_SEED = 2**31 - 1


def check_random_state_seed(random_state):
    """Turn ``random_state`` into one integer seed for the numba kernels.

    numba keeps its own random state per thread, which Python-side seeding
    does not reach; the kernels therefore take an explicit integer seed and
    derive one stream per fixed block of resamples from it.

    Parameters
    ----------
    random_state : None, int, numpy.random.SeedSequence or numpy.random.Generator
        ``None`` draws fresh OS entropy. An int in ``[0, 2**32)`` or a
        ``SeedSequence`` gives a reproducible seed. A ``Generator`` is
        advanced by one draw.

    Returns
    -------
    seed : int
        An integer in ``[0, 2**31 - 1)``.

    Examples
    --------
    >>> from sigtest.utils import check_random_state_seed
    >>> check_random_state_seed(0) == check_random_state_seed(0)
    True
    >>> 0 <= check_random_state_seed(None) < 2**31 - 1
    True
    """
    if random_state is None:
        ss = np.random.SeedSequence()
    elif isinstance(random_state, np.random.SeedSequence):
        ss = random_state
    elif isinstance(random_state, np.random.Generator):
        return int(random_state.integers(0, _MAX_SEED))
    elif isinstance(random_state, np.random.RandomState):
        return int(random_state.randint(0, _MAX_SEED))
    elif isinstance(random_state, numbers.Integral) and not isinstance(random_state, bool):
        if not 0 <= int(random_state) < 2**32:
            raise ValueError(
                "The 'random_state' parameter must be an int in [0, 2**32), a "
                f"SeedSequence, a Generator or None. Got {random_state!r} instead."
            )
        ss = np.random.SeedSequence(int(random_state))
    else:
        raise TypeError(
            "The 'random_state' parameter must be an int in [0, 2**32), a "
            f"SeedSequence, a Generator or None. Got {random_state!r} instead."
        )
    return int(ss.generate_state(1, dtype=np.uint32)[0] % _MAX_SEED)


def _root_seed(random_state):
    """The ``SeedSequence`` whose children :func:`spawn_seeds` returns."""
    if isinstance(random_state, np.random.SeedSequence):
        return random_state
    if random_state is None:
        return np.random.SeedSequence()
    return np.random.SeedSequence(check_random_state_seed(random_state))


def spawn_seeds(random_state, n):
    """Return ``n`` independent child ``SeedSequence`` objects in a fixed order.

    Used by ``compare`` so that the result of every (pair, metric) job does not
    depend on how jobs are spread over workers.
    """
    return _root_seed(random_state).spawn(n)


class SpawnedSeeds:
    """The children of :func:`spawn_seeds` ``(random_state, n)``, each made when it is read.

    ``seeds[i]`` equals ``spawn_seeds(random_state, n)[i]`` (the same
    entropy, spawn key and pool size, hence the same states), but a child
    costs nothing until it is asked for: a comparison of 1,000 systems plans
    499,500 pairs whose seeds are read only by the pairs that draw their own
    resamples. Unlike ``SeedSequence.spawn``, it does not advance a
    ``SeedSequence`` given as ``random_state`` (``compare`` spawns from a
    copy either way).
    """

    def __init__(self, random_state, n):
        root = _root_seed(random_state)
        self._entropy, self._key, self._pool = root.entropy, root.spawn_key, root.pool_size
        self._first, self._n = root.n_children_spawned, int(n)

    def __len__(self):
        return self._n

    def __getitem__(self, i):
        if not 0 <= i < self._n:
            raise IndexError(f"seed {i} out of range: {self._n} seeds")
        return np.random.SeedSequence(self._entropy, spawn_key=(*self._key, self._first + i),
                                      pool_size=self._pool)


def _kind_name(arr):
    """What the non-real entries of ``arr`` are, for a message."""
    if arr.dtype.kind == "b":
        return "booleans"
    if arr.dtype.kind == "c":
        return "complex numbers"
    if arr.dtype.kind in "USa":
        return "strings"
    bad = next(v for v in arr.ravel() if isinstance(v, (bool, np.bool_))
               or not (v is None or isinstance(v, numbers.Real)))
    return f"a {type(bad).__name__} ({bad!r})"


def real_array(values, name, what="real numbers"):
    """``values`` as a float64 array, refusing anything but real numbers.

    ``np.asarray(x, dtype=float)`` reads the strings ``"0.01"``, the booleans
    ``True``/``False`` and (with a warning) complex numbers as numbers; a
    user's p-values or scores given that way are a mistake to report, not to
    convert.

    Parameters
    ----------
    values : array-like
        Numbers of an integer or floating dtype, or an object array of real
        Python/numpy scalars (NaN allowed; ``None`` is read as NaN).
    name : str
        Parameter name for the messages.
    what : str, default="real numbers"
        What the values must be, for the messages.

    Returns
    -------
    arr : ndarray of float64

    Raises
    ------
    TypeError
        Strings, booleans, complex numbers or other objects among the values.
    ValueError
        Values that cannot form an array (ragged nested sequences).
    """
    try:
        arr = np.asarray(values)
    except ValueError as exc:
        raise ValueError(f"The {name!r} parameter must hold {what}: {exc}") from exc
    if arr.dtype.kind == "O" and arr.size and all(
            v is None or isinstance(v, numbers.Real) and not isinstance(v, (bool, np.bool_))
            for v in arr.ravel()):
        return np.where(np.equal(arr, None), np.nan, arr).astype(np.float64)
    if arr.dtype.kind not in "iuf" and arr.size:
        raise TypeError(f"The {name!r} parameter must hold {what}. Got {_kind_name(arr)} "
                        "instead.")
    return arr.astype(np.float64)
