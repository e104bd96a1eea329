"""`toolgate rules`: two grammars, each answering its own question.

`lint` speaks Claude Code's own rule syntax (`toolgate_cli.claude_rules`): would Claude Code
accept these rules, and which are broad? `check`, `admits` and `import-report` speak the seeds'
persisted-rule grammar (`toolgate_cli.rules`, seed 003), a deliberately strict subset whose
reject codes say what the persisted lane cannot import. A thin click layer: it reads arguments
and files, calls the pure code and renders; nothing here decides.
"""

from __future__ import annotations

import json
import os
import unicodedata
from typing import Any

import click

from toolgate_cli import exitcodes
from toolgate_cli.claude_rules import RULE_LISTS, RuleLint, RuleList, lint_rules
from toolgate_cli.rules import (
    REJECT_CODES,
    Admission,
    ParsedRule,
    RuleReject,
    command_admission,
    lexical_normal_absolute_path_of,
    parse_allow_rule_text,
    path_admission,
    rule_breadth_warnings_of,
)

SETTINGS_LISTS = RULE_LISTS
"""The `permissions` lists of a Claude Code settings file that `lint` and `import-report` read,
in report order."""

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
    help="""Lint Claude Code permission rules, and check them against toolgate's rule grammar.

\b
Two grammars, two questions:
  lint SETTINGS.json           Claude Code's own rule syntax: would Claude Code
                               accept each rule, and which grant a lot?
  import-report SETTINGS.json  the seeds' persisted-rule grammar (seed 003):
                               which rules the persisted lane can import, and
                               why not, grouped by reject code
  check RULE...                the persisted grammar, one rule at a time
  admits RULE -- COMMAND       the persisted grammar: does RULE admit COMMAND?

\b
The persisted grammar is a strict subset of Claude Code's: two tools, four forms.
  Bash(git status)       exact: admits that one command
  Bash(npm run:*)        prefix: the command or the command plus more words
  Bash(npm run *)        wildcard: the same reach, never a chain
  Bash(cd /x && npm:*)   compound prefix (colon-star only)
  Read(//abs/dir/**)     subpath: reads under one absolute directory

\b
Example:
  toolgate rules lint .claude/settings.json
  toolgate rules check 'Bash(npm run:*)' 'Read(//srv/docs/**)'
"""
)
def rules() -> None:
    pass


@rules.command(
    "check",
    short_help="Parse rules in the persisted grammar: canonical form, reject, warnings.",
    help="""Parse each RULE in the seeds' persisted-rule grammar (not Claude Code's: use lint).

Prints each rule's canonical form and match form, or its reject code, and breadth warnings.

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
    short_help="Does a persisted-grammar RULE admit a COMMAND or a read of PATH?",
    help="""Does RULE admit a Bash COMMAND, or a read of PATH? RULE is in the persisted grammar.

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
    short_help="Lint a Claude Code settings file in Claude Code's own rule syntax.",
    help="""Lint permissions.allow, ask and deny of a Claude Code settings file, in Claude
Code's own rule syntax (every tool, paths, domain:, mcp__server__tool, Bash(x:*) and Bash(x *)).

\b
An error is a rule Claude Code skips, or one that can never match: an empty
or malformed rule, a mistyped or removed tool name, a specifier the tool does
not take, Bash(:*), :* in a path, a WebFetch rule without domain:, parentheses
on an MCP rule, a wildcard tool name in allow.
A warning is a rule that works and is wider or stranger than it looks: a whole
tool, a one-word prefix (Bash(npm *)), a chain, a bare interpreter
(Bash(python:*)), a '*' with no word boundary, at the start or before options,
a one-slash path that looks absolute (it is relative to the project), a rule
shadowed by a deny or ask rule. Breadth is judged on allow and ask rules only:
a wide deny rule only takes more away.
Checked against Claude Code's docs (code.claude.com/docs/en/permissions and
tools-reference) and the settings validation of claude 2.1.197.

\b
Exit status: 0 no errors (warnings do not fail), 1 any error, 2 the file is
missing, unreadable, not JSON or not shaped like a settings file.
--json prints a list of {"list", "index", "rule", "ok", "tool", "specifier",
"errors": [{"code", "message"}], "warnings": [{"code", "message"}]}.

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
    linted = lint_rules(loaded)
    if as_json:
        _print_json([_lint_record(record) for record in linted])
    else:
        click.echo(f"{_shown(settings_path)} (Claude Code's rule syntax)")
        for record in linted:
            for line in _render_lint(record):
                click.echo(line)
        errors = sum(len(record.errors) for record in linted)
        warnings = sum(len(record.warnings) for record in linted)
        click.echo(
            f"{_counted(len(linted), 'rule')}: {_counted(errors, 'error')},"
            f" {_counted(warnings, 'warning')}"
        )
    return exitcodes.OK if all(record.ok for record in linted) else exitcodes.NOT_ADMITTED


def _counted(count: int, noun: str) -> str:
    return f"{count} {noun}{'s' * (count != 1)}"


def _lint_record(record: RuleLint) -> dict[str, Any]:
    return {
        "list": record.list_name,
        "index": record.index,
        "rule": _json_text(record.rule),
        "ok": record.ok,
        "tool": None if record.tool is None else _json_text(record.tool),
        "specifier": None if record.specifier is None else _json_text(record.specifier),
        "errors": [{"code": f.code, "message": _json_text(f.message)} for f in record.errors],
        "warnings": [{"code": f.code, "message": _json_text(f.message)} for f in record.warnings],
    }


def _render_lint(record: RuleLint) -> list[str]:
    label = f"  {record.list_name}[{record.index}]"
    rule = _shown(record.rule)
    if record.errors:
        lines = [
            f"{label} error {finding.code}: {rule}: {_shown(finding.message)}"
            for finding in record.errors
        ]
    else:
        lines = [f"{label} ok: {rule}"]
    lines.extend(
        f"    warning {finding.code}: {_shown(finding.message)}" for finding in record.warnings
    )
    return lines


@rules.command(
    "import-report",
    short_help="Which rules of a settings file the persisted lane can import, and why not.",
    help="""Which rules of a Claude Code settings file can the persisted lane import, and why
not? Every entry of permissions.allow, ask and deny is parsed with the seeds' persisted-rule
grammar (the one `rules check` speaks, seed 003), and the ones it refuses are grouped by
reject code.

\b
A rule it refuses may be a good Claude Code rule (Edit(src/**), Read(./.env),
WebFetch(domain:x)): the grammar is a strict subset, so that the persisted lane
carries only rules whose reach it can state exactly. To ask whether Claude Code
accepts a rule, use `toolgate rules lint`.
Breadth warnings are given for importable allow rules only.

\b
Exit status: 0 every rule can be imported, 1 some cannot, 2 the file is missing,
unreadable, not JSON or not shaped like a settings file.
--json prints {"rules": [check's records with "list" and "index" added],
"rejected_by_code": {CODE: [{"list", "index", "rule"}]}} (codes in reject-code
order, only those that occur).

\b
Example:
  toolgate rules import-report .claude/settings.json
  toolgate rules import-report --json .claude/settings.local.json
""",
)
@click.option("--json", "as_json", is_flag=True, help="Print a JSON object instead of text.")
@click.argument("settings_path", metavar="SETTINGS.json")
def import_report(as_json: bool, settings_path: str) -> int:
    loaded = _load_settings(settings_path)
    if isinstance(loaded, str):
        return _fail("import-report", loaded)
    reports: list[dict[str, Any]] = []
    for list_name, entries in loaded:
        for index, entry in enumerate(entries):
            if isinstance(entry, str):
                report = _rule_report(entry, with_warnings=list_name == "allow")
            else:
                report = _not_a_string_report(entry)
            reports.append({"list": list_name, "index": index, **report})
    by_code: dict[str, list[dict[str, Any]]] = {}
    for code in REJECT_CODES:
        rejected = [
            {"list": r["list"], "index": r["index"], "rule": r["rule"]}
            for r in reports
            if not r["ok"] and r["reject"]["code"] == code
        ]
        if rejected:
            by_code[code] = rejected
    if as_json:
        _print_json({"rules": reports, "rejected_by_code": by_code})
    else:
        _print_import_report(settings_path, reports)
    return exitcodes.NOT_ADMITTED if by_code else exitcodes.OK


def _not_a_string_report(entry: object) -> dict[str, Any]:
    return {
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


def _print_import_report(settings_path: str, reports: list[dict[str, Any]]) -> None:
    importable = [r for r in reports if r["ok"]]
    refused = [r for r in reports if not r["ok"]]
    click.echo(
        f"{_shown(settings_path)}: {len(importable)} of {_counted(len(reports), 'rule')}"
        " can be imported (the persisted-rule grammar, seed 003)"
    )
    if importable:
        click.echo("importable:")
        for report in importable:
            for line in _render_report(report, f"  {report['list']}[{report['index']}]"):
                click.echo(f"  {line}" if line.startswith("  warning") else line)
    if refused:
        click.echo("not importable, by reject code:")
    for code in REJECT_CODES:
        group = [r for r in refused if r["reject"]["code"] == code]
        if not group:
            continue
        click.echo(f"  {code} ({len(group)}):")
        for report in group:
            click.echo(
                f"    {report['list']}[{report['index']}] {_shown(str(report['rule']))}:"
                f" {_shown(report['reject']['message'])}"
            )


def _json_kind(value: object) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):
        return "number"
    return "array" if isinstance(value, list) else "object"


def _load_settings(settings_path: str) -> list[tuple[RuleList, list[object]]] | str:
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
    lists: list[tuple[RuleList, list[object]]] = []
    for name in SETTINGS_LISTS:
        entries = permissions.get(name, [])
        if not isinstance(entries, list):
            return f"{settings_path!r}: 'permissions.{name}' is not a list"
        lists.append((name, entries))
    return lists
