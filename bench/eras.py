"""The 2026-07-28 echo against the legacy stateless one, in turns (issue 13), for bench/run.py's
`eras` part.

Issue 13 wants each hypermcp server's 2026-07-28 HTTP echo within 10% of its legacy stateless
echo. bench/http.sh measures the two as separate rows, one after the other; on this shared
machine its figures for the same server move by 30% from one minute to the next, more than
the difference to be measured. Here, for each hypermcp server (Rust, Python, Node), four server
processes run side by side:

  stateless-1, stateless-50   legacy stateless, plain JSON answers (`--stateless-json`;
                              `httpload --stateless`: no handshake, a protocol-version header);
  modern-1, modern-50         the server as users run it (`--http PORT` alone) answering the
                              2026-07-28 echo (`httpload --modern`: `_meta` and the `Mcp-*`
                              headers on every call);

at 1 and 50 keep-alive connections, and `httpload` measures them in turns: each round runs the
two of a connection count back to back, which of the two goes first and which connection count
goes first alternating from round to round, so that the two runs of a pair share the
neighbours' load of that moment and neither era always follows the other (bench/secure.py's
rounds otherwise: a noisy run is measured again). At 1 connection the rate is one round trip's
latency, client and server on the same two CPUs, and a 1.5 s run of the same server moves by
20% from one round to the next, so this part runs more rounds (bench/run.py's
`--eras-rounds`, 15 by default) than the other parts in turns. The figures are medians over the
quiet rounds; "÷ stateless" divides the 2026-07-28 median by the stateless one at the same
connection count, and the paired ratio is the median of the ratios taken within each round.

Beside the rates, a figure the neighbours cannot move: the server's instructions per echo in
each era, counted by valgrind's callgrind (when `valgrind` is installed; `make bench-peers`
installs it). The server runs under callgrind twice per era, answering CALLGRIND_CALLS[0] and
then CALLGRIND_CALLS[1] echoes at 1 connection, start-up and shut-down alike in both; the
difference of the two totals divided by the difference of the counts is the cost of one echo,
every thread's user-space instructions (the kernel's share, the socket calls, is not counted).
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import tempfile
import time
from pathlib import Path

from secure import Config, Secure, free_port, summarize

CONNECTION_COUNTS = (1, 50)
# Echoes of the two callgrind runs per era (their difference is what is counted), by language:
# the interpreted servers run 50 times slower under callgrind than the Rust one.
# Node's count moves with when V8 compiles and collects: over 1,000 and 200 echoes two runs
# differed by 10%, over 6,000 and 1,000 by 0.2% (bench/versus.py measured the same).
CALLGRIND_CALLS = {"hypermcp-rust": (2000, 400), "hypermcp-node": (6000, 1000)}
CALLGRIND_CALLS_DEFAULT = (1000, 200)


class Eras(Secure):
    def run(self, systems: list[tuple[str, list[str]]]) -> dict | None:
        """Measures each (label, server command) in the four configurations."""
        started = time.time()
        out: dict = {
            "config": {
                "connections": list(CONNECTION_COUNTS),
                "seconds": self.seconds,
                "rounds": self.rounds,
                "order": "pairs",
                "callgrind": bool(shutil.which("valgrind")),
            },
            "systems": {},
        }
        with tempfile.TemporaryDirectory(prefix="hypermcp-bench-eras-") as tmp:
            for label, command in systems:
                res = self.eras(label, command, Path(tmp))
                if res is not None:
                    if out["config"]["callgrind"]:
                        res["instructions"] = self.instructions(label, command, Path(tmp))
                    out["systems"][label] = res
        out["elapsed_s"] = round(time.time() - started, 1)
        return out

    def order(self, r: int, configs: list[Config]) -> list[Config]:
        """Round `r`: the two of each connection count back to back; which goes first within a
        pair flips every round, which pair goes first every other round."""
        pairs = [[c for c in configs if c.connections == n] for n in CONNECTION_COUNTS]
        if (r // 2) % 2:
            pairs.reverse()
        return [c for pair in pairs for c in (pair if r % 2 == 0 else pair[::-1])]

    def eras(self, label: str, command: list[str], tmp: Path) -> dict | None:
        configs = []
        for n in CONNECTION_COUNTS:
            configs.append(Config(f"stateless-{n}", ["--stateless-json"], "http", ["--stateless"], [], n))
            configs.append(Config(f"modern-{n}", [], "http", ["--modern"], [], n))
        self.say(
            f"{label}: 2026-07-28 and legacy stateless echo at {' and '.join(map(str, CONNECTION_COUNTS))} "
            f"connection(s), in turns"
        )
        try:
            for c in configs:
                if not self.start(label, command, c, tmp):
                    return None
            if not self.in_turns(label, configs):
                return None
            res: dict = {}
            for n in CONNECTION_COUNTS:
                pair = {c.name.rsplit("-", 1)[0]: c for c in configs if c.connections == n}
                s = summarize({name: c.runs for name, c in pair.items()}, base="stateless")
                for name, c in pair.items():
                    s[name]["command"] = " ".join([*command, "--http", "PORT", *c.server_flags])
                    s[name]["load"] = " ".join(["httpload", *c.load_flags, "--connections", str(n)])
                res[str(n)] = s
            self.say(
                "  "
                + "; ".join(
                    f"{n} conn.: stateless {res[str(n)]['stateless']['calls_per_s']:,.0f}, "
                    f"2026-07-28 {res[str(n)]['modern']['calls_per_s']:,.0f} calls/s "
                    f"({res[str(n)]['modern']['vs_http']:.1%})"
                    for n in CONNECTION_COUNTS
                )
            )
            return res
        finally:
            for c in configs:
                self.stop(c)

    def instructions(self, label: str, command: list[str], tmp: Path) -> dict | None:
        """Instructions per echo of the server in each era, under callgrind (None and a line
        said when a run fails: the rates above stand without it)."""
        calls = CALLGRIND_CALLS.get(label, CALLGRIND_CALLS_DEFAULT)
        res: dict = {"calls": list(calls)}
        for era, server_flags, load_flags in (
            ("stateless", ["--stateless-json"], ["--stateless"]),
            ("modern", [], ["--modern"]),
        ):
            totals = []
            for n in calls:
                total = self.callgrind(label, command, server_flags, load_flags, n, tmp / f"{label}-{era}-{n}.cg")
                if total is None:
                    return None
                totals.append(total)
            res[era] = round((totals[0] - totals[1]) / (calls[0] - calls[1]))
        res["ratio"] = res["modern"] / res["stateless"]
        self.say(
            f"  instructions per echo (callgrind): stateless {res['stateless']:,}, "
            f"2026-07-28 {res['modern']:,} ({res['ratio']:.1%})"
        )
        return res

    def callgrind(
        self, label: str, command: list[str], server_flags: list[str], load_flags: list[str], calls: int, out: Path
    ) -> int | None:
        total = callgrind_http(self.httpload, command, server_flags, load_flags, calls, out)
        if isinstance(total, str):
            self.say(f"    {label}: {total}")
            return None
        return total


def callgrind_http(
    httpload: Path, command: list[str], server_flags: list[str], load_flags: list[str], calls: int, out: Path
) -> int | str:
    """The total instructions of one HTTP server process under callgrind (`command --http
    PORT server_flags`) that answered a handshake probe and then `calls` echoes at 1
    connection (`httpload load_flags`); or why there is none. (bench/versus.py counts with it
    too.)"""
    port = free_port()
    url = f"http://127.0.0.1:{port}/mcp"
    log = out.with_suffix(".log")

    def load(args: list[str]) -> subprocess.CompletedProcess:
        return subprocess.run([str(httpload), "--url", url, *args], capture_output=True, text=True, timeout=600)

    argv = ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", *command, "--http", str(port)]
    with log.open("w") as f:
        proc = subprocess.Popen(
            [*argv, *server_flags],
            stdin=subprocess.DEVNULL,
            stdout=f,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    try:
        deadline = time.time() + 120
        # A legacy handshake, which every benchmark server serves (as the timed ones are probed).
        probe = ["--sessions", "1", "--idle-only", "--timeout", "10"]
        while time.time() < deadline and proc.poll() is None:
            if load(probe).returncode == 0:
                break
            time.sleep(0.5)
        else:
            return f"no answer under callgrind: {log.read_text(errors='replace')[-400:]}"
        run = ["--connections", "1", "--threads", "1", "--calls", str(calls), "--warmup", "0", "--runs", "1"]
        done = load([*run, "--timeout", "30", *load_flags])
        if done.returncode != 0:
            return f"httpload under callgrind: {done.stderr.strip()[-400:]}"
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGINT)
            try:
                proc.wait(120)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
    total = callgrind_summary(out)
    return total if total is not None else f"no callgrind totals: {log.read_text(errors='replace')[-400:]}"


def callgrind_summary(out: Path) -> int | None:
    """The total instructions a callgrind output file records."""
    text = out.read_text(errors="replace") if out.exists() else ""
    m = re.search(r"^(?:summary|totals): (\d+)", text, re.M)
    return int(m.group(1)) if m else None
