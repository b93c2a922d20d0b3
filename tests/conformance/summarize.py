#!/usr/bin/env python3
"""Summarize the checks.json files the conformance CLI writes with ``-o DIR``.

    summarize.py [--strict-warnings] [--require-checks] [--cli-status N] [--stderr-tail N]
                 [--unscored] [--expect-scored N] [--require-unscored PREFIX] DIR

The CLI writes one folder per scenario (``server-<scenario>-<timestamp>/`` in server mode,
``<scenario>-<timestamp>/`` in client mode), each with ``checks.json``: a list of
``{id, name, description, status, errorMessage?, details?}`` where status is SUCCESS,
FAILURE, WARNING or INFO. Prints one line per scenario (``ok``, ``FAIL`` or ``warn``), every
FAILURE and WARNING check with its id and errorMessage (client mode: also the tail of the
client's stderr.txt for a failed scenario), then
``checks: N passed, M failed, W warnings (S scenarios)``.

A scenario also fails when --require-checks is given and it recorded no SUCCESS or FAILURE
check at all (client mode: the client never did what the scenario measures), and, with
--cli-status N (N != 0: the CLI's exit status for a single-scenario DIR), when the CLI failed
it anyway: the client exited non-zero or timed out (the reason is taken from DIR/cli.log).

With --unscored (the 0.2.0 ``--requirements`` legs), the scenarios DIR/cli.log lists after
``Not scored for <rev>:`` (extension and pending scenarios) are reported on their own lines
(``unscored ok`` / ``unscored FAIL``) and never fail the run; --expect-scored N also fails the
run unless exactly N scored scenarios ran and passed (a leg that ran fewer is not a pass).
--require-unscored PREFIX judges the unscored scenarios whose names start with PREFIX
(``auth/``: the authorization extensions) like scored ones: a failing one fails the run, and
``required unscored: N/M passed`` is printed.

Exit status: 1 when a scenario failed or no checks.json was found, else 0. Standard library
only.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

USAGE = (
    "[--strict-warnings] [--require-checks] [--cli-status N] [--stderr-tail N] [--unscored]"
    " [--expect-scored N] [--require-unscored PREFIX] DIR"
)
NOT_SCORED = re.compile(r"^Not scored for ")
NOT_SCORED_ITEM = re.compile(r"^\s+\S+\s+(\S+)(?:\s+\(.*\))?\s*$")


def print_problems(checks: list[dict], statuses: tuple[str, ...]) -> None:
    """One line per check with one of these statuses: its id, status and message."""
    for c in checks:
        if c.get("status") in statuses:
            msg = c.get("errorMessage") or c.get("description") or ""
            details = c.get("details")
            if not c.get("errorMessage") and isinstance(details, dict) and details.get("message"):
                msg = f"{msg} ({details['message']})"
            print(f"        - {c.get('id')} [{c.get('status')}]: {msg}")


def unscored_names(root: Path) -> set[str]:
    """The scenarios the CLI says it did not score (the block after ``Not scored for``)."""
    try:
        lines = (root / "cli.log").read_text(errors="replace").splitlines()
    except OSError:
        return set()
    names: set[str] = set()
    inside = False
    for line in lines:
        if NOT_SCORED.match(line):
            inside = True
            continue
        if inside:
            m = NOT_SCORED_ITEM.match(line)
            if not m:
                inside = False
                continue
            names.add(m.group(1))
    return names


TIMESTAMP = re.compile(r"-\d{4}-\d{2}-\d{2}T[0-9-]+Z$")


def scenario_name(folder: Path, root: Path) -> str:
    rel = folder.relative_to(root).as_posix()
    rel = TIMESTAMP.sub("", rel)
    return rel[len("server-") :] if rel.startswith("server-") else rel


def cli_reason(root: Path) -> str:
    """Why the CLI failed a scenario whose checks passed, from its log."""
    try:
        log = (root / "cli.log").read_text(errors="replace")
    except OSError:
        return "see cli.log"
    for pattern in ("CLIENT TIMED OUT", "Client timed out", "Client exited with code", "exceeded"):
        for line in log.splitlines():
            if pattern in line:
                return line.strip(" \u26a0\ufe0f")
    return "see cli.log"


def main(argv: list[str]) -> int:
    strict = False
    require = False
    cli_status = 0
    tail = 0
    unscored_mode = False
    expect = -1
    require_unscored: list[str] = []
    args: list[str] = []
    i = 0
    while i < len(argv):
        if argv[i] == "--strict-warnings":
            strict = True
        elif argv[i] == "--require-checks":
            require = True
        elif argv[i] == "--cli-status" and i + 1 < len(argv):
            cli_status = int(argv[i + 1])
            i += 1
        elif argv[i] == "--require-unscored" and i + 1 < len(argv):
            require_unscored.append(argv[i + 1])
            i += 1
        elif argv[i] == "--unscored":
            unscored_mode = True
        elif argv[i] == "--expect-scored" and i + 1 < len(argv):
            expect = int(argv[i + 1])
            i += 1
        elif argv[i] == "--stderr-tail" and i + 1 < len(argv):
            tail = int(argv[i + 1])
            i += 1
        else:
            args.append(argv[i])
        i += 1
    if len(args) != 1:
        print(f"usage: summarize.py {USAGE}", file=sys.stderr)
        return 2
    root = Path(args[0])
    files = sorted(root.rglob("checks.json"), key=lambda p: p.stat().st_mtime)
    if not files:
        print(f"  FAIL  no checks.json under {root} (the CLI ran no scenario; see {root}/cli.log)")
        try:
            for line in (root / "cli.log").read_text(errors="replace").strip().splitlines()[:6]:
                print(f"          | {line}")
        except OSError:
            pass
        return 1

    total = {"SUCCESS": 0, "FAILURE": 0, "WARNING": 0}
    bad_scenarios = 0
    skip = unscored_names(root) if unscored_mode else set()
    scored = scored_ok = 0
    unscored_run = unscored_bad = 0
    required_run = required_ok = 0
    for f in files:
        name = scenario_name(f.parent, root)
        if name in skip:
            try:
                checks = json.loads(f.read_text())
            except (OSError, ValueError):
                checks = []
            bad = sum(1 for c in checks if c.get("status") == "FAILURE")
            good = sum(1 for c in checks if c.get("status") == "SUCCESS")
            unscored_run += 1
            unscored_bad += 1 if bad else 0
            if any(name.startswith(p) for p in require_unscored):
                required_run += 1
                required_ok += 0 if bad else 1
                bad_scenarios += 1 if bad else 0
                tag = "FAIL " if bad else "ok   "
                print(f"  {tag} {name}: {good} passed, {bad} failed (unscored, required here)")
                print_problems(checks, ("FAILURE",))
                continue
            tag = "unscored FAIL" if bad else "unscored ok"
            print(f"  {tag} {name}: {good} passed, {bad} failed (not scored)")
            continue
        scored += 1
        try:
            checks = json.loads(f.read_text())
        except (OSError, ValueError) as exc:
            print(f"  FAIL  {name}: unreadable {f}: {exc}")
            bad_scenarios += 1
            continue
        counts = {"SUCCESS": 0, "FAILURE": 0, "WARNING": 0}
        for c in checks:
            st = c.get("status")
            if st in counts:
                counts[st] += 1
        for k in total:
            total[k] += counts[k]
        failed = counts["FAILURE"] > 0 or (strict and counts["WARNING"] > 0)
        reasons: list[str] = []
        if require and counts["SUCCESS"] + counts["FAILURE"] == 0:
            failed = True
            reasons.append("no check was recorded (the client never got that far)")
        if cli_status != 0 and len(files) == 1:
            failed = True
            reasons.append(f"the CLI failed the scenario (exit {cli_status}): {cli_reason(root)}")
        tag = "FAIL" if failed else ("warn" if counts["WARNING"] else "ok")
        if failed:
            bad_scenarios += 1
        else:
            scored_ok += 1
        extra = f", {counts['WARNING']} warnings" if counts["WARNING"] else ""
        print(f"  {tag:<5} {name}: {counts['SUCCESS']} passed, {counts['FAILURE']} failed{extra}")
        for r in reasons:
            print(f"        - {r}")
        print_problems(checks, ("FAILURE", "WARNING"))
        if failed and tail > 0:
            stderr = f.parent / "stderr.txt"
            if stderr.exists():
                lines = stderr.read_text(errors="replace").rstrip().splitlines()[-tail:]
                if lines:
                    print(f"        client stderr (last {len(lines)} lines):")
                    for line in lines:
                        print(f"          | {line}")

    print(
        f"checks: {total['SUCCESS']} passed, {total['FAILURE']} failed, {total['WARNING']} warnings "
        f"({scored} scenarios)"
    )
    if unscored_mode:
        print(f"scored: {scored_ok}/{scored} scenarios passed")
        print(f"unscored: {unscored_run} scenarios run, {unscored_bad} failing (reported, not scored)")
    if require_unscored:
        print(f"required unscored: {required_ok}/{required_run} passed ({', '.join(require_unscored)})")
    if expect >= 0 and scored != expect:
        print(f"  FAIL  expected {expect} scored scenarios, {scored} ran (see {root}/cli.log)")
        return 1
    return 1 if bad_scenarios else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
