"""What a pytest run of ``@pairwise`` tables did: pure logic over the run file's JSON data.

* :mod:`~pairwise_param.runs.schema` -- the run file (``--pairwise-report=FILE``): its
  layout and JSON Schema (``run.schema.json`` is its checked-in copy);
* :mod:`~pairwise_param.runs.analysis` -- executed coverage, lost tuples, suggested
  constraints, suspicious groups of one table; executed / failure / error signature;
* :mod:`~pairwise_param.runs.text` -- the lines the plugin's terminal summary and
  ``pairwise-param report --run`` print;
* :mod:`~pairwise_param.runs.locate` -- suspicious combinations, ranked (BEN);
* :mod:`~pairwise_param.runs.localize` -- follow-up rows that separate a failure's candidates.

No pytest, no engine, no user values: the plugin builds the input during a run, the
CLI reads it back (``report --run``, ``localize``).  Nothing is imported here.
"""
