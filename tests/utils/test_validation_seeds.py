"""SpawnedSeeds: the children of spawn_seeds, made when read."""

import copy

import numpy as np
import pytest

from sigtest.utils.validation import SpawnedSeeds, spawn_seeds


@pytest.mark.parametrize("random_state", [0, 2**32 - 1, np.random.SeedSequence(7, spawn_key=(3,)),
                                          np.random.SeedSequence(9, pool_size=8)])
def test_spawned_seeds_are_spawn_seeds_children(random_state):
    eager = spawn_seeds(copy.deepcopy(random_state), 6)
    lazy = SpawnedSeeds(copy.deepcopy(random_state), 6)
    assert len(lazy) == 6
    for i in (5, 0, 3):  # any order of reading
        a, b = eager[i], lazy[i]
        assert (a.entropy, a.spawn_key, a.pool_size) == (b.entropy, b.spawn_key, b.pool_size)
        np.testing.assert_array_equal(a.generate_state(8), b.generate_state(8))


def test_spawned_seeds_follow_children_already_spawned():
    root = np.random.SeedSequence(5)
    root.spawn(2)
    assert SpawnedSeeds(copy.deepcopy(root), 3)[0].spawn_key == spawn_seeds(root, 3)[0].spawn_key


def test_spawned_seeds_out_of_range():
    seeds = SpawnedSeeds(0, 2)
    with pytest.raises(IndexError, match="out of range"):
        seeds[2]
    with pytest.raises(IndexError, match="out of range"):
        seeds[-1]
