"""hypermcp against a peer of its language, in turns (issue 13's "3x rmcp"), for bench/run.py's
`rivals` part.

bench/http.sh and bench/modern.sh measure each server on its own, one after the other: the
two figures a ratio divides are taken a minute or more apart, and on this shared machine the
same server's figure moves by 20-30% from one minute to the next. Here the two servers run
side by side, two processes each (BENCH_MODERN=1, the `ask` tool included):

  echo   the 2026-07-28 echo (`httpload --modern`);
  mrtr   MRTR round trips of `ask` (`httpload --mrtr`: the call, `input_required`, the retry
         with the answer and the echoed `requestState`, the result);

at 50 keep-alive connections, and `httpload` measures the four in turns, the order rotating
each round (bench/secure.py's rounds: a busy moment falls on every configuration alike). The
figures are medians over the quiet rounds; "÷ peer" divides ours by the peer's median, and the
paired ratio is the median of the ratios taken within each round. Server CPU is per HTTP
request (an MRTR round trip is two).
"""

from __future__ import annotations

import os
import tempfile
import time
from pathlib import Path

from secure import Config, Secure, summarize

CONNECTIONS = 50
SCENARIOS = (("echo", ["--modern"]), ("mrtr", ["--mrtr"]))


class Rivals(Secure):
    def run(self, pairs: list[tuple[str, list[str], str, list[str]]]) -> dict | None:
        """Measures each (our label, our command, peer label, peer command) pair."""
        started = time.time()
        out: dict = {
            "config": {"connections": CONNECTIONS, "seconds": self.seconds, "rounds": self.rounds},
            "pairs": {},
        }
        before = os.environ.get("BENCH_MODERN")
        os.environ["BENCH_MODERN"] = "1"
        try:
            with tempfile.TemporaryDirectory(prefix="hypermcp-bench-rivals-") as tmp:
                for ours, ours_cmd, peer, peer_cmd in pairs:
                    res = self.pair(ours, ours_cmd, peer, peer_cmd, Path(tmp))
                    if res is not None:
                        out["pairs"][f"{ours}|{peer}"] = res
        finally:
            if before is None:
                os.environ.pop("BENCH_MODERN", None)
            else:
                os.environ["BENCH_MODERN"] = before
        out["elapsed_s"] = round(time.time() - started, 1)
        return out

    def pair(self, ours: str, ours_cmd: list[str], peer: str, peer_cmd: list[str], tmp: Path) -> dict | None:
        # The start-up probe is a plain session handshake (both servers keep the legacy
        # revisions); --mrtr does not combine with the probe's --sessions.
        configs = [
            (Config(f"{label}-{scenario}", [], "http", flags, [], CONNECTIONS), label, command)
            for scenario, flags in SCENARIOS
            for label, command in ((ours, ours_cmd), (peer, peer_cmd))
        ]
        self.say(f"{ours} and {peer}: 2026-07-28 echo and MRTR at {CONNECTIONS} connections, in turns")
        try:
            for c, label, command in configs:
                c.probe_flags = []
                if not self.start(label, command, c, tmp):
                    return None
            if not self.in_turns(f"{ours}/{peer}", [c for c, _, _ in configs]):
                return None
            res: dict = {}
            for scenario, _ in SCENARIOS:
                runs = {label: c.runs for c, label, _ in configs if c.name == f"{label}-{scenario}"}
                s = summarize(runs, base=peer)
                for c, label, command in configs:
                    if c.name == f"{label}-{scenario}":
                        s[label]["command"] = " ".join([*command, "--http", "PORT"])
                        s[label]["load"] = " ".join(["httpload", *c.load_flags, "--connections", str(CONNECTIONS)])
                res[scenario] = s
            for scenario, _ in SCENARIOS:
                a, b = res[scenario][ours], res[scenario][peer]
                self.say(
                    f"  {scenario}: {a['calls_per_s']:,.0f} vs {b['calls_per_s']:,.0f}/s "
                    f"({a['vs_http']:.2f}x, paired {a['vs_http_paired']:.2f}x)"
                )
            return res
        finally:
            for c, _, _ in configs:
                self.stop(c)
