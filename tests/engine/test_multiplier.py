"""The multiplier draws' noise kernel against its NumPy twin."""

import numpy as np
import pytest


@pytest.mark.parametrize("shape", [(1, 1), (5, 3), (31, 255), (33, 257), (70, 600)])
def test_noise_kernel_is_the_numpy_loop_bit_for_bit(shape):
    # each entry summed over the columns in the same order, with no fused
    # multiply-add: tiles of 32 resamples x 256 systems, with remainders
    from sigtest._engine.multiplier import _noise, _noise_numpy

    rng = np.random.default_rng(shape[1])
    z = rng.standard_normal(shape)
    L = rng.normal(size=(shape[1], shape[1])) * rng.uniform(1e-6, 1.0, size=shape[1])
    np.testing.assert_array_equal(_noise(z, L), _noise_numpy(z, L))
