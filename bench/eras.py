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

at 1 and 50 keep-alive connections, and `httpload` measures them in turns, the order rotating
each round (bench/secure.py's rounds: a busy moment falls on every configuration alike). The
figures are medians over the quiet rounds; "÷ stateless" divides the 2026-07-28 median by the
stateless one at the same connection count, and the paired ratio is the median of the ratios
taken within each round.
"""

from __future__ import annotations

import tempfile
import time
from pathlib import Path

from secure import Config, Secure, summarize

CONNECTION_COUNTS = (1, 50)


class Eras(Secure):
    def run(self, systems: list[tuple[str, list[str]]]) -> dict | None:
        """Measures each (label, server command) in the four configurations."""
        started = time.time()
        out: dict = {
            "config": {
                "connections": list(CONNECTION_COUNTS),
                "seconds": self.seconds,
                "rounds": self.rounds,
            },
            "systems": {},
        }
        with tempfile.TemporaryDirectory(prefix="hypermcp-bench-eras-") as tmp:
            for label, command in systems:
                res = self.eras(label, command, Path(tmp))
                if res is not None:
                    out["systems"][label] = res
        out["elapsed_s"] = round(time.time() - started, 1)
        return out

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
