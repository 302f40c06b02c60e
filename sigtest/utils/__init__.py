"""Utilities shared by metrics and significance tests."""

from ._warnings import find_stack_level, warn_external
from .validation import check_random_state_seed

__all__ = ["check_random_state_seed", "find_stack_level", "warn_external"]
