"""Model files: a :class:`~pairwise_param.model.Model` written as JSON or TOML.

Used by ``pairwise-param generate`` and ``pairwise-param check`` so people
outside pytest can describe a model without writing Python.  The format (see
``docs/cli.md`` for the full reference)::

    strength = 2                      # optional, default min(2, number of axes)
    compile_axes = ["dtype"]          # optional: the axes that select a kernel variant

    [axes]                            # ordered: the file's order is the axis order
    dtype = ["fp16", "bf16", "fp32"]
    padded_a = [false, true]
    bias_mode = [0, 1, 2]
    "n,k,m" = [[1, 8, 16], [4, 64, 64]]   # grouped axis: inner lists become tuples

    [[sub_models]]                    # optional: a subset at another strength
    axes = ["dtype", "bias_mode", "padded_a"]
    strength = 3

    [[constraints]]                   # declarative: if/then, never, or expressions
    if = { dtype = "fp32" }
    then = { bias_mode = { not = [2] } }

    [[include]]                       # optional must-include (partial) rows
    dtype = "fp16"
    bias_mode = 2

Constraints are written in the declarative language of
:mod:`pairwise_param.language` (the same one ``@pairwise`` and ``cover()``
accept); this module only reads and validates the file.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pairwise_param.errors import InvalidArgument, InvalidModel
from pairwise_param.language import compile_constraint, known_values
from pairwise_param.model import Model
from pairwise_param.tables.build import engine_options

__all__ = ["ModelSpec", "load_model", "load_toml", "parse_model", "read_text_file"]

_TOP_KEYS = {"axes", "strength", "constraints", "include", "sub_models", "compile_axes", "effort", "seed", "name",
             "description"}


@dataclass
class ModelSpec:
    """What a model file holds, validated into a :class:`Model`, plus the
    engine options it may carry (``effort``, ``seed``)."""

    model: Model
    effort: int | None = None
    seed: int | None = None
    name: str | None = None
    source: str | None = None
    constraint_labels: list[str] = field(default_factory=list)


# -- reading ------------------------------------------------------------------------------
def load_toml(text: str, where: str) -> Any:
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover - exercised on 3.10 only
        try:
            import tomli as tomllib  # type: ignore[import-not-found]
        except ImportError:
            raise InvalidArgument(
                "reading TOML model files on Python 3.10 needs the 'tomli' package "
                "(pip install tomli), or write the model as JSON",
                where=where,
            ) from None
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise InvalidModel(f"not valid TOML: {exc}", where=where) from None
    except (RecursionError, MemoryError):
        raise InvalidModel(_TOO_DEEP, where=where) from None
    except ValueError as exc:  # e.g. an integer of more than 4300 digits
        raise InvalidModel(f"cannot read TOML: {_plain(exc)}", where=where) from None


#: How deeply lists may nest in a model file (a grouped axis needs 2 levels).
MAX_DEPTH = 32
_TOO_DEEP = f"lists or tables nest too deeply (at most {MAX_DEPTH} levels are accepted)"


def _plain(exc: BaseException) -> str:
    """Python's message without its advice to call ``sys.set_int_max_str_digits``."""
    text = str(exc)
    if "integer string conversion" in text:
        return "an integer has too many digits (at most 4300 are accepted)"
    return text


def read_text_file(path: Path, what: str, *, newline: str | None = None) -> str:
    """The UTF-8 text of a user's file; a missing or unreadable file is an
    :class:`InvalidArgument` naming it (``what`` says which kind of file).
    ``newline=""`` keeps line endings as they are (a CSV cell may hold a ``\r``)."""
    try:
        with path.open(encoding="utf-8", newline=newline) as f:
            return f.read()
    except UnicodeDecodeError as exc:
        raise InvalidArgument(
            f"{what} is not UTF-8 text (byte {exc.object[exc.start]:#04x} at offset {exc.start}); "
            "save it as UTF-8 JSON or TOML",
            where=str(path),
        ) from None
    except FileNotFoundError:
        raise InvalidArgument(f"{what} not found", where=str(path)) from None
    except OSError as exc:
        raise InvalidArgument(f"cannot read {what}: {exc.strerror or exc}", where=str(path)) from None


def read_model_file(path: str | Path) -> Any:
    """Parse a ``.json`` or ``.toml`` file into plain data (format by suffix;
    an unknown suffix is tried as JSON, then TOML)."""
    p = Path(path)
    where = str(p)
    text = read_text_file(p, "model file")
    suffix = p.suffix.lower()
    if suffix == ".toml":
        return load_toml(text, where)
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        if suffix == ".json":
            raise InvalidModel(
                f"not valid JSON: {exc.msg} at line {exc.lineno} column {exc.colno}", where=where
            ) from None
    except (RecursionError, MemoryError):
        raise InvalidModel(_TOO_DEEP, where=where) from None
    except ValueError as exc:  # e.g. an integer of more than 4300 digits
        raise InvalidModel(f"cannot read JSON: {_plain(exc)}", where=where) from None
    return load_toml(text, where)


def load_model(path: str | Path, *, strength: int | None = None) -> ModelSpec:
    """Read and validate a model file; ``strength`` overrides the file's."""
    data = read_model_file(path)
    spec = parse_model(data, where=str(path), strength=strength)
    spec.source = str(path)
    return spec


# -- validating -----------------------------------------------------------------------------
def _tuplify(value: Any, depth: int = 0) -> Any:
    """JSON/TOML lists -> tuples (values must be hashable; grouped axes take
    tuples); nesting beyond :data:`MAX_DEPTH` is refused."""
    if isinstance(value, list):
        if depth >= MAX_DEPTH:
            raise InvalidModel(f"a value nests lists more than {MAX_DEPTH} levels deep")
        return tuple(_tuplify(v, depth + 1) for v in value)
    if isinstance(value, dict):
        raise InvalidModel(f"axis values must be scalars or lists, got a table/object {value!r}")
    return value


def _axes(raw: Any, where: str) -> list[tuple[str, list[Any]]]:
    pairs: list[tuple[str, Any]]
    if isinstance(raw, Mapping):
        pairs = list(raw.items())
    elif isinstance(raw, list):
        pairs = []
        for i, entry in enumerate(raw):
            if not (isinstance(entry, Mapping) and set(entry) == {"name", "values"}):
                raise InvalidModel(
                    f"axes[{i}] must be an object with exactly 'name' and 'values', got {entry!r}",
                    where=where,
                )
            pairs.append((entry["name"], entry["values"]))
    else:
        raise InvalidModel(
            "'axes' must map axis names to lists of values, e.g. "
            '{"dtype": ["fp16", "bf16"], "bias_mode": [0, 1, 2]}',
            where=where,
        )
    out = []
    for name, values in pairs:
        if not isinstance(values, list):
            raise InvalidModel(f"axis {name!r}: values must be a list, got {values!r}", where=where)
        try:
            vals = [_tuplify(v) for v in values]
        except InvalidModel as exc:
            raise InvalidModel(f"axis {name!r}: {exc.detail}", where=where) from None
        out.append((name, vals))
    return out


def _int_option(data: Mapping[str, Any], key: str, where: str, minimum: int | None = None) -> int | None:
    if key not in data:
        return None
    v = data[key]
    if isinstance(v, bool) or not isinstance(v, int) or (minimum is not None and v < minimum):
        bound = f" >= {minimum}" if minimum is not None else ""
        raise InvalidModel(f"{key!r} must be an integer{bound}, got {key}={v!r}", where=where)
    return v


def parse_model(data: Any, *, where: str = "model", strength: int | None = None) -> ModelSpec:
    """Validate plain data (as parsed from JSON/TOML) into a :class:`ModelSpec`."""
    if not isinstance(data, Mapping):
        raise InvalidModel("a model file must hold an object/table at the top level", where=where)
    unknown = sorted(set(data) - _TOP_KEYS)
    if unknown:
        import difflib

        hints = []
        for k in unknown:
            close = difflib.get_close_matches(k, sorted(_TOP_KEYS), n=1)
            hints.append(f"{k!r}" + (f" (did you mean {close[0]!r}?)" if close else ""))
        raise InvalidModel(
            f"unknown top-level key(s) {', '.join(hints)}; allowed: {', '.join(sorted(_TOP_KEYS))}",
            where=where,
        )
    if "axes" not in data:
        raise InvalidModel("the model has no 'axes'", where=where)
    axes = _axes(data["axes"], where)
    file_strength = _int_option(data, "strength", where, minimum=1)
    effort, seed = data.get("effort"), data.get("seed")
    try:  # EngineOptions is the one validator of both
        engine_options(0 if effort is None else effort, 0 if seed is None else seed)
    except InvalidArgument as exc:
        raise InvalidModel(exc.detail, where=where) from None

    raw_constraints = data.get("constraints", [])
    if not isinstance(raw_constraints, list):
        raise InvalidModel("'constraints' must be a list", where=where)
    axis_values = known_values([([n.strip() for n in name.split(",")], vals) for name, vals in axes])
    predicates = []
    labels = []
    for i, c in enumerate(raw_constraints):
        pred = compile_constraint(c, axis_values, where=f"{where}: constraints[{i}]")
        predicates.append(pred)
        labels.append(pred.__name__)

    raw_include = data.get("include", [])
    if not isinstance(raw_include, list) or not all(isinstance(r, Mapping) for r in raw_include):
        raise InvalidModel("'include' must be a list of objects (axis name -> value)", where=where)
    try:
        include = [{k: _tuplify(v) for k, v in r.items()} for r in raw_include]
    except InvalidModel as exc:
        raise InvalidModel(f"include: {exc.detail}", where=where) from None

    raw_subs = data.get("sub_models", [])
    if not isinstance(raw_subs, list):
        raise InvalidModel("'sub_models' must be a list of {axes = [...], strength = N}", where=where)
    subs = []
    for i, s in enumerate(raw_subs):
        if not (isinstance(s, Mapping) and set(s) == {"axes", "strength"} and isinstance(s["axes"], list)):
            raise InvalidModel(
                f"sub_models[{i}] must be {{\"axes\": [names...], \"strength\": N}}, got {s!r}", where=where
            )
        subs.append((tuple(s["axes"]), s["strength"]))

    compile_axes = data.get("compile_axes", [])
    if not isinstance(compile_axes, list) or not all(isinstance(n, str) for n in compile_axes):
        raise InvalidModel(f"'compile_axes' must be a list of axis names, got {compile_axes!r}", where=where)
    t = strength if strength is not None else file_strength  # None: the model's default
    model = Model(axes, strength=t, constraints=predicates, include=include, sub_models=subs,
                  compile_axes=compile_axes, where=where)
    raw_name = data.get("name")
    return ModelSpec(model=model, effort=effort, seed=seed, name=raw_name if isinstance(raw_name, str) else None,
                     constraint_labels=labels)


