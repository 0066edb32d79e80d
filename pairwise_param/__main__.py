"""``python -m pairwise_param``: the same as the ``pairwise-param`` command."""

import sys

from pairwise_param.cli.main import main

sys.exit(main())
