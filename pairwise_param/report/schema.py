"""The JSON Schema of ``pairwise-param report --format json``.

``pairwise-param report --print-schema`` prints it; ``docs/cli.md`` explains
each field; the tests validate every JSON report against it.  Compatible
additions (new keys) keep :data:`~pairwise_param.report.render.SCHEMA_VERSION`;
anything else bumps it.
"""

from __future__ import annotations

from typing import Any

from pairwise_param.report.columns import COLUMNS
from pairwise_param.report.render import SCHEMA_ID, SCHEMA_VERSION

__all__ = ["REPORT_SCHEMA"]

_INT = {"type": "integer", "minimum": 0}
_PCT = {"type": ["number", "null"], "minimum": 0, "maximum": 100}
_TUPLE = {"type": "object", "additionalProperties": {"type": "string"}}

_COVERAGE: dict[str, Any] = {
    "type": "object",
    "required": [
        "strength", "coverable", "covered", "missing", "infeasible", "percent", "complete",
        "missing_tuples", "infeasible_tuples",
    ],
    "properties": {
        "strength": {"type": "integer", "minimum": 1},
        "coverable": _INT,
        "covered": _INT,
        "missing": _INT,
        "infeasible": _INT,
        "percent": _PCT,
        "complete": {"type": "boolean"},
        "missing_tuples": {"type": "array", "items": _TUPLE},
        "infeasible_tuples": {"type": "array", "items": _TUPLE},
        # tuples only values skipped at collection hold: not runnable here (coverage/reach.py);
        # out of "coverable" unless --strict-platform; "reasons": "dtype=bf16: bf16 needs sm80+"
        "unrunnable": _INT,
        "unrunnable_tuples": {"type": "array", "items": _TUPLE},
        "reasons": {"type": "array", "items": {"type": "string"}},
    },
}

_TABLE = {
    "type": "object",
    "required": [
        "source", "axes", "sizes", "full_product", "rows", "violating_rows", "outside_rows", "coverage",
        "model_coverage",
    ],
    "properties": {
        "source": {"enum": ["pairwise", "parametrize", "option-axes", "parametrize_product", "get_ci_test_range"]},
        "axes": {"type": "array", "items": {"type": "string"}},
        # 0: an empty axis (the table is a hole, named in "empty_axes")
        "sizes": {"type": "array", "items": {"type": "integer", "minimum": 0}},
        "full_product": {"type": "integer", "minimum": 0},
        "empty_axes": {"type": "array", "items": {"type": "string"}},
        # false: full_product is an upper bound (a constrained group too large to count exactly)
        "full_product_exact": {"type": "boolean"},
        "rows": _INT,
        # "uncertain": a hand-written list the audit's rule cannot place: shown, not in the
        # totals nor under --fail-under (a pairwise_options mark makes it "option")
        "verdict": {"enum": ["option", "uncertain"]},
        "verdict_reason": {"type": "string"},
        "violating_rows": _INT,
        "outside_rows": _INT,
        "coverage": {"type": "array", "items": _COVERAGE},
        # @pairwise tables with sub-models: the model's own mixed-strength interactions
        "model_coverage": {
            "type": ["object", "null"],
            "required": [*_COVERAGE["required"], "label"],
            "properties": {**_COVERAGE["properties"], "label": {"type": "string"}},
        },
    },
}

_AXIS = {
    "type": "object",
    "required": ["name", "kind", "size", "source", "table"],
    "properties": {
        "name": {"type": "string"},
        "kind": {"enum": ["option", "grouped", "axis"]},
        "size": _INT,
        "source": {"enum": ["pairwise", "parametrize", "observed"]},
        "table": {"type": ["integer", "null"], "minimum": 0},
    },
}

#: a test's value of each column (report/columns.py: its key, schema and whether it is required)
_COLUMN_VALUES = {c.json_key: c.json_schema for c in COLUMNS if c.json_key is not None and c.json_schema is not None}

_TEST = {
    "type": "object",
    "required": [
        "id", "path", "class", "function", "pairwise", "axes", "tables", "below_fail_under",
        *(c.json_key for c in COLUMNS if c.json_key is not None and c.json_required),
    ],
    "properties": {
        "id": {"type": "string"},
        "path": {"type": "string"},
        "class": {"type": ["string", "null"]},
        "function": {"type": "string"},
        "pairwise": {"type": "boolean"},
        # false: full_product is an upper bound (a constrained group too large to count exactly)
        "full_product_exact": {"type": "boolean"},
        "axes": {"type": "array", "items": _AXIS},
        "tables": {"type": "array", "items": _TABLE},
        # what the analysis noticed: case tables and why, repeated rows, tied columns
        "notes": {"type": "array", "items": {"type": "string"}},
        "below_fail_under": {"type": "boolean"},
        **_COLUMN_VALUES,
    },
}

#: the columns the report shows (report/columns.py), with what each means
_COLUMNS_SHOWN = {
    "type": "array",
    "items": {
        "type": "object",
        "required": ["key", "head", "title", "meaning"],
        "properties": {k: {"type": "string"} for k in ("key", "head", "title", "meaning")},
    },
}

REPORT_SCHEMA: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "$id": f"https://pairwise-param.invalid/schemas/report-v{SCHEMA_VERSION}.json",
    "title": "pairwise-param report",
    "type": "object",
    "required": [
        "schema", "schema_version", "tool", "strengths", "fail_under", "tuples_listed", "exit_code",
        "collected_items", "unparametrized_tests", "columns", "tests", "totals", "errors",
    ],
    "properties": {
        "schema": {"const": SCHEMA_ID},
        "schema_version": {"const": SCHEMA_VERSION},
        "tool": {
            "type": "object",
            "required": ["name", "version"],
            "properties": {"name": {"const": "pairwise-param"}, "version": {"type": "string"}},
        },
        "strengths": {"type": "array", "items": {"type": "integer", "minimum": 1}},
        "fail_under": {"type": ["number", "null"], "minimum": 0, "maximum": 100},
        "tuples_listed": {"type": "boolean"},
        "exit_code": {"type": "integer", "minimum": 0},
        "collected_items": _INT,
        "unparametrized_tests": _INT,
        "columns": _COLUMNS_SHOWN,
        "tests": {"type": "array", "items": _TEST},
        "totals": {
            "type": "object",
            "required": ["tests", "full_product", "collected", "reduction", "coverage"],
            "properties": {
                "tests": _INT,
                "full_product": _INT,
                "full_product_exact": {"type": "boolean"},
                "collected": _INT,
                "reduction": {"type": ["number", "null"], "minimum": 0},
                # what the coverage totals count (option tables) and what they leave out
                "option_tables": _INT,
                "case_tables": _INT,
                "uncertain_tables": _INT,
                "coverage": {
                    "type": "array",
                    "items": {
                        "type": "object",
                        "required": ["strength", "covered", "coverable", "percent", "min_percent"],
                        "properties": {
                            "strength": {"type": "integer", "minimum": 1},
                            "covered": _INT,
                            "coverable": _INT,
                            "percent": _PCT,
                            "min_percent": _PCT,
                        },
                    },
                },
            },
        },
        "errors": {
            "type": "array",
            "items": {
                "type": "object",
                "required": ["where", "message"],
                "properties": {"where": {"type": "string"}, "message": {"type": "string"}},
            },
        },
    },
}
