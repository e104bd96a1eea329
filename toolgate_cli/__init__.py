"""toolgate: make a coding-agent lane's own CLI enforce read-only, or refuse with a reason.

The package root imports nothing on purpose: the Claude Code hook imports it on every tool
call, so the public API is resolved lazily (PEP 562) from the pure modules that define it.
"""

from __future__ import annotations

__version__ = "0.1.0"

# public name -> module that defines it; imported on first attribute access.
_LAZY_EXPORTS: dict[str, str] = {
    # the verdict: may a read-only dispatch run here at all (seed 000)
    "ReadOnlyRequest": "toolgate_cli.verdict",
    "Allowed": "toolgate_cli.verdict",
    "Refused": "toolgate_cli.verdict",
    "read_only_verdict": "toolgate_cli.verdict",
    "resolve_read_only_cwd": "toolgate_cli.verdict",
    # the lane rewrites (seed 000)
    "LaneInvocation": "toolgate_cli.lanes",
    "RewriteOptions": "toolgate_cli.lanes",
    "Rewritten": "toolgate_cli.lanes",
    "RewriteRefused": "toolgate_cli.lanes",
    "Change": "toolgate_cli.lanes",
    "lane_kind": "toolgate_cli.lanes",
    "read_only_invoke": "toolgate_cli.lanes",
    "PassFlag": "toolgate_cli.lanes.base",
    # verdict then rewrite, as `toolgate dispatch` does it
    "DispatchRequest": "toolgate_cli.decision",
    "DispatchDecision": "toolgate_cli.decision",
    "decide_dispatch": "toolgate_cli.decision",
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


TYPE_CHECKING = False
if TYPE_CHECKING:  # the same names, for type checkers and IDEs (never imported at run time)
    from toolgate_cli.decision import DispatchDecision, DispatchRequest, decide_dispatch
    from toolgate_cli.hook import READ_TOOLS, decide_pretooluse
    from toolgate_cli.lanes import (
        Change,
        LaneInvocation,
        RewriteOptions,
        RewriteRefused,
        Rewritten,
        lane_kind,
        read_only_invoke,
    )
    from toolgate_cli.lanes.base import PassFlag
    from toolgate_cli.rules import (
        BREADTH_WARNING_CODES,
        INTERPRETER_HEADS,
        MAX_RULE_TEXT_LENGTH,
        REJECT_CODES,
        Admission,
        BreadthWarning,
        ParsedRule,
        RuleReject,
        command_admission,
        directory_rule_admits,
        format_allow_rule_text,
        lexical_normal_absolute_path_of,
        parse_allow_rule_text,
        path_admission,
        path_within_root,
        rule_admits_command,
        rule_breadth_warnings_of,
    )
    from toolgate_cli.shell import (
        READ_BASH_PREFIXES,
        ShellVerdict,
        check_read_only_command,
        has_unsafe_shell_syntax,
        prefix_problem,
        shell_words,
    )
    from toolgate_cli.verdict import (
        Allowed,
        ReadOnlyRequest,
        Refused,
        read_only_verdict,
        resolve_read_only_cwd,
    )

__all__ = sorted(_LAZY_EXPORTS)


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
