"""``python -m yahtzee``: the same as the ``yahtzee`` command."""

import sys

from yahtzee.cli import main

sys.exit(main())
