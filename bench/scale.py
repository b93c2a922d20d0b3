#!/usr/bin/env python3
"""Replicas behind nginx, measured (issue 16): what a balancer and a shared Redis cost per call,
and what replicas buy on this machine.

    python3 bench/scale.py [--calls N] [--connections C] [--quick]

The server is the Rust bench server (`target/release/bench_server`, its `echo` tool) and the
load generator `target/release/httpload`; nginx and redis-server as `make peers` installs them
(tests/scale/run_scale.py starts the stack). Scenarios:

- modern (2026-07-28, stateless) echo: straight to one replica; through nginx to one; through
  nginx to three (no store: a modern call needs none);
- legacy (2025-11-25 session) echo through nginx: one replica with in-memory sessions; one
  replica with its sessions in Redis; three replicas sharing sessions in Redis (round-robin:
  most calls land on a replica that restores the session from Redis once, then serves it
  from its copy).

For each: calls/s, p50 and p99 latency, Redis commands per HTTP request (the server's
`total_commands_processed` before and after, over every request httpload made), and the CPU
time per request of each part (httpload, nginx, the replicas, Redis) from /proc. Writes
bench/SCALE.md (the report: the table between the markers is rewritten) and
bench/results/scale.json.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "tests" / "scale"))

import run_scale  # noqa: E402

RELEASE = Path(os.environ.get("HYPERMCP_BUILD") or REPO / "target" / "release")
TICK = os.sysconf("SC_CLK_TCK")


def cpu_s(pids: list[int]) -> float:
    """User + system CPU seconds of these processes (and their threads)."""
    total = 0
    for pid in pids:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += int(fields[11]) + int(fields[12])
    return total / TICK


def children(pid: int) -> list[int]:
    out = subprocess.run(["ps", "-o", "pid=", "--ppid", str(pid)], capture_output=True, text=True)
    return [int(x) for x in out.stdout.split()]


def redis_commands(port: int) -> int:
    for line in run_scale.redis_cli(port, "INFO", "stats").splitlines():
        if line.startswith("total_commands_processed:"):
            return int(line.split(":")[1])
    return 0


def measure(name: str, stack: run_scale.Stack, url: str, modern: bool, calls: int, connections: int) -> dict:
    nginx = [stack.nginx.pid, *children(stack.nginx.pid)] if stack.nginx else []
    replicas = [p.pid for p in stack.replicas.values()]
    redis = [stack.redis.pid] if stack.redis else []
    parts = {"nginx": nginx, "replicas": replicas, "redis": redis}
    before = {k: cpu_s(v) for k, v in parts.items()}
    cmds = redis_commands(stack.redis_port)
    cmd = [
        str(RELEASE / "httpload"),
        "--url",
        url,
        "--connections",
        str(connections),
        "--threads",
        "1",
        "--calls",
        str(calls),
        "--warmup",
        "500",
        "--json",
    ]
    if modern:
        cmd.append("--modern")
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    if r.returncode != 0:
        raise RuntimeError(f"{name}: httpload failed:\n{r.stdout}{r.stderr}")
    result = json.loads(r.stdout.strip().splitlines()[-1])
    requests = max(1, int(result.get("requests", calls)))
    used = redis_commands(stack.redis_port) - cmds - 1  # the INFO above
    after = {k: cpu_s(v) for k, v in parts.items()}
    row = {
        "scenario": name,
        "calls_per_s": round(result["calls_per_s"]),
        "p50_us": result["p50_us"],
        "p99_us": result["p99_us"],
        "failures": result["failures"],
        "requests": requests,
        "redis_cmds_per_request": round(max(0, used) / requests, 3),
        "cpu_us_per_request": {
            "httpload": round(result.get("client_cpu_us", 0), 1),
            **{k: round((after[k] - before[k]) * 1e6 / requests, 1) for k in parts},
        },
    }
    print(
        f"  {name}: {row['calls_per_s']} calls/s, p50 {row['p50_us']} us, p99 {row['p99_us']} us, "
        f"{row['redis_cmds_per_request']} Redis commands/request, CPU us/request {row['cpu_us_per_request']}"
    )
    return row


def scenario(
    rows: list[dict], name: str, replicas: int, store: bool, modern: bool, direct: bool, calls: int, conns: int
) -> None:
    stack = run_scale.Stack("rust", cmd=[str(RELEASE / "bench_server")], replicas=replicas, store=store)
    try:
        stack.start()
        url = f"http://127.0.0.1:{next(iter(stack.replicas))}/mcp" if direct else stack.url()
        rows.append(measure(name, stack, url, modern, calls, conns))
    finally:
        stack.stop()


TABLE_START = "<!-- scale:start -->"
TABLE_END = "<!-- scale:end -->"


def table(rows: list[dict], meta: dict) -> str:
    out = [
        TABLE_START,
        f"Measured {meta['when']} at `{meta['commit']}` on {meta['cpus']} CPUs: `python3 bench/scale.py` "
        f"({meta['calls']} calls over {meta['connections']} connections each).",
        "",
        "| scenario | calls/s | p50 µs | p99 µs | Redis cmds/request "
        "| CPU µs/request: httpload | nginx | replicas | Redis |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        c = r["cpu_us_per_request"]
        out.append(
            f"| {r['scenario']} | {r['calls_per_s']:,} | {r['p50_us']} | {r['p99_us']} | {r['redis_cmds_per_request']} "
            f"| {c['httpload']} | {c['nginx']} | {c['replicas']} | {c['redis']} |"
        )
    out.append(TABLE_END)
    return "\n".join(out)


def main() -> int:
    args = sys.argv[1:]
    calls, conns = 20000, 8
    if "--quick" in args:
        calls = 2000
    if "--calls" in args:
        calls = int(args[args.index("--calls") + 1])
    if "--connections" in args:
        conns = int(args[args.index("--connections") + 1])
    for tool in ("httpload", "bench_server"):
        if not (RELEASE / tool).exists():
            print(f"bench/scale.py: {RELEASE / tool} missing: make rust-bench", file=sys.stderr)
            return 1
    rows: list[dict] = []
    print("scale bench: modern echo")
    scenario(rows, "modern echo, direct to 1 replica", 1, False, True, True, calls, conns)
    scenario(rows, "modern echo, nginx -> 1 replica", 1, False, True, False, calls, conns)
    scenario(rows, "modern echo, nginx -> 3 replicas", 3, False, True, False, calls, conns)
    print("scale bench: legacy session echo")
    scenario(rows, "legacy echo, nginx -> 1 replica, sessions in memory", 1, False, False, False, calls, conns)
    scenario(rows, "legacy echo, nginx -> 1 replica, sessions in Redis", 1, True, False, False, calls, conns)
    scenario(rows, "legacy echo, nginx -> 3 replicas, sessions in Redis", 3, True, False, False, calls, conns)
    commit = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, cwd=REPO
    ).stdout.strip()
    meta = {
        "when": time.strftime("%Y-%m-%dT%H:%MZ", time.gmtime()),
        "commit": commit,
        "cpus": os.cpu_count(),
        "calls": calls,
        "connections": conns,
    }
    if "--quick" in args:
        print(table(rows, meta))
        return 0
    (REPO / "bench" / "results").mkdir(exist_ok=True)
    (REPO / "bench" / "results" / "scale.json").write_text(json.dumps({"meta": meta, "rows": rows}, indent=1))
    report = REPO / "bench" / "SCALE.md"
    text = report.read_text()
    start, end = text.index(TABLE_START), text.index(TABLE_END) + len(TABLE_END)
    report.write_text(text[:start] + table(rows, meta) + text[end:])
    print(f"scale bench: wrote {report.relative_to(REPO)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
