"""The version of sigtest (bottom layer: any module may import it)."""

__version__ = "0.1.0"
