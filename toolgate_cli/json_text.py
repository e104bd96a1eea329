"""JSON text out, without importing `json` (which imports `re`): for the dispatch path.

`dumps(value)` writes exactly what `json.dumps(value, ensure_ascii=False)` writes for the values
toolgate prints (dicts with string keys, lists and tuples, strings, booleans, None, integers),
with the same separators, or the compact ones (`compact=True`, as `separators=(",", ":")`).
Strings are escaped by the C function the standard encoder itself uses (`_json`), so the text
is the standard library's own. Reading JSON is left to `json`: the dispatch path only writes.
"""

from __future__ import annotations

from _json import encode_basestring as _string


def dumps(value: object, *, compact: bool = False) -> str:
    """`value` as JSON text (see the module docstring); TypeError for anything else."""
    parts: list[str] = []
    _write(value, parts, "," if compact else ", ", ":" if compact else ": ")
    return "".join(parts)


def _write(value: object, parts: list[str], item: str, key: str) -> None:
    if isinstance(value, str):
        parts.append(_string(value))
    elif value is None:
        parts.append("null")
    elif value is True:
        parts.append("true")
    elif value is False:
        parts.append("false")
    elif isinstance(value, int):
        parts.append(int.__repr__(value))
    elif isinstance(value, dict):
        parts.append("{")
        for index, (name, member) in enumerate(value.items()):
            if not isinstance(name, str):
                raise TypeError(f"keys must be str, not {type(name).__name__}")
            if index:
                parts.append(item)
            parts.append(_string(name))
            parts.append(key)
            _write(member, parts, item, key)
        parts.append("}")
    elif isinstance(value, list | tuple):
        parts.append("[")
        for index, member in enumerate(value):
            if index:
                parts.append(item)
            _write(member, parts, item, key)
        parts.append("]")
    else:
        raise TypeError(f"Object of type {type(value).__name__} is not JSON serializable")
