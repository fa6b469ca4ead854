"""``python -m brett``: the ``brett`` command."""

import sys

from .frontends.cli import main

sys.exit(main())
