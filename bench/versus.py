"""This build of hypermcp against an earlier revision's, in turns, on the legacy scenarios.

    python3 bench/versus.py --old REV [--langs rust,python,node] [--rounds 9] [--seconds 1.5]
                            [--scenarios stdio,http-1,http-50,stateless-50] [--callgrind rust,python,node]
    (--scenarios may add http-1-pinned, http-1-blocking, http-1-spin, http-1-warm, http-1-paced)

Issue 13 wants "the existing stdio and HTTP figures unchanged within noise" after the
2026-07-28 work. The report's runs cannot show it: a run's figures move by 20-30% with the
machine's neighbours from one hour to the next, and the earlier reports were made on another
VM. So this script runs the two builds side by side. It checks REV out (a git worktree in
WORK, by default bench/results/versus-REV/tree), builds what the languages need there the
way that revision's Makefile does (the Rust `bench_server` with `cargo build --release`; the
Python wheel with maturin into WORK/venv; the Node addon with `npm run build`), and then, for
each language, measures REV's benchmark server and this checkout's (the release builds
`make bench-build` makes: target/x86_64-unknown-linux-gnu/release, .venv, the Node addon) in
turns, ROUNDS rounds, which build goes first flipping every round:

  stdio          the echo over stdio, sequential (`loadgen`, server and loadgen on CPU 0,
                 as bench/run.py pins its sequential runs);
  http-1         the echo over Streamable HTTP with a session, 1 connection (`httpload`);
  http-50        the same at 50 connections;
  stateless-50   the legacy stateless echo (`--stateless-json`, `httpload --stateless`) at 50;
  http-1-pinned  (only when asked for) http-1 with the server's threads on the last CPU and
                 httpload on CPU 0: the work per call, without what the scheduler adds to a
                 lone connection's latency (which worker wakes, how long a sleeping CPU takes).
  http-1-blocking (only when asked for) http-1 from `httpload --blocking` (a thread of its
                 own, blocking reads): the control of http-1-spin.
  http-1-spin    (only when asked for) http-1 from `httpload --blocking --spin`: the client's
                 thread polls its socket instead of sleeping, so its CPU never halts and
                 the answer never waits for the client to wake; what is left of the
                 latency is the server's, its own wake-up included.
  http-1-paced   (only when asked for) http-1 with 2 ms of think time after each call
                 (`httpload --pause 2`), as an agent calls tools: every CPU may halt between
                 calls, whatever either server does. Read its p50 latency, not its calls/s.
  http-1-warm    (only when asked for) http-1 while every CPU also runs a busy loop at
                 SCHED_IDLE priority, which gives way at once to any other thread: no CPU
                 ever halts, so no request or answer waits for an idle virtual CPU to wake
                 (on this VM a halted vCPU's wake-up costs tens of µs). What is left is
                 the two servers' own speed at 1 connection.

The figures are medians; "new ÷ old" divides them, "paired" is the median of the ratios
taken within each round. With valgrind installed, the servers of the languages `--callgrind`
names (Rust by default) have their instructions per echo counted too (callgrind, as
bench/eras.py counts them), for what the scenarios measure: stdio, the HTTP session (http-1,
http-50), HTTP stateless (stateless-50). A count does not move with the machine's neighbours,
so it settles what rates within noise of each other cannot.
Results: bench/results/versus-REV-DATE.json and .md (printed too).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import statistics
import subprocess
import sys
import time
from pathlib import Path

from eras import callgrind_http, callgrind_summary
from secure import CLK_TCK, free_port, group_cpu_ticks

ROOT = Path(__file__).resolve().parent.parent
RELEASE = ROOT / "target" / "x86_64-unknown-linux-gnu" / "release"
HTTPLOAD = RELEASE / "httpload"
LOADGEN = RELEASE / "loadgen"
SCENARIOS = ("stdio", "http-1", "http-50", "stateless-50")
OPTIONAL = ("http-1-pinned", "http-1-blocking", "http-1-spin", "http-1-warm", "http-1-paced")
# Echoes answered by the two runs under callgrind whose difference is counted (fewer for the
# hosts' servers, which valgrind slows the most).
CALLGRIND_CALLS = {"rust": (2000, 400), "python": (1000, 200), "node": (6000, 1000)}
# The httpload flags of the 1-connection scenarios that differ from http-1 by flags alone.
LOAD_FLAGS = {
    "http-1-blocking": ["--blocking"],
    "http-1-spin": ["--blocking", "--spin"],
    "http-1-paced": ["--pause", "2"],
}
KINDS = {
    "stdio": "stdio",
    "http-1": "session",
    "http-50": "session",
    "stateless-50": "stateless",
    "http-1-pinned": "session",
    "http-1-blocking": "session",
    "http-1-spin": "session",
    "http-1-warm": "session",
    "http-1-paced": "session",
}


def say(*a: object) -> None:
    print(*a, file=sys.stderr, flush=True)


def run(argv: list[str], cwd: Path, env: dict | None = None, what: str = "") -> None:
    say(f"  {what or ' '.join(argv)}")
    p = subprocess.run(argv, cwd=cwd, env={**os.environ, **(env or {})}, capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit(f"versus: {what or argv[0]} failed:\n{(p.stdout + p.stderr)[-3000:]}")


class Builds:
    """REV's servers, built in WORK; this checkout's, as `make bench-build` left them."""

    def __init__(self, rev: str, work: Path, target: Path) -> None:
        self.rev, self.work, self.target = rev, work, target
        self.tree = work / "tree"

    def checkout(self) -> None:
        if not (self.tree / ".git").exists():
            say(f"checking out {self.rev} in {self.tree}")
            run(["git", "worktree", "add", "--force", "--detach", str(self.tree), self.rev], ROOT)

    def old(self, lang: str) -> list[str]:
        env = {"CARGO_TARGET_DIR": str(self.target)}
        if lang == "rust":
            run(["cargo", "build", "--release", "-p", "hypermcp-loadgen", "--bin", "bench_server"], self.tree, env)
            return [str(self.target / "release" / "bench_server")]
        if lang == "python":
            venv = self.work / "venv"
            wheels = self.work / "wheels"
            shutil.rmtree(wheels, ignore_errors=True)
            maturin = ROOT / ".venv" / "bin" / "maturin"
            run([str(maturin), "build", "--release", "-o", str(wheels)], self.tree, env, "maturin build --release")
            if not (venv / "bin" / "python").exists():
                run([sys.executable, "-m", "venv", str(venv)], self.tree)
            wheel = next(wheels.glob("hypermcp-*.whl"))
            pip = [str(venv / "bin" / "pip"), "install", "-q", "--force-reinstall", "--no-deps", str(wheel)]
            run(pip, self.tree)
            return [str(venv / "bin" / "python"), str(self.tree / "bench" / "servers" / "hypermcp_server.py")]
        npm = ["npm", "install", "--no-fund", "--no-audit", "--loglevel=error", "--ignore-scripts"]
        run(npm, self.tree)
        run(["npm", "run", "build", "--silent"], self.tree, env, "npm run build")
        return ["node", str(self.tree / "bench" / "servers" / "hypermcp_server.mjs")]

    @staticmethod
    def new(lang: str) -> list[str]:
        return {
            "rust": [str(RELEASE / "bench_server")],
            "python": [str(ROOT / ".venv" / "bin" / "python"), str(ROOT / "bench" / "servers" / "hypermcp_server.py")],
            "node": ["node", str(ROOT / "bench" / "servers" / "hypermcp_server.mjs")],
        }[lang]


class Http:
    """A benchmark server over HTTP, until stopped."""

    def __init__(self, command: list[str], flags: list[str]) -> None:
        port = free_port()
        self.url = f"http://127.0.0.1:{port}/mcp"
        self.proc = subprocess.Popen(
            [*command, "--http", str(port), *flags],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
        deadline = time.time() + 30
        while time.time() < deadline and self.proc.poll() is None:
            probe = [str(HTTPLOAD), "--url", self.url, "--sessions", "1", "--idle-only", "--timeout", "2"]
            if subprocess.run(probe, capture_output=True).returncode == 0:
                return
            time.sleep(0.2)
        self.stop()
        sys.exit(f"versus: {' '.join(command)} did not answer at {self.url}")

    def stop(self) -> None:
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait()


def json_line(p: subprocess.CompletedProcess, what: str) -> dict:
    lines = [x for x in p.stdout.splitlines() if x.startswith("{")]
    if p.returncode != 0 or not lines:
        sys.exit(f"versus: {what}: exit {p.returncode}: {p.stderr.strip()[-1000:]}")
    return json.loads(lines[-1])


def httpload(srv: Http, connections: int, seconds: float, extra: list[str], prefix: tuple[str, ...] = ()) -> dict:
    """One httpload run against `srv`: its calls/s, and the server's CPU (every thread, user
    and system) per HTTP request it answered meanwhile."""
    argv = [*prefix, str(HTTPLOAD), "--url", srv.url, "--json", "--connections", str(connections)]
    argv += ["--threads", "1" if connections == 1 else "2", "--calls", "100000000", "--duration", str(seconds)]
    argv += ["--warmup", "1000", "--runs", "1", "--timeout", "10", *extra]
    t0 = group_cpu_ticks(srv.proc.pid)
    line = json_line(subprocess.run(argv, capture_output=True, text=True, timeout=300), "httpload")
    t1 = group_cpu_ticks(srv.proc.pid)
    requests = line.get("requests") or 0
    cpu = round((t1 - t0) / CLK_TCK * 1e6 / requests, 1) if requests else None
    return {"calls_per_s": line["calls_per_s"], "cpu_us": cpu, "p50_us": line.get("p50_us")}


def warm(srv: Http, seconds: float) -> dict:
    """http-1 with a SCHED_IDLE busy loop on every CPU (see http-1-warm above)."""
    loop = "import os\nos.sched_setscheduler(0, os.SCHED_IDLE, os.sched_param(0))\nwhile True: pass"
    spinners = [subprocess.Popen([sys.executable, "-c", loop]) for _ in os.sched_getaffinity(0)]
    try:
        time.sleep(0.1)
        return httpload(srv, 1, seconds, [])
    finally:
        for p in spinners:
            p.kill()
            p.wait()


def pinned(srv: Http, seconds: float) -> dict:
    """http-1 with every thread of the server on the last CPU and httpload on CPU 0."""
    every = os.sched_getaffinity(0)
    last = max(every)
    tids = [int(t) for t in os.listdir(f"/proc/{srv.proc.pid}/task")]
    try:
        for t in tids:
            os.sched_setaffinity(t, {last})
        return httpload(srv, 1, seconds, [], ("taskset", "-c", "0"))
    finally:
        for t in tids:
            try:
                os.sched_setaffinity(t, every)
            except ProcessLookupError:
                pass


def stdio(command: list[str], calls: int) -> dict:
    pin = ["taskset", "-c", "0"] if shutil.which("taskset") else []
    argv = [*pin, str(LOADGEN), "--json", "--calls", str(calls), "--warmup", str(max(calls // 5, 2000))]
    argv += ["--runs", "1", "--", *command]
    line = json_line(subprocess.run(argv, capture_output=True, text=True, timeout=600), "loadgen")
    return {"calls_per_s": line["calls_per_s"], "cpu_us": None, "p50_us": line.get("p50_us")}


def in_turns(lang: str, commands: dict[str, list[str]], rounds: int, seconds: float, scenarios: list[str]) -> dict:
    # Enough stdio calls for about `seconds` each: a first short run finds the rate.
    calls = int(max(stdio(commands["new"], 5000)["calls_per_s"] * seconds, 5000)) if "stdio" in scenarios else 0
    kinds = {KINDS[s] for s in scenarios if s != "stdio"}
    servers = {
        (build, kind): Http(cmd, ["--stateless-json"] if kind == "stateless" else [])
        for build, cmd in commands.items()
        for kind in sorted(kinds)
    }
    # Each run's {"calls_per_s", "cpu_us", "p50_us"}, by scenario and build.
    samples: dict[str, dict[str, list[dict]]] = {s: {"old": [], "new": []} for s in scenarios}
    try:
        for r in range(rounds):
            order = ["old", "new"] if r % 2 == 0 else ["new", "old"]
            for s in scenarios:
                for build in order:
                    if s == "stdio":
                        x = stdio(commands[build], calls)
                    elif s == "http-1-pinned":
                        x = pinned(servers[(build, "session")], seconds)
                    elif s in LOAD_FLAGS:
                        x = httpload(servers[(build, "session")], 1, seconds, LOAD_FLAGS[s])
                    elif s == "http-1-warm":
                        x = warm(servers[(build, "session")], seconds)
                    elif s == "stateless-50":
                        x = httpload(servers[(build, "stateless")], 50, seconds, ["--stateless"])
                    else:
                        x = httpload(servers[(build, "session")], int(s.split("-")[1]), seconds, [])
                    samples[s][build].append(x)
            say(f"  {lang}: round {r + 1}/{rounds}")
    finally:
        for srv in servers.values():
            srv.stop()
    out = {}
    for s, by_build in samples.items():
        rs = {b: [x["calls_per_s"] for x in xs] for b, xs in by_build.items()}
        old, new = statistics.median(rs["old"]), statistics.median(rs["new"])
        paired = statistics.median(b / a for a, b in zip(rs["old"], rs["new"], strict=True))
        out[s] = {"old": old, "new": new, "ratio": new / old, "paired": paired, "runs": rs}
        # The server's CPU per HTTP request and the p50 latency: medians over the rounds, where
        # the runs have them.
        for key in ("cpu_us", "p50_us"):
            got = {b: [x[key] for x in xs if x[key] is not None] for b, xs in by_build.items()}
            if got["old"] and got["new"]:
                out[s][key] = {b: statistics.median(v) for b, v in got.items()}
    return out


def callgrind_total(command: list[str], kind: str, calls: int, out: Path) -> int:
    """Instructions of one server process under callgrind that answered `calls` echoes."""
    if kind != "stdio":
        flags = (["--stateless-json"], ["--stateless"]) if kind == "stateless" else ([], [])
        total = callgrind_http(HTTPLOAD, command, *flags, calls, out)
        if isinstance(total, str):
            sys.exit(f"versus: {' '.join(command)}: {total}")
        return total
    vg = ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}"]
    argv = [str(LOADGEN), "--calls", str(calls), "--warmup", "0", "--runs", "1", "--timeout", "60"]
    p = subprocess.run([*argv, "--", *vg, *command], capture_output=True, text=True, timeout=900)
    if p.returncode != 0:
        sys.exit(f"versus: loadgen under callgrind: {p.stderr.strip()[-1000:]}")
    total = callgrind_summary(out)
    if total is None:
        sys.exit(f"versus: no callgrind totals in {out}")
    return total


def instructions(lang: str, commands: dict[str, list[str]], kinds: list[str], work: Path) -> dict:
    calls = CALLGRIND_CALLS[lang]
    out: dict = {"calls": list(calls)}
    for kind in kinds:
        out[kind] = {}
        for build, cmd in commands.items():
            a, b = (callgrind_total(cmd, kind, n, work / f"cg-{lang}-{build}-{kind}-{n}.out") for n in calls)
            out[kind][build] = round((a - b) / (calls[0] - calls[1]))
        out[kind]["ratio"] = out[kind]["new"] / out[kind]["old"]
        say(f"  {lang} {kind}: {out[kind]['old']:,} -> {out[kind]['new']:,} instructions per echo")
    return out


def report(res: dict) -> str:
    head = res["head"]
    lines = [
        f"# {res['old_rev']} against {head}, in turns",
        "",
        f"{res['date']}; {res['rounds']} rounds of {res['seconds']} s, which build goes first flipping "
        'every round (bench/versus.py). Medians; "new ÷ old" divides them, "paired" is the median of '
        "the ratios within each round.",
        "",
        "The server's CPU (every thread, user and system) per HTTP request it answered, median "
        "over the rounds, where the scenario is over HTTP; p50: the median over the rounds of each "
        "run's median latency.",
        "",
        "| language | scenario | old calls/s | new calls/s | new ÷ old | paired | server CPU per request, old -> new "
        "| p50, old -> new |",
        "|---|---|---:|---:|---:|---:|---:|---:|",
    ]
    for lang, scen in res["langs"].items():
        for s, m in scen.items():
            cpu_text, p50_text = (
                f"{m[k]['old']:.1f} -> {m[k]['new']:.1f} µs" if k in m else "" for k in ("cpu_us", "p50_us")
            )
            lines.append(
                f"| {lang} | {s} | {m['old']:,.0f} | {m['new']:,.0f} | {m['ratio']:.1%} | {m['paired']:.1%} "
                f"| {cpu_text} | {p50_text} |"
            )
    ins = res.get("instructions") or {}
    if ins:
        lines += [
            "",
            "Instructions per echo of the servers under callgrind (for each, two runs at 1 connection, "
            + ", ".join(f"{lang} {m['calls'][0]:,} and {m['calls'][1]:,} echoes" for lang, m in ins.items())
            + "; the difference over the difference; every thread, user space):",
            "",
            "| language | scenario | old | new | new ÷ old |",
            "|---|---|---:|---:|---:|",
        ]
        for lang, m in ins.items():
            for kind in ("stdio", "session", "stateless"):
                if kind in m:
                    k = m[kind]
                    lines.append(f"| {lang} | {kind} | {k['old']:,} | {k['new']:,} | {k['ratio']:.1%} |")
    return "\n".join(lines) + "\n"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--old", required=True, help="the earlier revision (a commit or tag)")
    ap.add_argument("--langs", default="rust,python,node")
    ap.add_argument("--rounds", type=int, default=9)
    ap.add_argument("--seconds", type=float, default=1.5)
    ap.add_argument("--scenarios", default=",".join(SCENARIOS), help="some of " + ", ".join(SCENARIOS + OPTIONAL))
    ap.add_argument("--callgrind", default="rust", help="whose instructions are counted (valgrind; '' for none)")
    ap.add_argument("--work", type=Path, help="where REV is checked out and built (default bench/results/versus-REV)")
    ap.add_argument("--target-dir", type=Path, help="cargo's target folder for REV (default WORK/target)")
    args = ap.parse_args()
    rev = subprocess.run(["git", "rev-parse", "--short=8", args.old], cwd=ROOT, capture_output=True, text=True)
    if rev.returncode != 0:
        sys.exit(f"versus: no revision {args.old!r}")
    old_rev = rev.stdout.strip()
    scenarios = [s for s in args.scenarios.split(",") if s]
    unknown = [s for s in scenarios if s not in SCENARIOS + OPTIONAL]
    if unknown or not scenarios:
        sys.exit(f"versus: --scenarios takes {', '.join(SCENARIOS + OPTIONAL)}, not {','.join(unknown) or 'nothing'}")
    if "http-1-pinned" in scenarios and (len(os.sched_getaffinity(0)) < 2 or not shutil.which("taskset")):
        sys.exit("versus: http-1-pinned needs two CPUs and taskset")
    head = subprocess.run(["git", "rev-parse", "--short=8", "HEAD"], cwd=ROOT, capture_output=True, text=True)
    work = (args.work or ROOT / "bench" / "results" / f"versus-{old_rev}").resolve()
    work.mkdir(parents=True, exist_ok=True)
    for tool in (HTTPLOAD, LOADGEN):
        if not tool.exists():
            sys.exit(f"versus: {tool} is missing: run `make bench-build` first")
    builds = Builds(old_rev, work, (args.target_dir or work / "target").resolve())
    builds.checkout()
    res: dict = {
        "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "old_rev": old_rev,
        "head": head.stdout.strip(),
        "rounds": args.rounds,
        "seconds": args.seconds,
        "scenarios": scenarios,
        "langs": {},
        "instructions": {},
    }
    kinds = [k for k in ("stdio", "session", "stateless") if any(KINDS[s] == k for s in scenarios)]
    counted = [x for x in args.callgrind.split(",") if x]
    if any(x not in CALLGRIND_CALLS for x in counted):
        sys.exit(f"versus: --callgrind takes {', '.join(CALLGRIND_CALLS)}, not {args.callgrind}")
    if counted and not shutil.which("valgrind"):
        say("versus: no valgrind (make bench-peers installs it): no instructions counted")
        counted = []
    for lang in args.langs.split(","):
        say(f"{lang}: building {old_rev}")
        commands = {"old": builds.old(lang), "new": builds.new(lang)}
        say(f"{lang}: {old_rev} and this checkout in turns")
        res["langs"][lang] = in_turns(lang, commands, args.rounds, args.seconds, scenarios)
        if lang in counted:
            res["instructions"][lang] = instructions(lang, commands, kinds, work)
    stamp = res["date"].replace("-", "").replace(":", "")
    out = ROOT / "bench" / "results" / f"versus-{old_rev}-{stamp}"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.with_suffix(".json").write_text(json.dumps(res, indent=1) + "\n")
    text = report(res)
    out.with_suffix(".md").write_text(text)
    print(text)
    say(f"results: {out.with_suffix('.json').relative_to(ROOT)} and .md")


if __name__ == "__main__":
    main()
