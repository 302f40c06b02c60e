"""``python -m sigtest`` runs the command-line interface."""

import sys

from sigtest.cli import main

sys.exit(main())
