"""toolgate: make a coding-agent lane's own CLI enforce read-only, or refuse with a reason.

The package root imports nothing on purpose: the Claude Code hook imports it on every tool
call, so the public API is resolved lazily (PEP 562) from the pure modules that define it.
"""

from __future__ import annotations

__version__ = "0.1.0"

# public name -> module that defines it; imported on first attribute access.
_LAZY_EXPORTS: dict[str, str] = {
    "READ_BASH_PREFIXES": "toolgate_cli.shell",
    "ShellVerdict": "toolgate_cli.shell",
    "check_read_only_command": "toolgate_cli.shell",
    "has_unsafe_shell_syntax": "toolgate_cli.shell",
    "prefix_problem": "toolgate_cli.shell",
    "shell_words": "toolgate_cli.shell",
    "READ_TOOLS": "toolgate_cli.hook",
    "decide_pretooluse": "toolgate_cli.hook",
}


def __getattr__(name: str) -> object:
    module_name = _LAZY_EXPORTS.get(name)
    if module_name is None:
        raise AttributeError(f"module 'toolgate_cli' has no attribute {name!r}")
    import importlib  # noqa: PLC0415 - the package root imports nothing up front

    value = getattr(importlib.import_module(module_name), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted([*globals(), *_LAZY_EXPORTS])
