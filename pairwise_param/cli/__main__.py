"""``python -m pairwise_param.cli``: the same as the ``pairwise-param`` command."""

import sys

from pairwise_param.cli.main import main

sys.exit(main())
