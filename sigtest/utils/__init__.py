"""Utilities shared by metrics and significance tests."""

from .validation import check_random_state_seed

__all__ = ["check_random_state_seed"]
