"""The fault-detection study (issue 13, section 1): does the covering table still catch the bugs?

A catalogue of realistic kernel bugs (:mod:`.catalogue`), each a source-text mutation
applied to a *copy* of a family's kernel module at run time (:mod:`.mutation`; the
shipped kernels are never touched). For each fault the option rows of one suite test
are run over their full product, times a small representative shape set
(:mod:`.targets`), against the suite's own references and checks; the interaction
order and the kill of every mode (full, t=2, t=3, upstream CI, random samples of the
t=2 table's size) follow from that one run (:mod:`.analysis`). ``python -m
benchmarks.faults`` prints the Markdown table and writes JSON (:mod:`.report`).
"""
