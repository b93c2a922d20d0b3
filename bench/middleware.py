"""What middleware costs a call: each server with and without it, in turns, on the echo.

For every language (and FastMCP, as the peer), one build of its bench server runs the echo
plain and with a middleware configuration, the two alternating in each round (versus.py's
rounds: a busy moment on this shared machine falls on both alike):

  link      one pass-through `on_call_tool` middleware, written the way each SDK documents
            (BENCH_MIDDLEWARE=1, bench/servers/README.md);
  builtins  the logging and timing built-ins (BENCH_BUILTINS=1: hypermcp's run in the
            engine; FastMCP's `LoggingMiddleware` and `TimingMiddleware`), their log lines
            sent nowhere (the loggers' level above them), as a server runs with logging off;

over stdio (`loadgen`, sequential) and HTTP (`httpload`, one connection), and, with
--callgrind, the instructions per stdio echo (the difference of two runs under callgrind).
The targets (issue 42): with one link, Rust within 5% and Python and Node within 15% of the
plain echo; with the built-ins, within 10%.

Needs `make bench-build` (release binaries, the Python package and the Node addon) and, for
FastMCP, `make bench-peers`. Writes bench/results/middleware-<date>.json and .md.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import time
from pathlib import Path

from versus import HTTPLOAD, LOADGEN, ROOT, Builds, callgrind_total, in_turns, say

PEERS = Path(os.environ.get("PEERS", ROOT / ".peers"))
FASTMCP_PY = PEERS / "bench" / "fastmcp-venv" / "bin" / "python"
VARIANTS = {"link": "BENCH_MIDDLEWARE", "builtins": "BENCH_BUILTINS"}
CALLS = {"rust": (2000, 400), "python": (1000, 200), "node": (6000, 1000), "fastmcp": (400, 100)}


def command(lang: str) -> list[str]:
    if lang == "fastmcp":
        return [str(FASTMCP_PY), str(ROOT / "bench" / "servers" / "fastmcp_server.py")]
    return Builds.new(lang)


def instructions(lang: str, variable: str, work: Path) -> dict:
    """Instructions per stdio echo, plain and with `variable` set."""
    out = {}
    for label, on in (("plain", False), ("with", True)):
        if on:
            os.environ[variable] = "1"
        try:
            a, b = (
                callgrind_total(command(lang), "stdio", n, work / f"cg-{lang}-{label}-{n}.out") for n in CALLS[lang]
            )
        finally:
            os.environ.pop(variable, None)
        out[label] = round((a - b) / (CALLS[lang][0] - CALLS[lang][1]))
    out["ratio"] = out["with"] / out["plain"]
    return out


def report(res: dict) -> str:
    lines = [
        f"# Middleware cost, {res['date']} (`{res['head']}`)",
        "",
        f"{res['rounds']} rounds of {res['seconds']} s, each configuration in turn with the plain echo.",
        "",
        "| server | middleware | scenario | calls/s plain -> with | with ÷ plain (paired) |",
        "|---|---|---|---|---|",
    ]
    for lang, variants in res["langs"].items():
        for variant, scenarios in variants.items():
            for s, r in scenarios.items():
                lines.append(
                    f"| {lang} | {variant} | {s} | {r['old']:,.0f} -> {r['new']:,.0f} "
                    f"| {r['ratio']:.1%} ({r['paired']:.1%}) |"
                )
    if res["instructions"]:
        lines += ["", "| server | middleware | instructions per stdio echo, plain -> with | |", "|---|---|---|---|"]
        for lang, variants in res["instructions"].items():
            for variant, c in variants.items():
                lines.append(f"| {lang} | {variant} | {c['plain']:,} -> {c['with']:,} | {c['ratio'] - 1:+.1%} |")
    return "\n".join(lines) + "\n"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--langs", default="rust,python,node,fastmcp")
    ap.add_argument("--variants", default="link,builtins")
    ap.add_argument("--scenarios", default="stdio,http-1")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--seconds", type=float, default=1.5)
    ap.add_argument("--callgrind", default="rust", help="whose instructions are counted ('' for none)")
    args = ap.parse_args()
    for tool in (HTTPLOAD, LOADGEN):
        if not tool.exists():
            sys.exit(f"middleware: {tool} is missing: run `make bench-build` first")
    langs = [x for x in args.langs.split(",") if x]
    if "fastmcp" in langs and not FASTMCP_PY.exists():
        say(f"middleware: no FastMCP at {FASTMCP_PY} (make bench-peers installs it): left out")
        langs.remove("fastmcp")
    variants = [v for v in args.variants.split(",") if v]
    if any(v not in VARIANTS for v in variants):
        sys.exit(f"middleware: --variants takes {', '.join(VARIANTS)}, not {args.variants}")
    scenarios = [s for s in args.scenarios.split(",") if s]
    counted = [x for x in args.callgrind.split(",") if x]
    if counted and not shutil.which("valgrind"):
        say("middleware: no valgrind (make bench-peers installs it): no instructions counted")
        counted = []
    head = os.popen(f"git -C {ROOT} rev-parse --short=8 HEAD").read().strip()
    res: dict = {
        "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "head": head,
        "rounds": args.rounds,
        "seconds": args.seconds,
        "langs": {},
        "instructions": {},
    }
    work = ROOT / "bench" / "results" / "middleware"
    work.mkdir(parents=True, exist_ok=True)
    for lang in langs:
        res["langs"][lang] = {}
        for variant in variants:
            variable = VARIANTS[variant]
            # The same server, its configuration set by the environment of its command.
            commands = {"old": command(lang), "new": ["env", f"{variable}=1", *command(lang)]}
            say(f"{lang}: plain and {variant} in turns")
            res["langs"][lang][variant] = in_turns(lang, commands, args.rounds, args.seconds, scenarios)
            if lang in counted:
                res["instructions"].setdefault(lang, {})[variant] = instructions(lang, variable, work)
    stamp = res["date"].replace("-", "").replace(":", "")
    out = ROOT / "bench" / "results" / f"middleware-{stamp}"
    out.with_suffix(".json").write_text(json.dumps(res, indent=1) + "\n")
    text = report(res)
    out.with_suffix(".md").write_text(text)
    print(text)
    say(f"results: {out.with_suffix('.json').relative_to(ROOT)} and .md")


if __name__ == "__main__":
    main()
