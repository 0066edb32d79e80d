"""Shared fixtures and settings of the library's own tests."""

from __future__ import annotations

import os

from hypothesis import HealthCheck, settings

pytest_plugins = ["pytester"]

# pytester's in-process runs restore sys.modules afterwards; a C extension such
# as torch that an inner session imported first would then be re-imported in
# the same process, which fails ("SystemError: bad call flags") and can crash
# an xdist worker.  Importing it once up front keeps it in every snapshot.
for _heavy in ("torch", "numpy"):
    try:
        __import__(_heavy)
    except ImportError:
        pass

# `ci`: derandomized (same examples every run), no deadline (2-core CI machines
# are noisy).  `dev`: the default exploratory profile.  `quick`: a tenth of the
# examples, for a fast local run.  Property tests size themselves from the loaded
# profile's max_examples (tests/sizing.py: 100 = the counts CI runs).
settings.register_profile(
    "ci", derandomize=True, deadline=None, print_blob=True, suppress_health_check=[HealthCheck.too_slow]
)
settings.register_profile("dev", deadline=None)
settings.register_profile("quick", deadline=None, max_examples=10)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci" if os.environ.get("CI") else "dev"))
