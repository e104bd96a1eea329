"""Claude Code's own permission-rule syntax: would Claude Code accept this rule, and is it broad?

Pure code: no click, no rich, no I/O. This is the grammar of `toolgate rules lint`; the seeds'
persisted-rule grammar (`toolgate_cli.rules`, `rules check`/`admits`/`import-report`) is a
deliberately strict subset of it and answers a different question (what can be imported).

A rule is ``Tool`` or ``Tool(specifier)``. Where each fact below comes from:

* The docs: code.claude.com/docs/en/permissions ("Permission rule syntax", "Tool-specific
  permission rules") and /docs/en/tools-reference (the tool names, and which specifier each tool
  takes: command patterns for Bash/PowerShell/Monitor, gitignore-style paths for Read and Edit,
  ``domain:`` for WebFetch, a name for Agent and Skill; "Tools not listed here ... accept only
  the bare tool name").
* The pinned binary, claude 2.1.197, on a settings file (tests/e2e/test_claude_rules_lint.py
  runs it): `claude doctor` lists every rule its settings loader skips ("Invalid permission
  rule ... was skipped": an empty rule, unbalanced parentheses, empty parentheses, an MCP rule
  with parentheses, a wildcard tool name in an allow rule, a lower-case tool name, a WebFetch
  rule without ``domain:`` or with a URL, a wildcard WebSearch term, ``Bash(:*)``, ``:*``
  before the end of a Bash rule, ``:*`` in a file rule, a value that is not a string), and
  ``claude -p`` prints which deny and ask rules "match no known tool" and which "target command
  as a raw string and will not match".
* claude 2.1.332 (the newest on the registry, measured the same way): it also says that
  ``Glob(path)``, ``Write(path)`` and ``NotebookEdit(path)`` are "not matched by file permission
  checks", and warns about allow rules with a ``*`` before a command's options, inside a
  variable's value, or beside a trailing ``:*``; it reads parentheses inside the content and
  a ``:*`` before the end literally, where 2.1.197 skips the rule.

Severity. An *error* is a rule Claude Code skips, or one that can never match (a mistyped or
removed tool, a specifier on a tool that takes none): the rule does not do what it says. A
*warning* is a rule that works but is wider or stranger than it looks: Claude Code's own
warnings, and the seeds' breadth findings (``broad_prefix``, ``compound_prefix``,
``bare_interpreter_prefix``, a whole-tool grant) on allow and ask rules. A deny rule is never
faulted for being broad: a wide deny only takes more away.
"""

from __future__ import annotations

import difflib
import json
import re
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Literal, get_args

from toolgate_cli.rules import bare_interpreter_of, command_segments_of, program_word_count

__all__ = [
    "ERROR_CODES",
    "KNOWN_TOOLS",
    "LEGACY_TOOL_NAMES",
    "REMOVED_TOOLS",
    "RULE_LISTS",
    "WARNING_CODES",
    "Finding",
    "RuleLint",
    "RuleList",
    "lint_rule",
    "lint_rules",
]

RuleList = Literal["allow", "ask", "deny"]
RULE_LISTS: tuple[RuleList, ...] = ("allow", "ask", "deny")
"""The `permissions` lists of a settings file, in report order."""

ErrorCode = Literal[
    "not_a_string",
    "empty",
    "malformed",
    "empty_parentheses",
    "tool_name_case",
    "unknown_tool",
    "no_specifier",
    "mcp_specifier",
    "wildcard_tool_name",
    "empty_prefix",
    "colon_star_inside",
    "colon_star_in_path",
    "webfetch_domain",
    "raw_field",
]
WarningCode = Literal[
    "whole_tool",
    "broad_prefix",
    "compound_prefix",
    "bare_interpreter_prefix",
    "no_word_boundary",
    "leading_wildcard",
    "inner_wildcard",
    "wildcard_in_assignment",
    "star_with_colon_star",
    "broad_path",
    "project_relative_slash",
    "broad_domain",
    "undocumented_specifier",
    "invisible_characters",
    "shadowed",
    "duplicate",
]
ERROR_CODES: tuple[ErrorCode, ...] = get_args(ErrorCode)
"""The closed set of error codes: the rule is skipped by Claude Code or can never match."""

WARNING_CODES: tuple[WarningCode, ...] = get_args(WarningCode)
"""The closed set of warning codes: the rule works, and is wider or stranger than it looks."""

Specifier = Literal["command", "read-path", "edit-path", "domain", "name", "none"]

_NONE: Specifier = "none"
KNOWN_TOOLS: dict[str, Specifier] = {
    # tools-reference's table of specifier formats; every other tool takes no specifier
    "Bash": "command",
    "Monitor": "command",
    "PowerShell": "command",
    "Read": "read-path",
    "Edit": "edit-path",
    "WebFetch": "domain",
    "Agent": "name",
    "Skill": "name",
    **dict.fromkeys(
        (
            # the rest of tools-reference's tool list (claude 2.1.197 knows all but the newer
            # EndConversation, SendFeedback, SubagentHandback and ToolSearch: measured)
            *("Artifact", "AskUserQuestion", "CronCreate", "CronDelete", "CronList"),
            *("EndConversation", "EnterPlanMode", "EnterWorktree", "ExitPlanMode"),
            *("ExitWorktree", "Glob", "Grep", "ListAgents", "ListMcpResourcesTool", "LSP"),
            *("NotebookEdit", "PushNotification", "ReadMcpResourceTool", "RemoteTrigger"),
            *("ReportFindings", "ScheduleWakeup", "SendFeedback", "SendMessage"),
            *("SendUserFile", "ShareOnboardingGuide", "SubagentHandback", "TaskCreate"),
            *("TaskGet", "TaskList", "TaskOutput", "TaskStop", "TaskUpdate", "TodoWrite"),
            *("ToolSearch", "WaitForMcpServers", "WebSearch", "Workflow", "Write"),
            # known to claude 2.1.197 (SendUserMessage) or 2.1.332, not in the tools reference
            *("SendUserMessage", "TeamCreate", "TeamDelete"),
        ),
        _NONE,
    ),
}
"""Every tool name a rule may name, with the specifier it takes."""

LEGACY_TOOL_NAMES: dict[str, str] = {
    "Task": "Agent",
    "KillShell": "TaskStop",
    "KillBash": "TaskStop",
    "AgentOutputTool": "TaskOutput",
    "BashOutputTool": "TaskOutput",
    "AgentOutput": "TaskOutput",
    "BashOutput": "TaskOutput",
    "ListPeers": "ListAgents",
    "Brief": "SendUserMessage",
    "ListMcpResources": "ListMcpResourcesTool",
    "ReadMcpResource": "ReadMcpResourceTool",
}
"""Old names claude 2.1.197 still reads as today's tool (its own alias table, measured)."""

REMOVED_TOOLS: dict[str, str] = {
    "MultiEdit": "Edit rules cover every file-editing tool",
    "NotebookRead": "Read rules cover every file-reading tool",
    "LS": "Read rules cover every file-reading tool",
    "TodoRead": "",
    "SlashCommand": "",
}
"""Names older settings files carry that claude 2.1.197 no longer knows (measured: "matches no
known tool"), with where the rule went when it went somewhere."""

_PATH_RULE_OF: dict[str, str] = {
    "Glob": "Read",
    "Grep": "Read",
    "LSP": "Read",
    "Write": "Edit",
    "NotebookEdit": "Edit",
}
"""Tools whose file access a Read or Edit path rule governs: a path on the tool itself never
matches (claude 2.1.197 says so for Glob, Write and NotebookEdit; tools-reference for all)."""

_RAW_FIELD_OF: dict[str, str] = {
    "Bash": "command",
    "PowerShell": "command",
    "Monitor": "command",
    "Read": "file_path",
    "Edit": "file_path",
}
"""The input field a tool's own matcher reads: ``Bash(command:ls)`` names it as a raw string
and never matches (claude 2.1.197: "targets command as a raw string and will not match")."""

_WHOLE_TOOL_GRANTS: dict[str, str] = {
    "Bash": "every shell command",
    "PowerShell": "every PowerShell command",
    "Monitor": "every command run in the background",
    "Read": "every file read, outside the project too (~/.ssh, ~/.aws, ...)",
    "Edit": "every file edit, outside the project too",
    "Write": "every file write, outside the project too",
    "NotebookEdit": "every notebook edit, outside the project too",
    "WebFetch": "every URL fetched",
}
"""What an allow or ask rule naming the whole tool matches, for the tools where that is a lot."""

_SHELL_OPERATOR_WORD = re.compile(r"(?:[|&;<>]|\d+[<>])")
_ASSIGNMENT_WORD = re.compile(r"[A-Za-z_]\w*\+?=")
_TOOL_NAME_CHARS = re.compile(r"[A-Za-z0-9_*.-]+")
_SYSTEM_TOP_DIRECTORIES = frozenset(
    {
        *("Users", "home", "root", "etc", "tmp", "var", "opt", "usr", "srv", "mnt", "media"),
        *("private", "Volumes", "Library", "System", "Applications", "proc", "sys", "dev"),
        *("bin", "sbin", "lib", "run", "nix", "workspace", "workspaces"),
    }
)
_INVISIBLE_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Zl", "Zp"})


@dataclass(frozen=True)
class Finding:
    """One error or warning about a rule: a code from ERROR_CODES or WARNING_CODES, one line."""

    code: str
    message: str

    def __post_init__(self) -> None:
        # Messages quote the rule, which may hold a newline: a finding is always one line.
        object.__setattr__(self, "message", _LINE_BREAKS.sub(_escaped, self.message))


_LINE_BREAKS = re.compile(r"[\x00-\x1f\x7f\u2028\u2029]")


def _escaped(match: re.Match[str]) -> str:
    return repr(match.group())[1:-1] if match.group() < "\x80" else f"\\u{ord(match.group()):04x}"


@dataclass(frozen=True)
class RuleLint:
    """What lint found about one entry of a settings list.

    ``tool`` is the tool the rule names (a legacy name read as today's, ``Task`` as ``Agent``),
    None when no tool can be read; ``specifier`` the text in the parentheses with Claude Code's
    ``\\(``, ``\\)``, ``\\\\`` escapes undone, None for a whole-tool rule.
    """

    list_name: RuleList
    index: int
    rule: str
    tool: str | None
    specifier: str | None
    errors: tuple[Finding, ...]
    warnings: tuple[Finding, ...]

    @property
    def ok(self) -> bool:
        return not self.errors


@dataclass(frozen=True)
class _Parsed:
    text: str
    tool: str
    written_tool: str
    specifier: str | None
    parenthesized: bool


def _is_escaped(text: str, index: int) -> bool:
    backslashes = 0
    while index - backslashes - 1 >= 0 and text[index - backslashes - 1] == "\\":
        backslashes += 1
    return backslashes % 2 == 1


def _unescaped_positions(text: str, char: str) -> list[int]:
    return [i for i, c in enumerate(text) if c == char and not _is_escaped(text, i)]


def _unescape(content: str) -> str:
    return content.replace("\\(", "(").replace("\\)", ")").replace("\\\\", "\\")


def _parse(text: str) -> _Parsed | Finding:
    """The tool and specifier of ``text``, as claude 2.1.197 splits a rule, or the error."""
    if not text.strip():
        return Finding("empty", "the rule is empty")
    opens = _unescaped_positions(text, "(")
    closes = _unescaped_positions(text, ")")
    if len(opens) != len(closes):
        return Finding(
            "malformed",
            f"{len(opens)} '(' against {len(closes)} ')': claude 2.1.197 skips a rule with "
            "unbalanced parentheses (write a literal one in the content as \\( or \\))",
        )
    if not opens:
        if closes:
            return Finding("malformed", "a ')' with no '(' before it; write Tool or Tool(content)")
        written, specifier = text, None
    else:
        if not closes or closes[-1] != len(text) - 1 or closes[-1] < opens[0]:
            return Finding(
                "malformed",
                "not of the form Tool(content): the rule must end at the ')' closing the '(' "
                "after the tool name (a literal parenthesis in the content is written \\( or \\))",
            )
        written, content = text[: opens[0]], text[opens[0] + 1 : -1]
        if not written:
            return Finding("malformed", "no tool name before the '('")
        if content == "":
            return Finding(
                "empty_parentheses",
                f"{written}() has empty parentheses: write {written} for the whole tool, or "
                f"{written}(pattern)",
            )
        specifier = None if content == "*" else _unescape(content)
    if not _TOOL_NAME_CHARS.fullmatch(written):
        return Finding(
            "malformed",
            f"{written!r} is not a tool name: it holds spaces or other characters no tool name has",
        )
    return _Parsed(text, LEGACY_TOOL_NAMES.get(written, written), written, specifier, bool(opens))


def _mcp_server(tool: str) -> tuple[str, str | None] | None:
    parts = tool.split("__")
    if parts[0] != "mcp" or len(parts) < 2 or not parts[1]:
        return None
    return parts[1], "__".join(parts[2:]) if len(parts) > 2 else None


def _tool_errors(parsed: _Parsed, list_name: RuleList) -> list[Finding]:
    tool = parsed.tool
    mcp = _mcp_server(tool)
    if mcp is not None:
        server, _ = mcp
        if parsed.parenthesized:
            return [
                Finding(
                    "mcp_specifier",
                    f"an MCP rule takes no parentheses: write {tool}, or mcp__{server}__* for "
                    "every tool of the server",
                )
            ]
        if list_name == "allow" and "*" in server:
            return [_wildcard_tool(tool)]
        return []
    if list_name == "allow" and "*" in tool:
        return [_wildcard_tool(tool)]
    if "_" not in tool and tool[:1] != tool[:1].upper():
        capital = tool[:1].upper() + tool[1:]
        hint = f": write {capital}" if capital in KNOWN_TOOLS else ""
        return [
            Finding(
                "tool_name_case",
                f"tool names start with a capital letter and {tool!r} does not, so Claude Code "
                f"skips this rule{hint}",
            )
        ]
    if tool in KNOWN_TOOLS or "_" in tool or "*" in tool:
        return []
    if tool in REMOVED_TOOLS:
        where = REMOVED_TOOLS[tool]
        return [
            Finding(
                "unknown_tool",
                f"{tool} is no longer a Claude Code tool, so the rule never matches"
                + (f" ({where})" if where else ""),
            )
        ]
    close = difflib.get_close_matches(tool, [*KNOWN_TOOLS, *LEGACY_TOOL_NAMES], n=1, cutoff=0.7)
    hint = f": did you mean {close[0]}?" if close else "; check the spelling"
    return [
        Finding("unknown_tool", f"{tool!r} is not a Claude Code tool, so it matches nothing{hint}")
    ]


def _wildcard_tool(tool: str) -> Finding:
    return Finding(
        "wildcard_tool_name",
        f"an allow rule cannot name tools by pattern ({tool!r}); a '*' is allowed only after "
        "a literal mcp__server__ (mcp__github__get_*), and anywhere in deny and ask rules",
    )


def _specifier_findings(
    parsed: _Parsed, list_name: RuleList
) -> tuple[list[Finding], list[Finding]]:
    """(errors, warnings) about the specifier of a rule whose tool is readable."""
    tool, specifier = parsed.tool, parsed.specifier
    grants = list_name != "deny"
    if specifier is None:
        if grants and tool in _WHOLE_TOOL_GRANTS:
            return [], [
                Finding(
                    "whole_tool",
                    f"{parsed.text} names the whole tool: it matches {_WHOLE_TOOL_GRANTS[tool]}",
                )
            ]
        return [], []
    kind = KNOWN_TOOLS.get(tool)
    if kind is None:  # an MCP tool or an unknown name: its errors are already said
        return [], []
    field = _RAW_FIELD_OF.get(tool)
    if field is not None and specifier.split(":", 1)[0].strip() == field and ":" in specifier:
        return [
            Finding(
                "raw_field",
                f"{tool}({specifier}) matches the text {specifier!r}, not the {field} field, "
                f"so it never matches: write {tool}({specifier.split(':', 1)[1].strip()})",
            )
        ], []
    if kind == "command":
        return _command_findings(parsed, grants)
    if kind in ("read-path", "edit-path"):
        return _path_findings(parsed, grants)
    if kind == "domain":
        return _domain_findings(specifier, grants)
    if kind == "name":
        return [], []
    if tool == "WebSearch" and ("*" in specifier or "?" in specifier):
        return [
            Finding(
                "no_specifier",
                "a WebSearch rule with wildcards is skipped by Claude Code, and the docs give "
                "WebSearch no specifier at all: write WebSearch",
            )
        ], []
    if tool == "WebSearch":
        return [], [
            Finding(
                "undocumented_specifier",
                "the docs give WebSearch no specifier (allow or deny the whole tool); claude "
                "2.1.197 accepts a search term without wildcards, later versions may not",
            )
        ]
    target = _PATH_RULE_OF.get(tool)
    if target is not None:
        return [
            Finding(
                "no_specifier",
                f"a path on {tool} is never matched: file access is judged by {target}(path) "
                f"rules, so write {target}({specifier})",
            )
        ], []
    return [
        Finding(
            "no_specifier",
            f"{tool} takes no specifier, so {tool}({specifier}) never matches: write {tool}",
        )
    ], []


def _command_findings(parsed: _Parsed, grants: bool) -> tuple[list[Finding], list[Finding]]:
    tool, content = parsed.tool, parsed.specifier or ""
    rule = f"{tool}({content})"
    trimmed = content.strip()
    if trimmed == ":*":
        return [Finding("empty_prefix", f"{rule} has no command before ':*'")], []
    if trimmed == "*":
        if grants:
            return [], [
                Finding("whole_tool", f"{rule} matches {_WHOLE_TOOL_GRANTS.get(tool, 'every use')}")
            ]
        return [], []
    warnings: list[Finding] = []
    stars = [i for i, c in enumerate(content) if c == "*" and not _is_escaped(content, i)]
    body: str | None = None  # what a prefix form extends, when the rule is one
    boundary = True
    if content.endswith(":*"):
        body = content[:-2]
        if any(i < len(content) - 1 for i in stars):
            warnings.append(
                Finding(
                    "star_with_colon_star",
                    f"{rule} mixes '*' with the trailing ':*', so its '*' is read literally "
                    "and it matches only commands holding a literal '*' there",
                )
            )
            body = None
    elif ":*" in content:
        return [
            Finding(
                "colon_star_inside",
                f"{rule} has ':*' before the end: claude 2.1.197 skips it, and later versions "
                "read that ':' literally, so it matches no command spelled without it",
            )
        ], []
    elif len(stars) == 1 and stars[0] == len(content) - 1:
        body = content[:-1]
        if body.endswith(" "):
            body = body.rstrip()
        else:
            boundary = False
    if not grants:
        return [], warnings
    if trimmed.startswith("*") and trimmed != "*":
        warnings.append(
            Finding(
                "leading_wildcard",
                f"{rule} starts with '*': it matches any program that ends this way "
                f"({trimmed[1:].strip()!r} after anything, rm included)",
            )
        )
    inner = _inner_wildcard_program(content)
    if inner is not None:
        warnings.append(
            Finding(
                "inner_wildcard",
                f"{rule} has a '*' before the rest of {inner}'s command, so it also matches "
                "any options inserted there (for git, -c and --exec-path run commands)",
            )
        )
    assigned = _wildcard_assignment_program(content)
    if assigned is not None:
        warnings.append(
            Finding(
                "wildcard_in_assignment",
                f"{rule} has a '*' in a variable's value; a '*' also matches spaces, so it "
                f"matches other commands that have {assigned!r} later in the line",
            )
        )
    if body is not None:
        warnings.extend(_prefix_breadth(rule, body.strip(), boundary))
    return [], warnings


def _prefix_breadth(rule: str, body: str, boundary: bool) -> list[Finding]:
    """The seeds' breadth questions about a prefix rule's body, with the seeds' own lexer."""
    found: list[Finding] = []
    if not boundary:
        found.append(
            Finding(
                "no_word_boundary",
                f"{rule} has no space before its '*': it also matches commands that only "
                f"start with the letters {body!r} ({body + 'x'!r}, ...)",
            )
        )
    if "*" in body:
        return found
    segments = command_segments_of(body)
    if segments is None:
        return found
    if len(segments) > 1:
        found.append(
            Finding(
                "compound_prefix",
                f"{rule} is a chain of {len(segments)} commands with anything extending the "
                f"last one ({' '.join(segments[-1])!r})",
            )
        )
    interpreter = bare_interpreter_of(segments[-1])
    if interpreter is not None:
        found.append(
            Finding(
                "bare_interpreter_prefix",
                f"{rule} stops at {interpreter!r}, which runs whatever program or code follows; "
                "name the script or subcommand",
            )
        )
    elif len(segments) == 1 and program_word_count(segments[0]) == 1:
        found.append(
            Finding(
                "broad_prefix",
                f"{rule} matches every argument form of {segments[0][-1]!r}, not one command",
            )
        )
    return found


def _inner_wildcard_program(content: str) -> str | None:
    """The program of an allow rule with a '*' before its later, non-option words (claude
    2.1.197 warns about these: the '*' also matches options inserted at that place)."""
    if content.endswith(":*"):
        return None
    words = content.split()
    if len(words) < 3 or "*" in words[0]:
        return None
    starred = False
    for word in words[1:]:
        if _SHELL_OPERATOR_WORD.match(word):
            return None
        if "*" in word:
            starred = True
            continue
        if word.startswith("-"):
            continue
        return words[0] if starred else None
    return None


def _wildcard_assignment_program(content: str) -> str | None:
    """The program after a leading ``NAME=...*`` assignment (claude 2.1.197 warns: the '*'
    matches spaces, so the "value" can hold a whole other command)."""
    if content.endswith(":*"):
        return None
    words = content.split()
    for index, word in enumerate(words):
        if not _ASSIGNMENT_WORD.match(word):
            if (
                index
                and not _SHELL_OPERATOR_WORD.match(word)
                and any("*" in w for w in words[:index])
            ):
                return word.split("*", 1)[0] or word
            return None
    return None


def _path_findings(parsed: _Parsed, grants: bool) -> tuple[list[Finding], list[Finding]]:
    tool, path = parsed.tool, parsed.specifier or ""
    if ":*" in path:
        return [
            Finding(
                "colon_star_in_path",
                f"':*' is Bash's prefix syntax; a path rule uses globs: {tool}(src/**), "
                f"{tool}(*.ts) (Claude Code skips this rule)",
            )
        ], []
    warnings: list[Finding] = []
    top = path[1:].split("/", 1)[0] if path.startswith("/") and not path.startswith("//") else ""
    if top in _SYSTEM_TOP_DIRECTORIES:
        warnings.append(
            Finding(
                "project_relative_slash",
                f"{tool}({path}): one leading '/' is relative to the project root, not the "
                f"filesystem; for the absolute path write {tool}(/{path})",
            )
        )
    if grants and path in ("//", "//*", "//**", "//**/*", "~", "~/", "~/*", "~/**", "~/**/*"):
        where = "your home directory (~/.ssh included)" if path.startswith("~") else "the disk"
        verb = "reads" if tool == "Read" else "edits"
        warnings.append(Finding("broad_path", f"{tool}({path}) {verb} every file on {where}"))
    return [], warnings


def _domain_findings(specifier: str, grants: bool) -> tuple[list[Finding], list[Finding]]:
    if "://" in specifier or specifier.startswith("http"):
        return [
            Finding(
                "webfetch_domain",
                "a WebFetch rule names a domain, not a URL: write WebFetch(domain:example.com) "
                "(Claude Code skips this rule)",
            )
        ], []
    if not specifier.startswith("domain:"):
        return [
            Finding(
                "webfetch_domain",
                "a WebFetch rule is WebFetch(domain:HOST) (Claude Code skips this rule)",
            )
        ], []
    host = specifier[len("domain:") :]
    if not host or any(c.isspace() or c == "/" for c in host):
        return [
            Finding(
                "webfetch_domain",
                f"{host!r} is not a host name (no path, no spaces), so the rule never matches",
            )
        ], []
    if grants and host == "*":
        return [], [Finding("broad_domain", "WebFetch(domain:*) fetches from every domain")]
    return [], []


def _invisible(text: str) -> Finding | None:
    for index, char in enumerate(text):
        if (char < " " or char >= "\x7f") and unicodedata.category(char) in _INVISIBLE_CATEGORIES:
            return Finding(
                "invisible_characters",
                f"U+{ord(char):04X} at column {index + 1} is a control or invisible character: "
                "the rule may not be what it looks like",
            )
    return None


def lint_rule(text: object, list_name: RuleList, index: int = 0) -> RuleLint:
    """Lint one entry of ``permissions.<list_name>`` on its own (no cross-rule findings)."""
    if not isinstance(text, str):
        return RuleLint(
            list_name,
            index,
            json.dumps(text),
            None,
            None,
            (Finding("not_a_string", f"the entry is {_json_kind(text)}, not a rule string"),),
            (),
        )
    parsed = _parse(text)
    invisible = _invisible(text)
    extra = (invisible,) if invisible is not None else ()
    if isinstance(parsed, Finding):
        return RuleLint(list_name, index, text, None, None, (parsed,), extra)
    errors = _tool_errors(parsed, list_name)
    warnings: list[Finding] = []
    if not errors:
        spec_errors, warnings = _specifier_findings(parsed, list_name)
        errors.extend(spec_errors)
    return RuleLint(
        list_name,
        index,
        text,
        parsed.tool,
        parsed.specifier,
        tuple(errors),
        (*warnings, *extra),
    )


def _json_kind(value: object) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    return "an array" if isinstance(value, list) else "an object"


_PRECEDENCE: dict[RuleList, int] = {"deny": 0, "ask": 1, "allow": 2}


def lint_rules(lists: Iterable[tuple[RuleList, Sequence[object]]]) -> list[RuleLint]:
    """Lint every entry of the given lists, then the findings across them: a rule the same as
    one in a list Claude Code evaluates first (deny, then ask, then allow) never applies, nor
    does one under a whole-tool deny; a rule repeated in its own list is a duplicate."""
    linted = [
        lint_rule(entry, list_name, index)
        for list_name, entries in lists
        for index, entry in enumerate(entries)
    ]
    first_seen: dict[tuple[str, str | None], RuleLint] = {}
    denied_tools = {
        r.tool for r in linted if r.list_name == "deny" and r.ok and r.specifier is None
    }
    by_order = sorted(linted, key=lambda r: (_PRECEDENCE[r.list_name], r.index))
    extra: dict[int, list[Finding]] = {}
    for record in by_order:
        if not record.ok or record.tool is None:
            continue
        key = (record.tool, record.specifier)
        earlier = first_seen.get(key)
        notes = extra.setdefault(id(record), [])
        if earlier is not None and earlier.list_name == record.list_name:
            notes.append(
                Finding(
                    "duplicate",
                    f"the same rule as {earlier.list_name}[{earlier.index}]",
                )
            )
        elif earlier is not None:
            notes.append(
                Finding(
                    "shadowed",
                    f"{earlier.list_name}[{earlier.index}] is the same rule and Claude Code "
                    f"checks {earlier.list_name} first, so this {record.list_name} rule never "
                    "applies",
                )
            )
        elif record.list_name != "deny" and record.tool in denied_tools:
            notes.append(
                Finding(
                    "shadowed",
                    f"deny names the whole {record.tool} tool, so this {record.list_name} rule "
                    "never applies",
                )
            )
        first_seen.setdefault(key, record)
    return [
        RuleLint(
            r.list_name,
            r.index,
            r.rule,
            r.tool,
            r.specifier,
            r.errors,
            (*r.warnings, *extra.get(id(r), ())),
        )
        if extra.get(id(r))
        else r
        for r in linted
    ]
