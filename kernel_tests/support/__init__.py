"""Support shared by every kernel family (no family imports here; see README.md).

Modules, one job each: ``platform`` (capability predicates, no pytest), ``marks``
(lazy capability skip marks), ``inputs`` (seeded generators, padding), ``asserts``
(verbose allclose), ``budget`` (interpreter cost budget per family), ``backends``
(the ``backend`` parameter each family's conftest builds from its own loaders).
"""
