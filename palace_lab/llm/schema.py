"""A small JSON Schema validator for the subset our answer schemas use.

Supported keywords: ``type`` (a name or a list of names), ``enum``, ``const``, ``properties``,
``required``, ``additionalProperties`` (a boolean), ``items`` (one schema), ``minItems``,
``maxItems``, ``minLength``, ``maxLength``, ``pattern`` (``re.search``), ``minimum``,
``maximum``. Any other keyword is ignored, as JSON Schema itself does with unknown keywords.

:func:`schema_errors` returns every error as one line that names the JSON path (``$.rooms[0].key``)
so the line can be sent back to a model verbatim as a repair hint. No dependency: the
``jsonschema`` package is not required at run time.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any

_TYPES: dict[str, Callable[[Any], bool]] = {
    "object": lambda v: isinstance(v, dict),
    "array": lambda v: isinstance(v, list),
    "string": lambda v: isinstance(v, str),
    "number": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
    "integer": lambda v: isinstance(v, int) and not isinstance(v, bool),
    "boolean": lambda v: isinstance(v, bool),
    "null": lambda v: v is None,
}


def _type_errors(value: Any, schema: Mapping[str, Any], path: str) -> list[str]:
    wanted = schema.get("type")
    if wanted is None:
        return []
    names = [wanted] if isinstance(wanted, str) else list(wanted)
    if any(_TYPES[n](value) for n in names):
        return []
    return [f"{path}: expected {' or '.join(names)}, got {type(value).__name__}"]


def _value_errors(value: Any, schema: Mapping[str, Any], path: str) -> list[str]:
    errors = []
    if "enum" in schema and value not in schema["enum"]:
        errors.append(f"{path}: {value!r} is not one of {schema['enum']}")
    if "const" in schema and value != schema["const"]:
        errors.append(f"{path}: must be {schema['const']!r}")
    if _TYPES["number"](value):
        if "minimum" in schema and value < schema["minimum"]:
            errors.append(f"{path}: {value} is below the minimum {schema['minimum']}")
        if "maximum" in schema and value > schema["maximum"]:
            errors.append(f"{path}: {value} is above the maximum {schema['maximum']}")
    if isinstance(value, str):
        errors += _string_errors(value, schema, path)
    return errors


def _string_errors(value: str, schema: Mapping[str, Any], path: str) -> list[str]:
    errors = []
    if len(value) < schema.get("minLength", 0):
        errors.append(f"{path}: shorter than {schema['minLength']} characters")
    if "maxLength" in schema and len(value) > schema["maxLength"]:
        errors.append(f"{path}: longer than {schema['maxLength']} characters ({len(value)})")
    if "pattern" in schema and not re.search(schema["pattern"], value):
        errors.append(f"{path}: {value!r} does not match the pattern {schema['pattern']}")
    return errors


def _object_errors(value: dict, schema: Mapping[str, Any], path: str) -> list[str]:
    props = schema.get("properties", {})
    required = schema.get("required", ())
    errors = [f"{path}: missing required field {k!r}" for k in required if k not in value]
    if schema.get("additionalProperties", True) is False:
        errors += [f"{path}: unexpected field {k!r}" for k in value if k not in props]
    for key, sub in props.items():
        if key in value:
            errors += schema_errors(value[key], sub, f"{path}.{key}")
    return errors


def _array_errors(value: list, schema: Mapping[str, Any], path: str) -> list[str]:
    errors = []
    if len(value) < schema.get("minItems", 0):
        errors.append(f"{path}: needs at least {schema['minItems']} items, got {len(value)}")
    if "maxItems" in schema and len(value) > schema["maxItems"]:
        errors.append(f"{path}: allows at most {schema['maxItems']} items, got {len(value)}")
    if isinstance(schema.get("items"), Mapping):
        for i, item in enumerate(value):
            errors += schema_errors(item, schema["items"], f"{path}[{i}]")
    return errors


def schema_errors(value: Any, schema: Mapping[str, Any], path: str = "$") -> list[str]:
    """Every way ``value`` breaks ``schema``, one line each; empty when it conforms."""
    errors = _type_errors(value, schema, path)
    if errors:
        return errors
    errors = _value_errors(value, schema, path)
    if isinstance(value, dict):
        errors += _object_errors(value, schema, path)
    elif isinstance(value, list):
        errors += _array_errors(value, schema, path)
    return errors
