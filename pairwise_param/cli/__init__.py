"""The ``pairwise-param`` command line: ``report``, ``check``, ``generate``."""

from pairwise_param.cli.main import main

__all__ = ["main"]
