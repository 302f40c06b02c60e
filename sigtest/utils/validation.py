"""Random-state handling shared by the significance tests and ``compare``."""

import numbers

import numpy as np

__all__ = ["check_random_state_seed", "spawn_seeds"]

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


def spawn_seeds(random_state, n):
    """Return ``n`` independent child ``SeedSequence`` objects in a fixed order.

    Used by ``compare`` so that the result of every (pair, metric) job does not
    depend on how jobs are spread over workers.
    """
    if isinstance(random_state, np.random.SeedSequence):
        root = random_state
    elif random_state is None:
        root = np.random.SeedSequence()
    else:
        root = np.random.SeedSequence(check_random_state_seed(random_state))
    return root.spawn(n)
