"""toolgate: make a coding-agent lane's own CLI enforce read-only, or refuse with a reason.

The package root imports nothing on purpose: the Claude Code hook imports it on every tool
call, so the public API is resolved lazily (PEP 562) from the pure modules that define it.
"""

from __future__ import annotations

__version__ = "0.1.0"

# public name -> module that defines it; imported on first attribute access.
_LAZY_EXPORTS: dict[str, str] = {
    # the permission-rule grammar (seed 003)
    "ParsedRule": "toolgate_cli.rules",
    "RuleReject": "toolgate_cli.rules",
    "BreadthWarning": "toolgate_cli.rules",
    "Admission": "toolgate_cli.rules",
    "parse_allow_rule_text": "toolgate_cli.rules",
    "format_allow_rule_text": "toolgate_cli.rules",
    "rule_breadth_warnings_of": "toolgate_cli.rules",
    "rule_admits_command": "toolgate_cli.rules",
    "command_admission": "toolgate_cli.rules",
    "directory_rule_admits": "toolgate_cli.rules",
    "path_admission": "toolgate_cli.rules",
    "path_within_root": "toolgate_cli.rules",
    "lexical_normal_absolute_path_of": "toolgate_cli.rules",
    "REJECT_CODES": "toolgate_cli.rules",
    "BREADTH_WARNING_CODES": "toolgate_cli.rules",
    "MAX_RULE_TEXT_LENGTH": "toolgate_cli.rules",
    "INTERPRETER_HEADS": "toolgate_cli.rules",
    # the read-only shell checker and the Claude PreToolUse hook (seed 001)
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
    import importlib

    value = getattr(importlib.import_module(module_name), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted([*globals(), *_LAZY_EXPORTS])
