"""Placeholder until the read-shell hook lands: declines the fast path."""

from __future__ import annotations


def fast_path(args: list[str]) -> int | None:
    return None
