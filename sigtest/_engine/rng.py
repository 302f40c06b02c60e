"""Counter-based random numbers of the resampling engine: seeds, keys, SplitMix64.

Every resample ``b`` owns a 64-bit key (:func:`resample_keys`, from
``SeedSequence``) and draws from a counter-based generator whose ``j``-th
64-bit word is ``splitmix64(key + (j + 1) * GOLDEN)`` (SplitMix64; Steele,
Lea & Flood 2014). Streams belong to resamples, never to threads, so results
do not depend on the thread count (see :mod:`sigtest._engine.kernels_numpy`).
"""

import numbers

import numpy as np

from sigtest.utils.validation import check_random_state_seed

__all__ = ["GOLDEN", "check_seed", "resample_keys", "splitmix64"]

#: Weyl increment of SplitMix64.
GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)
_S30, _S27, _S31 = (np.uint64(v) for v in (30, 27, 31))


def splitmix64(z):
    """SplitMix64 output function (finaliser) on a uint64 array."""
    z = np.asarray(z, dtype=np.uint64)
    z = (z ^ (z >> _S30)) * _M1
    z = (z ^ (z >> _S27)) * _M2
    return z ^ (z >> _S31)


def check_seed(seed):
    """A non-negative int seed, or the integer seed drawn from a ``random_state``."""
    if isinstance(seed, numbers.Integral) and not isinstance(seed, bool):
        if seed < 0:
            raise ValueError(f"The 'seed' parameter must be a non-negative int. Got {seed!r}.")
        return int(seed)
    return check_random_state_seed(seed)


_INIT_B = np.uint32(0x8B51F9DD)
_MULT_B = np.uint32(0x58F38DED)
#: Key counts up to this many words keep their hash multipliers (a few per
#: process: the resample counts of its tests; 128 KiB each at most).
_HASH_CACHE_MAX_WORDS = 1 << 15


def _hash_multipliers(n_blocks):
    """``(h_cur, h_next)`` of :func:`resample_keys` for ``4 n_blocks`` words, shape (n_blocks, 4).

    They depend on the number of words only (not on the seed): computed once
    per count up to ``_HASH_CACHE_MAX_WORDS`` words and kept read-only.
    """
    cached = _HASH_CACHE.get(n_blocks)
    if cached is not None:
        return cached
    n_words = 4 * n_blocks
    h_next = np.cumprod(np.full(n_words, _MULT_B, dtype=np.uint32), dtype=np.uint32) * _INIT_B
    h_cur = np.empty(n_words, dtype=np.uint32)
    h_cur[:1] = _INIT_B
    h_cur[1:] = h_next[:-1]
    out = h_cur.reshape(n_blocks, 4), h_next.reshape(n_blocks, 4)
    if n_words <= _HASH_CACHE_MAX_WORDS:
        for a in out:
            a.flags.writeable = False
        if len(_HASH_CACHE) >= 16:
            _HASH_CACHE.clear()
        _HASH_CACHE[n_blocks] = out
    return out


_HASH_CACHE = {}


def resample_keys(seed, n_resamples, stream=0):
    """Per-resample uint64 keys of the counter generator (generic kernels).

    Equal to ``SeedSequence(seed, spawn_key=key).generate_state(n_resamples,
    np.uint64)`` with ``key = (0,)`` for ``stream=0`` and ``(0, stream)``
    otherwise (one independent stream per stratum; the tests assert it), computed with vectorised uint32
    arithmetic instead of numpy's scalar loop (~4x faster for 10 000 keys):
    word ``i`` is ``(pool[i % 4] ^ h_i) * h_{i+1}`` xor-shifted by 16, with
    ``h_i = INIT_B * MULT_B**i mod 2**32`` (O'Neill's seed_seq hash), and
    pairs of words read as little-endian uint64. The multipliers ``h`` depend
    on the count only and are computed once per count (:func:`_hash_multipliers`),
    which a stratified bootstrap asks for once per stratum and pair.
    """
    key = (0,) if stream == 0 else (0, int(stream))
    pool = np.asarray(np.random.SeedSequence(seed, spawn_key=key).pool, dtype=np.uint32)
    if pool.shape != (4,):  # pragma: no cover - numpy's default pool size is 4
        return np.random.SeedSequence(seed, spawn_key=key).generate_state(
            n_resamples, dtype=np.uint64
        )
    n_words = 2 * int(n_resamples)
    h_cur, h_next = _hash_multipliers(-(-n_words // 4))
    # row r, column c is word 4 r + c, mixed with pool[c] (= pool[i % 4])
    words = ((h_cur ^ pool) * h_next).reshape(-1)[:n_words]
    words ^= words >> np.uint32(16)
    return words.astype("<u4").view("<u8").astype(np.uint64)
