#!/usr/bin/env python3
"""The hypermcp benchmark suite (`make bench`).

Measures every system of bench/servers/README.md (hypermcp in Rust, Python and Node;
the official Python SDK, FastMCP, the official TypeScript SDK and rmcp) in every
scenario of issue 6, then writes bench/results/bench-<time>.json, copies it to
bench/latest.json and renders bench/README.md and bench/chart.png from it
(bench/report.py).

Scenarios
  stdio    echo sequential (one call at a time) and with 64 in flight; tools/list of
           50 tools and resources/read of a 1 MiB text, sequential; time from spawn to
           the initialize answer and idle RSS 0.5 s after it (target/release/loadgen),
           also for each runtime's floor and hypermcp's one-tool example servers.
           Sequential runs pin the server and loadgen to one CPU (PIN_SEQ): on this
           kind of VM a wake-up across cores costs ~40 us and would dominate.
  http     Streamable HTTP echo at 1 and 50 connections, and bytes per idle session
           (bench/http.sh around target/release/httpload), for each system's stateful
           mode and its stateless JSON mode where it has one.
  modern   2026-07-28 MRTR round trips and the listen fan-out (bench/modern.sh).
  eras     hypermcp's servers only: the 2026-07-28 HTTP echo against the legacy stateless
           one at 1 and 50 connections, in turns (bench/eras.py).
  rivals   hypermcp-rust and rmcp side by side: the 2026-07-28 echo and MRTR round trips
           at 50 connections, in turns (bench/rivals.py; issue 13's "3x rmcp").
  secure   hypermcp's servers only: the HTTP echo at 50 connections unauthenticated, as an
           OAuth resource server (a JWT on every request, verified against a cached JWKS)
           and over HTTPS, in turns (bench/secure.py).
  engine   tools/list of 50 tools inside the hypermcp engine, no I/O
           (target/release/enginebench).

Every figure is the median of several runs (--runs); the number of calls per run is
chosen from a short probe so that each run lasts about --seconds.

Usage: bench/run.py [--quick] [--runs N] [--seconds S] [--only a,b] [--skip stdio,http,engine]
                    [--parts secure] [--merge] [--report-only RESULTS.json]
A partial run (--only, --skip, --parts) writes bench/results/ only, unless --merge: then its
parts replace those of bench/latest.json (the others are kept) and the report is rendered.
Needs what `make bench` builds first (release binaries, .venv, node addon, .peers).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shlex
import shutil
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TARGET = Path(os.environ.get("HYPERMCP_BUILD") or Path(os.environ.get("CARGO_TARGET_DIR", ROOT / "target")) / "release")
PEERS = Path(os.environ.get("PEERS", ROOT / ".peers"))
SERVERS = ROOT / "bench" / "servers"
RESULTS = ROOT / "bench" / "results"
# The (ours, peer) pairs the rivals part measures in turns: issue 13 wants hypermcp-rust at
# least 3x rmcp, the nearest of the ratios it sets.
RIVALS = (("hypermcp-rust", "rmcp"),)


@dataclass
class System:
    label: str
    language: str
    ours: bool
    command: list[str]
    stateless_json: bool = True
    # Serves the 2026-07-28 revision over HTTP (measured as "<label>-modern").
    modern: bool = False
    # Measured over HTTP in its legacy session mode too (a modern-only peer is not).
    http_legacy: bool = True
    version: str = ""
    missing: str = ""
    notes: list[str] = field(default_factory=list)

    def argv(self) -> list[str]:
        return list(self.command)


def read_version_file(path: Path, key: str = "version") -> str:
    try:
        return str(json.loads(path.read_text())[key])
    except (OSError, ValueError, KeyError):
        return "?"


def py_dist_version(python: Path, dist: str) -> str:
    try:
        out = subprocess.run(
            [str(python), "-c", f"import importlib.metadata as m; print(m.version({dist!r}))"],
            capture_output=True,
            text=True,
            timeout=30,
        )
        return out.stdout.strip() or "?"
    except (OSError, subprocess.TimeoutExpired):
        return "?"


def cargo_lock_version(lock: Path, crate: str) -> str:
    try:
        lines = lock.read_text().splitlines()
    except OSError:
        return "?"
    for i, line in enumerate(lines):
        if line.strip() == f'name = "{crate}"' and i + 1 < len(lines):
            return lines[i + 1].split('"')[1]
    return "?"


def systems() -> list[System]:
    venv_py = ROOT / ".venv" / "bin" / "python"
    peers_py = PEERS / "venv" / "bin" / "python"
    fastmcp_py = PEERS / "bench" / "fastmcp-venv" / "bin" / "python"
    rmcp_bin = PEERS / "bench" / "rmcp-target" / "release" / "rmcp-bench-server"
    ours_version = read_version_file(ROOT / "package.json")
    out = [
        System("hypermcp-rust", "Rust", True, [str(TARGET / "bench_server")], modern=True, version=ours_version),
        System(
            "rmcp",
            "Rust",
            False,
            [str(rmcp_bin)],
            modern=True,
            version=cargo_lock_version(SERVERS / "rmcp" / "Cargo.lock", "rmcp"),
        ),
        System(
            "hypermcp-python",
            "Python",
            True,
            [str(venv_py), str(SERVERS / "hypermcp_server.py")],
            modern=True,
            version=ours_version,
        ),
        System(
            "official-python",
            "Python",
            False,
            [str(peers_py), str(SERVERS / "official_python.py")],
            modern=True,
            version=py_dist_version(peers_py, "mcp"),
        ),
        System(
            "fastmcp",
            "Python",
            False,
            [str(fastmcp_py), str(SERVERS / "fastmcp_server.py")],
            version=py_dist_version(fastmcp_py, "fastmcp"),
        ),
        System(
            "hypermcp-node",
            "Node",
            True,
            ["node", str(SERVERS / "hypermcp_server.mjs")],
            modern=True,
            version=ours_version,
        ),
        System(
            "official-typescript",
            "Node",
            False,
            ["node", str(SERVERS / "official_ts.mjs")],
            version=read_version_file(
                PEERS / "npm" / "node_modules" / "@modelcontextprotocol" / "sdk" / "package.json"
            ),
        ),
        System(
            "official-typescript-v2",
            "Node",
            False,
            ["node", str(SERVERS / "official_ts_v2.mjs")],
            stateless_json=False,
            modern=True,
            http_legacy=False,
            version=read_version_file(
                PEERS / "npm" / "node_modules" / "@modelcontextprotocol" / "server" / "package.json"
            ),
        ),
    ]
    for s in out:
        exe, script = s.command[0], s.command[-1]
        if "/" in exe and not os.access(exe, os.X_OK):
            s.missing = f"{exe} not found"
        elif "/" not in exe and not shutil.which(exe):
            s.missing = f"{exe} not on PATH"
        elif len(s.command) > 1 and not Path(script).exists():
            s.missing = f"{script} not found"
    return out


def startup_only() -> list[System]:
    """Measured for start-up and idle RSS only (see Bench.stdio)."""
    venv_py = str(ROOT / ".venv" / "bin" / "python")
    return [
        System("floor-python", "Python", False, [venv_py, str(SERVERS / "floor.py")]),
        System("floor-node", "Node", False, ["node", str(SERVERS / "floor.mjs")]),
        System("hypermcp-rust-echo", "Rust", True, [str(TARGET / "examples" / "echo_server")]),
        System("hypermcp-python-echo", "Python", True, [venv_py, str(ROOT / "examples" / "python" / "echo_server.py")]),
        System("hypermcp-node-echo", "Node", True, ["node", str(ROOT / "examples" / "node" / "echo_server.mjs")]),
    ]


def note(msg: str) -> None:
    print(f"note: {msg}", file=sys.stderr, flush=True)


def say(msg: str, end: str = "\n") -> None:
    print(msg, end=end, file=sys.stderr, flush=True)


# --------------------------------------------------------------------------- stdio


class Bench:
    def __init__(self, args: argparse.Namespace):
        self.args = args
        self.loadgen = TARGET / "loadgen"
        self.failures: list[str] = []
        self.pin = ["taskset", "-c", args.pin_seq] if args.pin_seq and shutil.which("taskset") else []

    def run_loadgen(
        self, argv: list[str], command: list[str], pin: bool, timeout: float
    ) -> tuple[dict | None, list[dict], str]:
        full = (self.pin if pin else []) + [str(self.loadgen), "--json", *argv, "--", *command]
        try:
            proc = subprocess.run(full, capture_output=True, text=True, timeout=timeout, cwd=ROOT)
        except subprocess.TimeoutExpired:
            return None, [], f"timed out after {timeout:.0f} s"
        lines = [json.loads(x) for x in proc.stdout.splitlines() if x.startswith("{")]
        err = proc.stderr.strip()
        if proc.returncode != 0:
            return (lines[-1] if lines else None), lines, f"exit {proc.returncode}: {err[-600:]}"
        if not lines:
            return None, [], f"no output: {err[-600:]}"
        return lines[-1], lines, ""

    def stdio_case(
        self, sys_: System, name: str, extra: list[str], inflight: int, probe_calls: int, floor: bool = False
    ) -> dict | None:
        """Probe, then --runs measured runs sized to --seconds each; returns the median line."""
        pin = inflight == 1
        base = [*extra, "--inflight", str(inflight), "--timeout", "30"]
        if floor:
            base.append("--floor")
        say(f"{sys_.label}, stdio {name} ... ", end="")
        probe, _, err = self.run_loadgen(
            [*base, "--calls", str(probe_calls), "--warmup", str(max(probe_calls // 4, 5)), "--runs", "1"],
            sys_.argv(),
            pin,
            300,
        )
        if err or not probe:
            say(f"FAILED in the probe ({err})")
            self.failures.append(f"{sys_.label} stdio {name}: {err}")
            return None
        rate = float(probe.get("calls_per_s") or 0)
        calls = int(min(max(rate * self.args.seconds, probe_calls), self.args.max_calls))
        # A fifth of the calls, at least 2,000 where the probe allows: JIT runtimes (Node) are
        # still compiling the hot path after a few hundred calls.
        warmup = max(min(calls // 5, 20_000), min(2_000, calls), 10)
        last, lines, err = self.run_loadgen(
            [*base, "--calls", str(calls), "--warmup", str(warmup), "--runs", str(self.args.runs)],
            sys_.argv(),
            pin,
            120 + self.args.runs * (self.args.seconds * 20 + 30),
        )
        if err or not last:
            say(f"FAILED ({err})")
            self.failures.append(f"{sys_.label} stdio {name}: {err}")
            return None
        last["runs_detail"] = (
            [x.get("calls_per_s") for x in lines[:-1]] if len(lines) > 1 else [last.get("calls_per_s")]
        )
        say(f"{last.get('calls_per_s', 0):,.0f} calls/s, p50 {last.get('p50_us')} µs, p99 {last.get('p99_us')} µs")
        return last

    def startups(self, systems_: list[System]) -> dict[str, dict | None]:
        """spawn -> initialize answer and idle RSS 0.5 s later, median of --startup-runs spawns.

        The systems of one language take turns, one spawn each per round: a few milliseconds
        of start-up are at the mercy of the machine's neighbours, and a quiet or busy minute
        then falls on all of them alike instead of on whichever ran in it."""
        out: dict[str, dict | None] = {}
        for lang in dict.fromkeys(s.language for s in systems_):
            group = [s for s in systems_ if s.language == lang]
            say(f"{lang}: start-up and idle RSS, {len(group)} systems in turn ... ")
            inits: dict[str, list[float]] = {s.label: [] for s in group}
            rss: dict[str, list[int]] = {s.label: [] for s in group}
            failed: set[str] = set()
            for _ in range(self.args.startup_runs):
                for s in group:
                    if s.label in failed:
                        continue
                    last, _, err = self.run_loadgen(
                        ["--calls", "0", "--warmup", "0", "--runs", "1", "--rss-after", "500"], s.argv(), False, 120
                    )
                    if err or not last:
                        say(f"  {s.label}: FAILED ({err})")
                        self.failures.append(f"{s.label} startup: {err}")
                        failed.add(s.label)
                        continue
                    inits[s.label].append(float(last["init_ms"]))
                    rss[s.label].append(int(last["rss_kb"]))
            for s in group:
                if s.label in failed:
                    out[s.label] = None
                    continue
                out[s.label] = {
                    "init_ms": statistics.median(inits[s.label]),
                    "init_ms_runs": inits[s.label],
                    "rss_kb": statistics.median(rss[s.label]),
                    "rss_kb_runs": rss[s.label],
                }
                say(
                    f"  {s.label}: initialize in {out[s.label]['init_ms']:.1f} ms, "
                    f"idle RSS {out[s.label]['rss_kb'] / 1024:.1f} MiB"
                )
        return out

    def stdio(self, systems_: list[System]) -> dict:
        res: dict[str, dict] = {}
        floor = System("floor", "-", False, ["cat"])
        res["floor"] = {
            "echo-seq": self.stdio_case(floor, "floor sequential", [], 1, 2000, floor=True),
            "echo-64": self.stdio_case(floor, "floor 64 in flight", [], 64, 2000, floor=True),
        }
        for s in systems_:
            r: dict[str, dict | None] = {}
            r["echo-seq"] = self.stdio_case(s, "echo sequential", ["--scenario", "echo"], 1, 300)
            r["echo-64"] = self.stdio_case(s, "echo 64 in flight", ["--scenario", "echo"], 64, 600)
            r["list-seq"] = self.stdio_case(
                s, "tools/list sequential", ["--scenario", "list", "--expect-tools", "50"], 1, 100
            )
            r["read-seq"] = self.stdio_case(s, "1 MiB resources/read sequential", ["--scenario", "read"], 1, 10)
            res[s.label] = r
        # Start-up also for each language's floor (the runtime answering initialize and
        # nothing more) and hypermcp's one-tool example servers (the start-up targets).
        extras = [e for e in startup_only() if e.language in {s.language for s in systems_}]
        for label, st in self.startups(systems_ + extras).items():
            res.setdefault(label, {})["startup"] = st
        return res

    # ----------------------------------------------------------------------- http

    def http(self, systems_: list[System]) -> dict | None:
        entries = []
        for s in systems_:
            cmd = " ".join(shlex.quote(x) for x in s.argv())
            if s.http_legacy:
                entries.append(f"{s.label}={cmd} --http {{PORT}}")
            if s.stateless_json:
                entries.append(f"{s.label}-stateless={cmd} --http {{PORT}} --stateless-json|-")
            if s.modern:
                entries.append(f"{s.label}-modern={cmd} --http {{PORT}}|-")
        env = dict(
            os.environ,
            BUILD="0",
            SYSTEMS=";".join(entries),
            TARGETS="",
            MEM_TARGET_SYSTEMS="",
            DURATION=str(self.args.http_seconds),
            RUNS=str(self.args.runs),
            SESSIONS=str(self.args.sessions),
            PIN_SEQ=self.args.pin_seq,
        )
        say(f"HTTP: {len(entries)} server configurations (bench/http.sh)")
        return self.script("http", env)

    def script(self, part: str, env: dict) -> dict | None:
        """Runs bench/PART.sh, shows its progress (stderr) and loads the results file its last
        `results: PATH ...` line names; a failure is recorded."""
        proc = subprocess.run(
            ["bash", str(ROOT / "bench" / f"{part}.sh")],
            env=env,
            cwd=ROOT,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
        sys.stderr.write("".join("    " + x + "\n" for x in proc.stderr.splitlines()))
        path = None
        for line in proc.stderr.splitlines():
            if line.startswith("results: "):
                path = ROOT / line.split()[1]
        if proc.returncode != 0:
            self.failures.append(f"{part}: bench/{part}.sh exited {proc.returncode}")
        if not path or not path.exists():
            self.failures.append(f"{part}: no results file")
            return None
        return json.loads(path.read_text())

    # --------------------------------------------------------------------- modern

    def modern(self, systems_: list[System]) -> dict | None:
        """bench/modern.sh: MRTR round trips and the listen fan-out of every 2026-07-28 server."""
        entries = [
            f"{s.label}={' '.join(shlex.quote(x) for x in s.argv())} --http {{PORT}}" for s in systems_ if s.modern
        ]
        quick = self.args.quick
        env = dict(
            os.environ,
            SYSTEMS=";".join(entries),
            DURATION=str(self.args.http_seconds),
            RUNS=str(self.args.runs),
            LISTENERS="100" if quick else "1000",
            TRIGGERS="1" if quick else "5",
        )
        say(f"2026-07-28 MRTR and listen fan-out: {len(entries)} servers (bench/modern.sh)")
        return self.script("modern", env)

    # --------------------------------------------------------------------- secure

    def secure(self, systems_: list[System]) -> dict | None:
        """bench/secure.py: each hypermcp server plain, authenticated and over HTTPS."""
        from secure import Secure

        ours = [(s.label, s.argv()) for s in systems_ if s.ours]
        if not ours:
            return None
        rounds = 1 if self.args.quick else self.args.secure_rounds
        return Secure(TARGET / "httpload", self.args.http_seconds, rounds, say, self.failures.append).run(ours)

    # --------------------------------------------------------------------- eras

    def eras(self, systems_: list[System]) -> dict | None:
        """bench/eras.py: each hypermcp server's 2026-07-28 echo and legacy stateless echo, in turns."""
        from eras import Eras

        ours = [(s.label, s.argv()) for s in systems_ if s.ours and s.modern]
        if not ours:
            return None
        rounds = 1 if self.args.quick else self.args.eras_rounds
        return Eras(TARGET / "httpload", self.args.http_seconds, rounds, say, self.failures.append).run(ours)

    # --------------------------------------------------------------------- rivals

    def rivals(self, systems_: list[System]) -> dict | None:
        """bench/rivals.py: hypermcp-rust and rmcp side by side, the 2026-07-28 echo and MRTR."""
        from rivals import Rivals

        by = {s.label: s for s in systems_}
        pairs = [(ours, by[ours].argv(), peer, by[peer].argv()) for ours, peer in RIVALS if ours in by and peer in by]
        if not pairs:
            return None
        rounds = 1 if self.args.quick else self.args.secure_rounds
        return Rivals(TARGET / "httpload", self.args.http_seconds, rounds, say, self.failures.append).run(pairs)

    # --------------------------------------------------------------------- engine

    def engine(self) -> dict | None:
        exe = TARGET / "enginebench"
        if not exe.exists():
            note(f"{exe} not found; engine figures skipped")
            return None
        say("engine, tools/list of 50 tools without I/O ... ", end="")
        proc = subprocess.run([str(exe)], capture_output=True, text=True, timeout=300, cwd=ROOT)
        lines = [json.loads(x) for x in proc.stdout.splitlines() if x.startswith("{")]
        if proc.returncode != 0 or not lines:
            say(f"FAILED (exit {proc.returncode}: {proc.stderr.strip()[-400:]})")
            self.failures.append("engine bench failed")
            return None
        say(", ".join(f"{x.get('scenario')}: p50 {x.get('p50_us')} µs" for x in lines))
        return {x.get("scenario", f"case{i}"): x for i, x in enumerate(lines)}


def machine() -> dict:
    cpu = "?"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    mem_kb = 0
    try:
        mem_kb = int(Path("/proc/meminfo").read_text().split()[1])
    except (OSError, ValueError, IndexError):
        pass

    def tool_version(argv: list[str]) -> str:
        try:
            return subprocess.run(argv, capture_output=True, text=True, timeout=20).stdout.strip().splitlines()[0]
        except (OSError, IndexError, subprocess.TimeoutExpired):
            return "?"

    commit = tool_version(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"])
    # The suite's own outputs do not make a checkout dirty.
    outputs = ("bench/README.md", "bench/latest.json", "bench/chart.png")
    dirty = [
        line
        for line in subprocess.run(
            ["git", "-C", str(ROOT), "status", "--porcelain", "--untracked-files=no"], capture_output=True, text=True
        ).stdout.splitlines()
        if line[3:] not in outputs
    ]
    return {
        "cpu": cpu,
        "cpus": os.cpu_count(),
        "memory_gib": round(mem_kb / 1024 / 1024, 1),
        "kernel": platform.release(),
        "rustc": tool_version(["rustc", "--version"]),
        "python": tool_version([str(ROOT / ".venv" / "bin" / "python"), "--version"]),
        "node": tool_version(["node", "--version"]),
        "commit": commit + ("+dirty" if dirty else ""),
        "loadavg_before": Path("/proc/loadavg").read_text().split()[:3],
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=int(os.environ.get("BENCH_RUNS", 3)))
    ap.add_argument(
        "--seconds",
        type=float,
        default=float(os.environ.get("BENCH_SECONDS", 1.2)),
        help="target length of one stdio run",
    )
    ap.add_argument("--http-seconds", type=float, default=float(os.environ.get("BENCH_HTTP_SECONDS", 1.5)))
    ap.add_argument(
        "--sessions",
        type=int,
        default=int(os.environ.get("BENCH_SESSIONS", 1000)),
        help="idle HTTP sessions per memory batch (two batches)",
    )
    ap.add_argument("--startup-runs", type=int, default=9)
    ap.add_argument("--max-calls", type=int, default=400_000)
    ap.add_argument("--pin-seq", default=os.environ.get("PIN_SEQ", "0"))
    ap.add_argument("--quick", action="store_true", help="one short run each (a smoke test, not a measurement)")
    ap.add_argument("--only", default="", help="comma-separated system labels")
    ap.add_argument(
        "--skip",
        default="",
        help="comma-separated parts to skip: engine, stdio, http, modern, eras, rivals, secure",
    )
    ap.add_argument("--parts", default="", help="comma-separated parts to run (default: all)")
    ap.add_argument(
        "--secure-rounds",
        type=int,
        default=int(os.environ.get("BENCH_SECURE_ROUNDS", 7)),
        help="rounds of the secure and rivals parts (each configuration once per round)",
    )
    ap.add_argument(
        "--eras-rounds",
        type=int,
        default=int(os.environ.get("BENCH_ERAS_ROUNDS", 15)),
        help="rounds of the eras part (its 1-connection rate is a latency, noisier than the rest)",
    )
    ap.add_argument(
        "--merge",
        action="store_true",
        help="a partial run: its parts replace those of bench/latest.json, and the report is rendered",
    )
    ap.add_argument("--report-only", metavar="RESULTS_JSON", help="render the report from an earlier results file")
    args = ap.parse_args()
    if args.quick:
        args.runs, args.seconds, args.http_seconds, args.sessions, args.startup_runs = 1, 0.2, 0.3, 100, 1

    if args.report_only:
        return render(Path(args.report_only))

    all_systems = systems()
    chosen = [s for s in all_systems if not args.only or s.label in args.only.split(",")]
    skip = set(filter(None, args.skip.split(",")))
    known = ("engine", "stdio", "http", "modern", "eras", "rivals", "secure")
    wanted = set(filter(None, args.parts.split(",")))
    if (skip | wanted) - set(known):
        ap.error(f"unknown parts {', '.join(sorted((skip | wanted) - set(known)))} (known: {', '.join(known)})")
    if wanted:
        skip |= set(known) - wanted
    if args.merge and (args.quick or args.only):
        ap.error("--merge takes whole parts of a real run: not with --quick or --only")
    for s in chosen:
        if s.missing:
            note(f"{s.label}: {s.missing}; skipped (make bench installs every peer)")
    ready = [s for s in chosen if not s.missing]
    started = time.time()
    meta = machine()
    bench = Bench(args)
    out = {
        "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "machine": meta,
        "config": {
            "runs": args.runs,
            "seconds": args.seconds,
            "http_seconds": args.http_seconds,
            "sessions": args.sessions,
            "startup_runs": args.startup_runs,
            "pin_seq": args.pin_seq,
            "quick": args.quick,
        },
        "systems": [
            {
                "label": s.label,
                "language": s.language,
                "ours": s.ours,
                "version": s.version,
                "command": " ".join(os.path.relpath(x, ROOT) if x.startswith(str(ROOT)) else x for x in s.command),
                "missing": s.missing,
            }
            for s in chosen
        ],
    }
    parts = {
        "engine": bench.engine,
        "stdio": lambda: bench.stdio(ready),
        "http": lambda: bench.http(ready),
        "modern": lambda: bench.modern(ready),
        "eras": lambda: bench.eras(ready),
        "rivals": lambda: bench.rivals(ready),
        "secure": lambda: bench.secure(ready),
    }
    out["elapsed_parts_s"] = {}
    for part, run in parts.items():
        if part not in skip:
            t0 = time.time()
            out[part] = run()
            out["elapsed_parts_s"][part] = round(time.time() - t0, 1)
    out["failures"] = bench.failures
    out["elapsed_s"] = round(time.time() - started, 1)
    RESULTS.mkdir(parents=True, exist_ok=True)
    path = RESULTS / f"bench-{time.strftime('%Y%m%dT%H%M%SZ', time.gmtime())}.json"
    path.write_text(json.dumps(out, indent=1) + "\n")
    took = ", ".join(f"{k} {v:.0f} s" for k, v in out["elapsed_parts_s"].items())
    say(f"results: {os.path.relpath(path, ROOT)} ({out['elapsed_s']:.0f} s: {took})")
    if not args.quick and not args.only and not skip:
        shutil.copyfile(path, ROOT / "bench" / "latest.json")
        rc = render(ROOT / "bench" / "latest.json")
    elif args.merge and not bench.failures:
        merge(out, ROOT / "bench" / "latest.json")
        rc = render(ROOT / "bench" / "latest.json")
    else:
        if args.merge:
            note("a run with failures is not merged into bench/latest.json")
        note("a partial or --quick run: bench/latest.json, README.md and chart.png are left as they are")
        rc = render(path, dry=True)
    for f in bench.failures:
        say(f"FAILED: {f}")
    return 1 if bench.failures or rc else 0


def merge(out: dict, latest_path: Path) -> None:
    """The parts `out` measured replace those of the results in `latest_path`, with the earlier
    run's failures of those parts; each is noted under "merged" with its date and commit (the
    report says so)."""
    latest = json.loads(latest_path.read_text())
    for part, took in out["elapsed_parts_s"].items():
        latest[part] = out[part]
        # What the earlier run said of this part went with it (the merge takes a run without failures).
        latest["failures"] = [f for f in latest.get("failures", []) if not f.startswith(f"{part}:")]
        latest.setdefault("merged", {})[part] = {
            "date": out["date"],
            "commit": out["machine"]["commit"],
            "loadavg_before": out["machine"]["loadavg_before"],
            "elapsed_s": took,
        }
    latest_path.write_text(json.dumps(latest, indent=1) + "\n")
    say(f"merged {', '.join(out['elapsed_parts_s'])} into {os.path.relpath(latest_path, ROOT)}")


def render(path: Path, dry: bool = False) -> int:
    """bench/report.py under the tools venv (it has matplotlib for the chart)."""
    py = PEERS / "bench" / "tools-venv" / "bin" / "python"
    if not py.exists():
        note(f"{py} not found (bench/peers/setup.sh installs it): using {sys.executable}, the chart may be skipped")
        py = Path(sys.executable)
    argv = [str(py), str(ROOT / "bench" / "report.py"), str(path)]
    if dry:
        argv.append("--stdout")
    return subprocess.run(argv, cwd=ROOT).returncode


if __name__ == "__main__":
    sys.exit(main())
