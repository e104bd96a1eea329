"""`toolgate rules`: check, admits and lint over the permission-rule grammar (seed 003).

A thin click layer over `toolgate_cli.rules`: it reads arguments and files, calls the pure code
and renders. Output is plain text for people and JSON for scripts; nothing here decides.
"""

from __future__ import annotations

import json
import os
import unicodedata
from typing import Any

import click

from toolgate_cli import exitcodes
from toolgate_cli.rules import (
    Admission,
    ParsedRule,
    RuleReject,
    command_admission,
    lexical_normal_absolute_path_of,
    parse_allow_rule_text,
    path_admission,
    rule_breadth_warnings_of,
)

SETTINGS_LISTS = ("allow", "ask", "deny")
"""The `permissions` lists of a Claude Code settings file that `lint` reads, in report order."""

_INVISIBLE_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Zl", "Zp"})


def _shown(text: str) -> str:
    """`text` safe to print on a terminal: control, invisible and surrogate characters escaped."""
    if text.isprintable():
        return text
    out: list[str] = []
    for char in text:
        if unicodedata.category(char) in _INVISIBLE_CATEGORIES:
            code = ord(char)
            out.append(f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}")
        else:
            out.append(char)
    return "".join(out)


def _json_text(text: str) -> str:
    """`text` as a JSON-safe string: a lone surrogate (undecodable argv byte) becomes `\\udcXX`."""
    return text.encode("utf-8", "backslashreplace").decode("utf-8")


def _fail(command: str, message: str) -> int:
    click.echo(f"toolgate rules {command}: {_shown(message)}", err=True)
    return exitcodes.USAGE


def _rule_report(text: str, *, with_warnings: bool = True) -> dict[str, Any]:
    """The `check --json` record for one rule text."""
    parsed = parse_allow_rule_text(text)
    if isinstance(parsed, RuleReject):
        return {
            "rule": _json_text(text),
            "ok": False,
            "canonical": None,
            "tool": None,
            "match": None,
            "reject": {"code": parsed.code, "message": _json_text(parsed.message)},
            "warnings": [],
        }
    warnings = rule_breadth_warnings_of(parsed) if with_warnings else ()
    return {
        "rule": _json_text(text),
        "ok": True,
        "canonical": _json_text(parsed.canonical),
        "tool": parsed.tool,
        "match": parsed.match,
        "reject": None,
        "warnings": [
            {"code": warning.code, "message": _json_text(warning.message)} for warning in warnings
        ],
    }


def _render_report(report: dict[str, Any], label: str = "") -> list[str]:
    """Human lines for one rule record: the verdict line, then one line per warning."""
    lead = f"{label} " if label else ""
    rule = _shown(str(report["rule"]))
    if not report["ok"]:
        reject = report["reject"]
        return [f"{lead}rejected: {rule}: {reject['code']}: {_shown(reject['message'])}"]
    canonical = _shown(str(report["canonical"]))
    spelled = rule if canonical == rule else f"{rule} (canonical: {canonical})"
    lines = [f"{lead}ok: {spelled} [{report['tool']} {report['match']}]"]
    lines.extend(
        f"  warning {warning['code']}: {_shown(warning['message'])}"
        for warning in report["warnings"]
    )
    return lines


def _print_json(value: object) -> None:
    click.echo(json.dumps(value, indent=2))


@click.group(
    help="""Check, test and lint permission rules in the grammar Claude Code settings persist.

\b
Forms:
  Bash(git status)       exact: admits that one command
  Bash(npm run:*)        prefix: the command or the command plus more words
  Bash(npm run *)        wildcard: the same reach, never a chain
  Bash(cd /x && npm:*)   compound prefix (colon-star only)
  Read(//abs/dir/**)     subpath: reads under one absolute directory

\b
Example:
  toolgate rules check 'Bash(npm run:*)' 'Read(//srv/docs/**)'
"""
)
def rules() -> None:
    pass


@rules.command(
    "check",
    short_help="Parse rules: canonical form, reject code, breadth warnings.",
    help="""Parse each RULE; print its canonical form, match form, reject or breadth warnings.

\b
Exit status: 0 every rule accepted (warnings do not fail), 1 any rule rejected, 2 usage.
--json prints a list of {"rule", "ok", "canonical", "tool", "match",
"reject": {"code", "message"} | null, "warnings": [{"code", "message"}]}.

\b
Example:
  toolgate rules check 'Bash(git status)' 'Bash(mkdir:*)' 'Bash(*)'
  toolgate rules check --json 'Bash(cd /tmp && npm:*)'
""",
)
@click.option("--json", "as_json", is_flag=True, help="Print JSON records instead of text.")
@click.argument("rule_texts", metavar="RULE...", nargs=-1, required=True)
def check(as_json: bool, rule_texts: tuple[str, ...]) -> int:
    reports = [_rule_report(text) for text in rule_texts]
    if as_json:
        _print_json(reports)
    else:
        for report in reports:
            for line in _render_report(report):
                click.echo(line)
    rejected = any(not report["ok"] for report in reports)
    return exitcodes.NOT_ADMITTED if rejected else exitcodes.OK


@rules.command(
    "admits",
    help="""Does RULE admit a Bash COMMAND, or a read of PATH?

\b
The COMMAND words after -- are joined with single spaces, the way the Bash tool
receives a command string; quote the whole command as one argument to keep its
own quoting. PATH is made absolute against the current directory and normalized
lexically (`.`, `..`, doubled slashes; symlinks are not followed) before a Read
directory rule judges it.

\b
Exit status: 0 admitted, 1 not admitted, 2 usage (including a rejected RULE).

\b
Example:
  toolgate rules admits 'Bash(npm run:*)' -- npm run build
  toolgate rules admits 'Bash(git status)' -- 'git status && rm -rf x'
  toolgate rules admits 'Read(//srv/docs/**)' --path /srv/docs/a.md
""",
)
@click.option("--path", "read_path", metavar="PATH", help="Judge a read of PATH instead.")
@click.option("--json", "as_json", is_flag=True, help="Print a JSON record instead of text.")
@click.argument("rule_text", metavar="RULE")
@click.argument("command_words", metavar="[-- COMMAND...]", nargs=-1)
def admits(
    read_path: str | None, as_json: bool, rule_text: str, command_words: tuple[str, ...]
) -> int:
    if read_path is not None and command_words:
        return _fail("admits", "give either -- COMMAND or --path PATH, not both")
    if read_path is None and not command_words:
        return _fail("admits", "give a COMMAND after -- or --path PATH")
    parsed = parse_allow_rule_text(rule_text)
    if isinstance(parsed, RuleReject):
        return _fail("admits", f"RULE is rejected: {parsed.code}: {parsed.message}")
    command: str | None = None
    judged_path: str | None = None
    if read_path is not None:
        absolute = read_path if read_path.startswith("/") else os.path.join(os.getcwd(), read_path)
        judged_path = lexical_normal_absolute_path_of(absolute)
        if judged_path is None:
            return _fail("admits", f"{read_path!r} has no lexical-normal absolute spelling")
        answer = path_admission(parsed, judged_path)
    else:
        command = " ".join(command_words)
        answer = command_admission(parsed, command)
    _print_admission(parsed, answer, command, judged_path, as_json=as_json)
    return exitcodes.OK if answer.admitted else exitcodes.NOT_ADMITTED


def _print_admission(
    rule: ParsedRule,
    answer: Admission,
    command: str | None,
    judged_path: str | None,
    *,
    as_json: bool,
) -> None:
    if as_json:
        _print_json(
            {
                "rule": _json_text(rule.canonical),
                "match": rule.match,
                "command": None if command is None else _json_text(command),
                "path": None if judged_path is None else _json_text(judged_path),
                "admitted": answer.admitted,
                "reason": _json_text(answer.reason),
            }
        )
        return
    verdict = "admitted" if answer.admitted else "not admitted"
    click.echo(f"{verdict}: {_shown(answer.reason)}")


@rules.command(
    "lint",
    short_help="Lint the permission rules of a Claude Code settings file.",
    help="""Check every rule in permissions.allow, ask and deny of a Claude Code settings file.

\b
Every entry is parsed with the same grammar and each reject is reported. Breadth
warnings are reported for allow rules only: they say how much a grant admits, and
a wide ask or deny rule tightens rather than grants.

\b
Exit status: 0 no rule rejected (a file with only warnings exits 0: a warning is
advice about a legal rule, never a refusal), 1 any rule rejected, 2 the file is
missing, unreadable, not JSON or not shaped like a settings file.
--json prints check's records with "list" (allow, ask, deny) and "index" added.

\b
Example:
  toolgate rules lint .claude/settings.json
  toolgate rules lint --json ~/.claude/settings.json
""",
)
@click.option("--json", "as_json", is_flag=True, help="Print JSON records instead of text.")
@click.argument("settings_path", metavar="SETTINGS.json")
def lint(as_json: bool, settings_path: str) -> int:
    loaded = _load_settings(settings_path)
    if isinstance(loaded, str):
        return _fail("lint", loaded)
    reports: list[dict[str, Any]] = []
    for list_name, entries in loaded:
        for index, entry in enumerate(entries):
            if isinstance(entry, str):
                report = _rule_report(entry, with_warnings=list_name == "allow")
            else:
                report = {
                    "rule": json.dumps(entry),
                    "ok": False,
                    "canonical": None,
                    "tool": None,
                    "match": None,
                    "reject": {
                        "code": "invalid.grammar",
                        "message": f"the entry is a JSON {_json_kind(entry)}, not a rule string",
                    },
                    "warnings": [],
                }
            reports.append({"list": list_name, "index": index, **report})
    if as_json:
        _print_json(reports)
    else:
        click.echo(_shown(settings_path))
        for report in reports:
            for line in _render_report(report, f"  {report['list']}[{report['index']}]"):
                click.echo(f"  {line}" if line.startswith("  warning") else line)
        rejected = sum(1 for report in reports if not report["ok"])
        warned = sum(len(report["warnings"]) for report in reports)
        click.echo(
            f"{len(reports)} rule{'s' * (len(reports) != 1)}: {rejected} rejected,"
            f" {warned} warning{'s' * (warned != 1)}"
        )
    return exitcodes.NOT_ADMITTED if any(not r["ok"] for r in reports) else exitcodes.OK


def _json_kind(value: object) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):
        return "number"
    return "array" if isinstance(value, list) else "object"


def _load_settings(settings_path: str) -> list[tuple[str, list[object]]] | str:
    """The (list name, entries) pairs of a settings file, or a one-line reason it has none."""
    try:
        with open(settings_path, "rb") as handle:
            raw = handle.read()
    except OSError as error:
        return f"cannot read {settings_path!r}: {error.strerror or error}"
    try:
        document = json.loads(raw.decode("utf-8-sig"))
    except UnicodeDecodeError:
        return f"{settings_path!r} is not UTF-8 text"
    except json.JSONDecodeError as error:
        return (
            f"{settings_path!r} is not JSON: {error.msg} at line {error.lineno}"
            f" column {error.colno}"
        )
    except RecursionError:
        return f"{settings_path!r} is nested too deeply to read"
    if not isinstance(document, dict):
        return f"{settings_path!r} is not a settings file: the top level is not an object"
    permissions = document.get("permissions", {})
    if not isinstance(permissions, dict):
        return f"{settings_path!r}: 'permissions' is not an object"
    lists: list[tuple[str, list[object]]] = []
    for name in SETTINGS_LISTS:
        entries = permissions.get(name, [])
        if not isinstance(entries, list):
            return f"{settings_path!r}: 'permissions.{name}' is not a list"
        lists.append((name, entries))
    return lists
