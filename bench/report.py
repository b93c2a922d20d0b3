#!/usr/bin/env python3
# ruff: noqa: RUF001  (the en dash and the multiplication sign are meant: they are the report's typography)
"""Render a bench/run.py results file into bench/README.md and bench/chart.png.

    report.py RESULTS.json            rewrite the generated part of bench/README.md
                                      (between the BEGIN/END GENERATED markers) and the chart
    report.py RESULTS.json --stdout   print the generated markdown only (no files written)

The chart needs matplotlib (bench/peers/setup.sh installs it in .peers/bench/tools-venv);
without it the tables are still written and the chart is left as it was.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "bench" / "README.md"
CHART = ROOT / "bench" / "chart.png"
BEGIN = "<!-- BEGIN GENERATED: bench/report.py writes this part from bench/latest.json -->"
END = "<!-- END GENERATED -->"

STDIO = [
    ("echo-seq", "stdio, echo, sequential"),
    ("echo-64", "stdio, echo, 64 in flight"),
    ("list-seq", "stdio, tools/list (50 tools), sequential"),
    ("read-seq", "stdio, 1 MiB resources/read, sequential"),
]
HTTP = [("1", "Streamable HTTP, echo, 1 connection"), ("50", "Streamable HTTP, echo, 50 connections")]
OURS = {"Rust": "hypermcp-rust", "Python": "hypermcp-python", "Node": "hypermcp-node"}
ECHO = {lang: label + "-echo" for lang, label in OURS.items()}
FLOOR = {"Python": "floor-python", "Node": "floor-node"}

# (description, kind, language, key, limit); kinds resolved in targets()
TARGETS = [
    ("Rust echo, stdio, sequential", "stdio", "Rust", "echo-seq", 120_000),
    ("Rust echo, stdio, 64 in flight", "stdio", "Rust", "echo-64", 400_000),
    ("Python echo (async handler), stdio, sequential", "stdio", "Python", "echo-seq", 15_000),
    ("Python echo (async handler), stdio, 64 in flight", "stdio", "Python", "echo-64", 100_000),
    ("Node echo, stdio, sequential", "stdio", "Node", "echo-seq", 25_000),
    ("Node echo, stdio, 64 in flight", "stdio", "Node", "echo-64", 150_000),
    ("Rust echo, HTTP, 50 connections", "http", "Rust", "50", 80_000),
    ("Python echo, HTTP, 50 connections", "http", "Python", "50", 20_000),
    ("Node echo, HTTP, 50 connections", "http", "Node", "50", 40_000),
    ("Python spawn → initialize answer", "init", "Python", "", 80),
    ("Node spawn → initialize answer", "init", "Node", "", 90),
    ("Rust spawn → initialize answer", "init", "Rust", "", 5),
    ("Python idle RSS after start", "rss", "Python", "", 25),
    ("Node idle RSS after start", "rss", "Node", "", 50),
    ("Rust idle RSS after start", "rss", "Rust", "", 5),
    ("Rust idle HTTP session", "session", "Rust", "", 4096),
    ("Python idle HTTP session", "session", "Python", "", 4096),
    ("Node idle HTTP session", "session", "Node", "", 4096),
    ("tools/list of 50 tools, in the server", "engine", "Rust", "", 20),
]


def num(v: float | int | None, digits: int = 0) -> str:
    if v is None:
        return "–"
    return f"{v:,.{digits}f}"


def lat(v: float | None) -> str:
    if v is None:
        return "–"
    return f"{v:,.0f}" if v >= 100 else f"{v:,.1f}"


def ratio(a: float | None, b: float | None) -> str:
    if not a or not b:
        return "–"
    r = a / b
    return f"{r:,.0f}×" if r >= 100 else f"{r:,.1f}×" if r >= 10 else f"{r:.2f}×"


class Results:
    def __init__(self, data: dict):
        self.d = data
        self.systems = [s for s in data.get("systems", []) if not s.get("missing")]
        self.by_label = {s["label"]: s for s in data.get("systems", [])}
        self.stdio = data.get("stdio") or {}
        http = data.get("http") or {}
        self.http = {s["label"]: s for s in http.get("systems", []) if "load" in s}
        self.http_labels = {s["label"] for s in http.get("systems", [])}
        modern = data.get("modern") or {}
        self.modern = {s["label"]: s for s in modern.get("systems", []) if "mrtr" in s}
        self.modern_config = modern.get("config") or {}
        secure = data.get("secure") or {}
        self.secure = secure.get("systems") or {}
        self.secure_config = secure.get("config") or {}
        eras = data.get("eras") or {}
        self.eras = eras.get("systems") or {}
        self.eras_config = eras.get("config") or {}
        rivals = data.get("rivals") or {}
        self.rivals = rivals.get("pairs") or {}
        self.rivals_config = rivals.get("config") or {}

    def rival(self, ours: str, peer: str, scenario: str) -> tuple[dict, dict] | None:
        """(ours, the peer's) medians of `scenario` measured in turns, when the rivals part ran."""
        s = (self.rivals.get(f"{ours}|{peer}") or {}).get(scenario)
        if not s or ours not in s or peer not in s:
            return None
        return s[ours], s[peer]

    def sec(self, label: str, config: str) -> dict | None:
        return (self.secure.get(label) or {}).get(config)

    def mrtr(self, label: str, conns: str) -> dict | None:
        return ((self.modern.get(label) or {}).get("mrtr") or {}).get(conns)

    def listen(self, label: str, transport: str) -> dict | None:
        return (self.modern.get(label) or {}).get("listen" if transport == "http" else "listen_stdio")

    def s(self, label: str, key: str) -> dict | None:
        return (self.stdio.get(label) or {}).get(key)

    def h(self, label: str, conns: str) -> dict | None:
        return ((self.http.get(label) or {}).get("load") or {}).get(conns)

    def mem(self, label: str) -> dict | None:
        return (self.http.get(label) or {}).get("memory")

    def startup(self, label: str) -> dict | None:
        return self.s(label, "startup")

    def lang_systems(self, lang: str) -> list[dict]:
        return [s for s in self.systems if s["language"] == lang]

    def peers(self, lang: str) -> list[dict]:
        return [s for s in self.lang_systems(lang) if not s["ours"]]


def language_order(r: Results) -> list[str]:
    return [lang for lang in ("Rust", "Python", "Node") if r.lang_systems(lang)]


def throughput_table(r: Results, title: str, get) -> list[str]:
    """One table: a row per system; peers get 'ours ÷ peer' (same language)."""
    out = [
        f"#### {title}",
        "",
        "| system | version | calls/s | p50 µs | p99 µs | max µs | ours ÷ it |",
        "|---|---|---:|---:|---:|---:|---:|",
    ]
    for lang in language_order(r):
        ours = get(OURS[lang]) or {}
        for s in r.lang_systems(lang):
            m = get(s["label"])
            name = f"**{s['label']}**" if s["ours"] else s["label"]
            if not m:
                out.append(f"| {name} | {s['version']} | failed or not run | | | | |")
                continue
            cps = m.get("calls_per_s")
            rel = "–" if s["ours"] else ratio(ours.get("calls_per_s"), cps)
            out.append(
                f"| {name} | {s['version']} | {num(cps, 1 if cps and cps < 100 else 0)} | {lat(m.get('p50_us'))} | "
                f"{lat(m.get('p99_us'))} | {lat(m.get('max_us'))} | {rel} |"
            )
    floor = get("floor")
    if floor:
        out.append(
            f"| floor (`cat`) | – | {num(floor.get('calls_per_s'))} | {lat(floor.get('p50_us'))} | "
            f"{lat(floor.get('p99_us'))} | {lat(floor.get('max_us'))} | – |"
        )
    out.append("")
    return out


def http_table(r: Results, conns: str, title: str) -> list[str]:
    out = [
        f"#### {title}",
        "",
        "| system | mode | calls/s | p50 µs | p99 µs | max µs | server CPU µs/call | ours ÷ it (same mode) |",
        "|---|---|---:|---:|---:|---:|---:|---:|",
    ]
    for lang in language_order(r):
        for s in r.lang_systems(lang):
            for suffix, mode in (("", "sessions"), ("-stateless", "stateless JSON"), ("-modern", "2026-07-28")):
                label = s["label"] + suffix
                if label not in r.http_labels:
                    continue
                m = r.h(label, conns)
                name = f"**{s['label']}**" if s["ours"] else s["label"]
                if not m:
                    out.append(f"| {name} | {mode} | failed or not run | | | | | |")
                    continue
                ours = r.h(OURS[lang] + suffix, conns) or {}
                rel = "–" if s["ours"] else ratio(ours.get("calls_per_s"), m.get("calls_per_s"))
                out.append(
                    f"| {name} | {mode} | {num(m.get('calls_per_s'))} | {lat(m.get('p50_us'))} | "
                    f"{lat(m.get('p99_us'))} | "
                    f"{lat(m.get('max_us'))} | {num(m.get('server_cpu_us_per_request'), 1)} | {rel} |"
                )
    out.append("")
    return out


def footprint_table(r: Results) -> list[str]:
    out = [
        "#### Start-up and memory",
        "",
        "| system | spawn → initialize ms | idle RSS MiB | ours ÷ it (init, RSS) "
        "| bytes per idle HTTP session | MB per 1,000 idle sessions |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for lang in language_order(r):
        ours_st = r.startup(OURS[lang]) or {}
        for s in r.lang_systems(lang):
            st = r.startup(s["label"]) or {}
            m = r.mem(s["label"]) or {}
            b = m.get("bytes_per_session")
            has_b = isinstance(b, (int, float))
            name = f"**{s['label']}**" if s["ours"] else s["label"]
            rel = "–"
            if not s["ours"] and st and ours_st:
                init_r = ratio(ours_st.get("init_ms"), st.get("init_ms"))
                rel = f"{init_r}, {ratio(ours_st.get('rss_kb'), st.get('rss_kb'))}"
            rss = st.get("rss_kb")
            out.append(
                f"| {name} | {num(st.get('init_ms'), 1) if st else '–'} | "
                f"{num(rss / 1024, 1) if rss else '–'} | {rel} | "
                f"{num(b) if has_b else '–'} | {num(b * 1000 / 1e6, 2) if has_b else '–'} |"
            )
        for label, what in ((ECHO[lang], "one-tool example server"), (FLOOR.get(lang), "runtime floor")):
            st = r.startup(label) if label else None
            if st:
                mb = num(st["rss_kb"] / 1024, 1)
                out.append(f"| {label} ({what}) | {num(st.get('init_ms'), 1)} | {mb} | – | – | – |")
    out += [
        "",
        "The one-tool example servers are `examples/{python,node}/echo_server.*` and "
        "`examples/rust/echo_server.rs`; the floors (`servers/floor.{py,mjs}`) are the bare runtime "
        "reading the initialize request and writing a minimal answer, nothing else: what any server in "
        "that language pays before its own code.",
        "",
    ]
    return out


# Issue 13: ours ÷ the peer of its language (2026-07-28 echo over HTTP and MRTR round trips, at
# 50 connections), at least this much.
MODERN_RATIOS = [("official-python", 20), ("official-typescript-v2", 10), ("rmcp", 3)]
LISTENER_BYTES = 4096


def modern_systems(r: Results):
    """(language, system, label, name as shown) of each system bench/modern.sh measured."""
    for lang in language_order(r):
        for s in r.lang_systems(lang):
            if s["label"] in r.modern:
                yield lang, s, s["label"], f"**{s['label']}**" if s["ours"] else s["label"]


def modern_tables(r: Results) -> list[str]:
    if not r.modern:
        return []
    c = r.modern_config
    conns = [str(x) for x in c.get("connections", [1, 50])]
    out = [
        "#### 2026-07-28: multi round-trip requests (MRTR) over HTTP",
        "",
        "Round trips per second of `ask`: the call, its `input_required` answer (one elicitation), the retry "
        "with the accepted answer and the echoed `requestState`, the result; two HTTP requests each "
        f"(bench/modern.sh, medians of {c.get('runs')} runs of {c.get('duration_s')} s). Server CPU is per "
        "round trip.",
        "",
        "| system | "
        + " | ".join(f"round trips/s, {n} conn. | p50 µs | server CPU µs" for n in conns)
        + " | ours ÷ it |",
        "|---|" + "---:|---:|---:|" * len(conns) + "---:|",
    ]
    for lang, s, label, name in modern_systems(r):
        cells = []
        for n in conns:
            m = r.mrtr(label, n) or {}
            cpu = num(m.get("server_cpu_us_per_round_trip"), 1)
            cells.append(f"{num(m.get('calls_per_s'))} | {lat(m.get('p50_us'))} | {cpu}")
        rel = "–"
        if not s["ours"]:
            top = conns[-1]
            rel = ratio(
                (r.mrtr(OURS[lang], top) or {}).get("calls_per_s"), (r.mrtr(label, top) or {}).get("calls_per_s")
            )
        out.append(f"| {name} | " + " | ".join(cells) + f" | {rel} |")
    out += [
        "",
        "#### 2026-07-28: `subscriptions/listen` fan-out",
        "",
        f"{c.get('listeners')} streams (tools `list_changed`) open at once on a fresh server, then {c.get('triggers')} "
        "calls of `touch`, each timed until every stream has its notification (medians). Over HTTP every stream is "
        "its own connection, so bytes per listener include the server's cost of an open HTTP connection; over stdio "
        "they share the one connection and the figure is the SDK's own per-subscription state.",
        "",
        "| system | transport | all open, ms | all notified, ms | median stream, ms | bytes per idle listener |",
        "|---|---|---:|---:|---:|---:|",
    ]
    for _, _, label, name in modern_systems(r):
        for tr in ("http", "stdio"):
            m = r.listen(label, tr)
            if not m:
                out.append(f"| {name} | {tr} | failed or not run | | | |")
                continue
            out.append(
                f"| {name} | {tr} | {num(m.get('open_ms'), 1)} | {num(m.get('all_ms'), 1)} | "
                f"{num(m.get('p50_ms'), 1)} | {num(m.get('bytes_per_listener'))} |"
            )
    out.append("")
    return out


def modern_target_rows(r: Results) -> list[tuple[str, str, str, bool | None]]:
    """Issue 13's targets: modern echo within 10% of legacy stateless; ratios against the peers
    that speak 2026-07-28 (echo and MRTR at 50 connections); bytes per idle listener."""
    rows: list[tuple[str, str, str, bool | None]] = []
    if not any(label.endswith("-modern") for label in r.http_labels) and not r.modern:
        return rows
    for lang in language_order(r):
        ours = OURS[lang]
        for n in ("1", "50"):
            # Measured in turns (the eras part) when it ran; else the http part's two rows.
            pair = (r.eras.get(ours) or {}).get(n)
            if pair:
                a, b = (pair.get("modern") or {}).get("calls_per_s"), (pair.get("stateless") or {}).get("calls_per_s")
                how = ", in turns"
            else:
                a = (r.h(ours + "-modern", n) or {}).get("calls_per_s")
                b = (r.h(ours + "-stateless", n) or {}).get("calls_per_s")
                how = ""
            met = None if not (a and b) else a >= 0.9 * b
            shown = f"{a:,.0f} vs {b:,.0f} calls/s ({a / b:.1%}{how})" if a and b else "–"
            rows.append((f"{lang} 2026-07-28 echo, HTTP, {n} conn., vs its legacy stateless", "≥ 90%", shown, met))
    for peer, want in MODERN_RATIOS:
        p = r.by_label.get(peer)
        if not p or p.get("missing"):
            continue
        ours = OURS[p["language"]]
        # Met or not by calls/s; the servers' CPU ratio beside it (at 50 connections the two CPUs
        # are shared with httpload, whose own cost per call narrows the calls/s ratio).
        for what, unit, get, cpu in (
            (
                "2026-07-28 echo",
                "call",
                lambda label: (r.h(label + "-modern", "50") or {}).get("calls_per_s"),
                lambda label: (r.h(label + "-modern", "50") or {}).get("server_cpu_us_per_request"),
            ),
            (
                "MRTR round trips",
                "round trip",
                lambda label: (r.mrtr(label, "50") or {}).get("calls_per_s"),
                lambda label: (r.mrtr(label, "50") or {}).get("server_cpu_us_per_round_trip"),
            ),
        ):
            a, b = get(ours), get(peer)
            ca, cb = cpu(ours), cpu(peer)
            # Measured in turns (the rivals part) when it ran; the one-after-the-other figures
            # of the http and modern parts beside them.
            turns = r.rival(ours, peer, "echo" if unit == "call" else "mrtr")
            if turns:
                (ta, tb), alone = turns, f"; {a / b:.1f}× one after the other" if a and b else ""
                a, b = ta.get("calls_per_s"), tb.get("calls_per_s")
                ca, cb = ta.get("server_cpu_us"), tb.get("server_cpu_us")
            met = None if not (a and b) else a >= want * b
            shown = f"{a / b:.1f}× ({a:,.0f} vs {b:,.0f}/s{', in turns' if turns else ''})" if a and b else "–"
            if a and b and ca and cb:
                shown += f"; server CPU per {unit} {cb / ca:.1f}× less"
            if turns:
                shown += alone
            rows.append((f"{ours} ÷ {peer}, {what}, HTTP, 50 conn.", f"≥ {want}×", shown, met))
    for lang in language_order(r):
        ours = OURS[lang]
        for tr in ("stdio", "http"):
            b = (r.listen(ours, tr) or {}).get("bytes_per_listener")
            met = None if b is None else b < LISTENER_BYTES
            shown = "–" if b is None else f"{b:,.0f} bytes" + (" (each one HTTP connection)" if tr == "http" else "")
            rows.append((f"{ours} bytes per idle listener, {tr}", f"< {LISTENER_BYTES:,}", shown, met))
    return rows


# Issue 14: authenticated (a JWT verified against a cached JWKS) at most 10% fewer calls/s than
# unauthenticated, HTTP echo at 50 connections, each language; HTTPS beside HTTP reported.
SECURE_CONFIGS = [("http", "HTTP"), ("http-auth", "HTTP, authenticated (JWT)"), ("https", "HTTPS")]
AUTH_MIN = 0.9


def secure_target_rows(r: Results) -> list[tuple[str, str, str, bool | None]]:
    rows: list[tuple[str, str, str, bool | None]] = []
    for lang in language_order(r):
        if OURS[lang] not in r.secure:
            continue
        a = (r.sec(OURS[lang], "http-auth") or {}).get("calls_per_s")
        b = (r.sec(OURS[lang], "http") or {}).get("calls_per_s")
        met = None if not (a and b) else a >= AUTH_MIN * b
        shown = f"{a:,.0f} vs {b:,.0f} calls/s ({a / b:.0%})" if a and b else "–"
        desc = f"{lang} echo, HTTP, 50 conn., authenticated (JWT, cached key) vs unauthenticated"
        rows.append((desc, "≥ 90%", shown, met))
    return rows


def measured_when(r: Results, part: str) -> str:
    """When and at which commit a part merged from a later run was measured (or nothing)."""
    merged = (r.d.get("merged") or {}).get(part)
    return f" Measured {merged['date']} at commit `{merged['commit']}`." if merged else ""


def in_turns(c: dict, script: str) -> str:
    """How a part measured in turns ran (bench/secure.py's rounds), for its table's text."""
    rounds = c.get("rounds")
    return (
        f"the order rotating, {rounds} round{'s' if rounds != 1 else ''} of {c.get('seconds')} s each "
        f"(bench/{script}). Medians over the quiet rounds"
    )


def eras_turns(c: dict) -> str:
    """How the eras part ran: pairs back to back (bench/eras.py) since it says `order`; before,
    secure.py's rotation."""
    if c.get("order") != "pairs":
        return in_turns(c, "eras.py")
    rounds = c.get("rounds")
    return (
        f"each round the stateless and 2026-07-28 runs of a connection count back to back, which goes first "
        f"alternating, {rounds} round{'s' if rounds != 1 else ''} of {c.get('seconds')} s each (bench/eras.py). "
        "Medians over the quiet rounds"
    )


def rivals_table(r: Results) -> list[str]:
    if not r.rivals:
        return []
    c = r.rivals_config
    when = measured_when(r, "rivals")
    out = [
        "#### hypermcp against rmcp, 2026-07-28, in turns",
        "",
        "The two Rust servers side by side, two processes each (the 2026-07-28 echo, `httpload --modern`; MRTR "
        f"round trips of `ask`, `httpload --mrtr`), at {c.get('connections')} connections; httpload runs the four "
        f'in turns, {in_turns(c, "rivals.py")}; "ours ÷ it" divides the medians, "paired" is the median of '
        f"the ratios taken within each round. Server CPU is per HTTP request (an MRTR round trip is two).{when}",
        "",
        "| scenario | system | calls/s | p50 µs | p99 µs | server CPU µs/request | ours ÷ it | paired |",
        "|---|---|---:|---:|---:|---:|---:|---:|",
    ]
    for key in r.rivals:
        ours, peer = key.split("|")
        for scenario, title in (("echo", "2026-07-28 echo"), ("mrtr", "MRTR round trips")):
            got = r.rival(ours, peer, scenario)
            if not got:
                continue
            a, b = got
            rel = f"{a['vs_http']:.2f}×" if a.get("vs_http") else "–"
            paired = f"{a['vs_http_paired']:.2f}×" if a.get("vs_http_paired") else "–"
            for name, m, x, y in ((f"**{ours}**", a, "–", "–"), (peer, b, rel, paired)):
                out.append(
                    f"| {title} | {name} | {num(m.get('calls_per_s'))} | {lat(m.get('p50_us'))} | "
                    f"{lat(m.get('p99_us'))} | {num(m.get('server_cpu_us'), 1)} | {x} | {y} |"
                )
    out.append("")
    return out


def eras_table(r: Results) -> list[str]:
    if not r.eras:
        return []
    c = r.eras_config
    when = measured_when(r, "eras")
    out = [
        "#### 2026-07-28 against legacy stateless, echo, in turns",
        "",
        "Each hypermcp server four times, side by side: legacy stateless with plain JSON answers "
        "(`--stateless-json`, `httpload --stateless`) and the server as users run it answering the 2026-07-28 "
        "echo (`httpload --modern`), each at "
        f"{' and '.join(str(n) for n in c.get('connections', []))} connection(s); httpload runs them in turns, "
        f'{eras_turns(c)}; "÷ stateless" divides the medians, "paired" is the median of the ratios '
        f"taken within each round.{when}",
        "",
        "| system | connections | stateless calls/s | 2026-07-28 calls/s | ÷ stateless | paired | "
        "server CPU µs/call, stateless | 2026-07-28 |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for lang in language_order(r):
        label = OURS[lang]
        for n in (str(x) for x in c.get("connections", [])):
            pair = (r.eras.get(label) or {}).get(n)
            if not pair:
                continue
            st, mo = pair.get("stateless") or {}, pair.get("modern") or {}
            rel = f"{mo['vs_http']:.1%}" if mo.get("vs_http") else "–"
            paired = f"{mo['vs_http_paired']:.1%}" if mo.get("vs_http_paired") else "–"
            out.append(
                f"| **{label}** | {n} | {num(st.get('calls_per_s'))} | {num(mo.get('calls_per_s'))} | {rel} | "
                f"{paired} | {num(st.get('server_cpu_us'), 1)} | {num(mo.get('server_cpu_us'), 1)} |"
            )
    out.append("")
    counted = [(lang, (r.eras.get(OURS[lang]) or {}).get("instructions")) for lang in language_order(r)]
    counted = [(lang, i) for lang, i in counted if i]
    if counted:
        out += [
            "The same two echoes counted rather than timed: each server's instructions per echo under "
            "valgrind's callgrind, at 1 connection (two runs per era, of the two numbers of echoes shown; "
            "the difference of their totals over the difference of the counts). Every thread of the server "
            "is counted, in user space only (the socket calls' kernel work is not); no neighbour moves these.",
            "",
            "| system | echoes per run | stateless instructions/echo | 2026-07-28 | ÷ stateless |",
            "|---|---:|---:|---:|---:|",
        ]
        for lang, i in counted:
            out.append(
                f"| **{OURS[lang]}** | {' − '.join(f'{n:,}' for n in i['calls'])} | {num(i['stateless'])} | "
                f"{num(i['modern'])} | {i['ratio']:.1%} |"
            )
        out.append("")
    return out


def secure_table(r: Results) -> list[str]:
    if not r.secure:
        return []
    c = r.secure_config
    tok = c.get("token") or {}
    when = measured_when(r, "secure")
    tls = next((m["https"].get("tls") for m in r.secure.values() if (m.get("https") or {}).get("tls")), None)
    # Rounds in which no run had more than 0.3 CPUs busy elsewhere (every round counts when too
    # few were quiet).
    counts = []
    for lang in language_order(r):
        h = (r.secure.get(OURS[lang]) or {}).get("http") or {}
        if "quiet_rounds" in h:
            q, n, used = h["quiet_rounds"], len(h.get("runs", [])), len(h.get("rounds_used", []))
            counts.append(f"{lang} {q} of {n}" + ("" if used == q else ", too few: every round counted"))
    quiet = f" (no run with more than 0.3 CPUs busy elsewhere: {'; '.join(counts)})" if counts else ""
    out = [
        f"#### Authorization and HTTPS, echo, {c.get('connections')} connections",
        "",
        "Each hypermcp server three times, side by side: plain HTTP; an OAuth resource server (`auth`: every "
        f"request carries a JWT, {tok.get('alg')} with an {tok.get('key')} key, {tok.get('bytes')} bytes, verified "
        "as the option does by default against the JWKS, fetched once and cached: signature, iss, aud, exp, nbf, "
        "the scope `mcp`); HTTPS "
        f"({tls or 'TLS'}, an {c.get('tls_key')} certificate). A session per connection; httpload runs a "
        f'server\'s configurations in turns, {in_turns(c, "secure.py")}{quiet}; "÷ plain HTTP" divides them by '
        f"the plain HTTP figure of the same server.{when}",
        "",
        "| system | configuration | calls/s | p50 µs | p99 µs | max µs | server CPU µs/call | client CPU µs/call "
        "| ÷ plain HTTP |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for lang in language_order(r):
        label = OURS[lang]
        if label not in r.secure:
            continue
        for key, what in SECURE_CONFIGS:
            m = r.sec(label, key)
            if not m:
                out.append(f"| **{label}** | {what} | failed or not run | | | | | | |")
                continue
            rel = f"{m['vs_http']:.1%}" if m.get("vs_http") else "–"
            out.append(
                f"| **{label}** | {what} | {num(m.get('calls_per_s'))} | {lat(m.get('p50_us'))} | "
                f"{lat(m.get('p99_us'))} | {lat(m.get('max_us'))} | {num(m.get('server_cpu_us'), 1)} | "
                f"{num(m.get('client_cpu_us'), 1)} | {rel} |"
            )
    out.append("")
    return out


def target_rows(r: Results) -> list[tuple[str, str, str, bool | None]]:
    rows = []
    eng = (r.d.get("engine") or {}).get("engine-tools-list") or {}
    for desc, kind, lang, key, limit in TARGETS:
        ours = OURS[lang]
        val: float | None = None
        shown = "–"
        met: bool | None = None
        want = ""
        if kind == "stdio":
            m = r.s(ours, key) or {}
            val = m.get("calls_per_s")
            want = f"≥ {limit:,}"
            if val is not None:
                shown, met = f"{val:,.0f}", val >= limit
        elif kind == "http":
            m = r.h(ours, key) or {}
            val, p99 = m.get("calls_per_s"), m.get("p99_us")
            want = f"≥ {limit:,} calls/s, p99 < 5 ms"
            if val is not None and p99 is not None:
                shown, met = f"{val:,.0f} calls/s, p99 {p99 / 1000:.2f} ms", val >= limit and p99 < 5000
        elif kind in ("init", "rss"):
            # The one-tool example server (the echo server), beside the 50-tool one.
            echo, bench = r.startup(ECHO[lang]) or {}, r.startup(ours) or {}
            want = f"≤ {limit} {'ms' if kind == 'init' else 'MB (read as MiB)'}"

            # RSS in MiB (2^20 bytes), the unit ps and top use; /proc counts KiB.
            unit = "ms" if kind == "init" else "MiB"

            def fig(st: dict, kind: str = kind) -> float | None:
                v = st.get("init_ms" if kind == "init" else "rss_kb")
                return None if v is None else v if kind == "init" else v / 1024

            val = fig(echo) if echo else fig(bench)
            if val is not None:
                shown, met = f"{val:.2f} {unit}", val <= limit
                if kind == "rss":
                    shown += f" = {val * 1.048576:.2f} MB"
                if echo and fig(bench) is not None:
                    shown += f" (one tool; the 50-tool server: {fig(bench):.2f} {unit})"
        elif kind == "session":
            b = (r.mem(ours) or {}).get("bytes_per_session")
            want = "≤ 4 KB (read as 4,096 bytes)"
            if isinstance(b, (int, float)):
                shown, met = f"{b:,.0f} bytes", b <= limit
        elif kind == "engine":
            val = eng.get("p50_us")
            want = f"≤ {limit} µs"
            if val is not None:
                shown, met = f"{val:.1f} µs (p50; p99 {eng.get('p99_us', 0):.1f} µs)", val <= limit
        rows.append((desc, want, shown, met))
    return rows


def not_ahead(r: Results) -> list[str]:
    """Every (scenario, peer) where a hypermcp figure is not ahead of a peer in its language."""
    misses = []
    for lang in language_order(r):
        ours = OURS[lang]
        for p in r.peers(lang):
            pl = p["label"]
            for key, title in STDIO:
                a, b = (r.s(ours, key) or {}).get("calls_per_s"), (r.s(pl, key) or {}).get("calls_per_s")
                if a and b and a <= b:
                    misses.append(f"{title}: {ours} {a:,.0f} vs {pl} {b:,.0f} calls/s")
            for conns, title in HTTP:
                for suffix in ("", "-stateless", "-modern"):
                    a = (r.h(ours + suffix, conns) or {}).get("calls_per_s")
                    b = (r.h(pl + suffix, conns) or {}).get("calls_per_s")
                    if a and b and a <= b:
                        misses.append(f"{title} ({suffix[1:] or 'sessions'}): {ours} {a:,.0f} vs {pl} {b:,.0f} calls/s")
            so, sp = r.startup(ours) or {}, r.startup(pl) or {}
            for k, what, unit in (("init_ms", "spawn → initialize", "ms"), ("rss_kb", "idle RSS", "kB")):
                if so.get(k) and sp.get(k) and so[k] >= sp[k]:
                    misses.append(f"{what}: {ours} {so[k]:,.1f} vs {pl} {sp[k]:,.1f} {unit}")
            a, b = (r.mrtr(ours, "50") or {}).get("calls_per_s"), (r.mrtr(pl, "50") or {}).get("calls_per_s")
            if a and b and a <= b:
                misses.append(f"MRTR round trips, 50 connections: {ours} {a:,.0f} vs {pl} {b:,.0f}/s")
            for tr in ("http", "stdio"):
                lo, lp = r.listen(ours, tr) or {}, r.listen(pl, tr) or {}
                for k, what in (
                    ("all_ms", "ms until every listener is notified"),
                    ("bytes_per_listener", "bytes per listener"),
                ):
                    if lo.get(k) is not None and lp.get(k) is not None and lo[k] >= lp[k]:
                        misses.append(f"listen fan-out over {tr}, {what}: {ours} {lo[k]:,.1f} vs {pl} {lp[k]:,.1f}")
            mo, mp = (r.mem(ours) or {}).get("bytes_per_session"), (r.mem(pl) or {}).get("bytes_per_session")
            if isinstance(mo, (int, float)) and isinstance(mp, (int, float)) and mo >= mp:
                misses.append(f"bytes per idle HTTP session: {ours} {mo:,} vs {pl} {mp:,}")
    return misses


def markdown(r: Results) -> str:
    d, m, c = r.d, r.d.get("machine", {}), r.d.get("config", {})
    out = [
        BEGIN,
        "",
        f"Run of {d.get('date', '?')} at commit `{m.get('commit', '?')}`, {d.get('elapsed_s', 0) / 60:.1f} min: "
        f"{m.get('cpus')} × {m.get('cpu')}, {m.get('memory_gib')} GiB, Linux {m.get('kernel')}; {m.get('rustc')}, "
        f"{m.get('python')}, Node {m.get('node')}; "
        f"load average before the run {' '.join(m.get('loadavg_before', []))}. "
        f"Medians of {c.get('runs')} runs (stdio runs of ~{c.get('seconds')} s, "
        f"HTTP runs of {c.get('http_seconds')} s); "
        f"start-up figures are medians of {c.get('startup_runs')} spawns. Bold rows are hypermcp; "
        '"ours ÷ it" is the hypermcp figure of the same language divided by that peer\'s, measured in this same run.',
        "",
    ]
    for part, mp in (d.get("merged") or {}).items():
        out += [
            f"The `{part}` part is from a later run, merged into these results: {mp.get('date')} at commit "
            f"`{mp.get('commit')}`, load average before it {' '.join(mp.get('loadavg_before', []))}.",
            "",
        ]
    if c.get("quick"):
        out += ["**A `--quick` smoke run: one short run each. Not a measurement.**", ""]
    out += ["### Targets (issue 6)", "", "| target | wanted | measured | |", "|---|---|---|---|"]
    for desc, want, shown, met in target_rows(r):
        out.append(f"| {desc} | {want} | {shown} | {'met' if met else 'not met' if met is False else 'not measured'} |")
    out.append("")
    modern_rows = modern_target_rows(r)
    if modern_rows:
        out += [
            "### Targets (issue 13: the 2026-07-28 revision)",
            "",
            "| target | wanted | measured | |",
            "|---|---|---|---|",
        ]
        for desc, want, shown, met in modern_rows:
            out.append(
                f"| {desc} | {want} | {shown} | {'met' if met else 'not met' if met is False else 'not measured'} |"
            )
        out.append("")
    secure_rows = secure_target_rows(r)
    if secure_rows:
        out += [
            "### Targets (issue 14: authorization)",
            "",
            "| target | wanted | measured | |",
            "|---|---|---|---|",
        ]
        for desc, want, shown, met in secure_rows:
            out.append(
                f"| {desc} | {want} | {shown} | {'met' if met else 'not met' if met is False else 'not measured'} |"
            )
        out.append("")
    misses = not_ahead(r)
    out += ["### hypermcp against every peer of its language", ""]
    if misses:
        out += ["Figures where a hypermcp server is **not** ahead of a peer in this run:", ""]
        out += [f"- {x}" for x in misses]
    else:
        out.append(
            "In this run every hypermcp figure (throughput in every scenario, start-up time, idle RSS and "
            "bytes per idle HTTP session) is ahead of every peer of the same language."
        )
    out += ["", "![calls/s and p99 per system and scenario](chart.png)", ""]
    out += ["### Results", ""]
    for key, title in STDIO[:3]:
        out += throughput_table(r, title, lambda label, k=key: r.s(label, k))
    out += throughput_table(r, STDIO[3][1] + " (calls/s = MiB/s)", lambda label: r.s(label, "read-seq"))
    for conns, title in HTTP:
        out += http_table(r, conns, title)
    out += secure_table(r)
    out += eras_table(r)
    out += modern_tables(r)
    out += rivals_table(r)
    out += footprint_table(r)
    eng = d.get("engine") or {}
    if eng:
        out += ["#### Inside the engine (no I/O)", "", "| case | p50 µs | p99 µs | mean µs |", "|---|---:|---:|---:|"]
        for k, v in eng.items():
            out.append(f"| {k} | {v.get('p50_us', '–')} | {v.get('p99_us', '–')} | {v.get('mean_us', '–')} |")
        out.append("")
    if d.get("failures"):
        out += ["#### Failures in this run", ""] + [f"- {x}" for x in d["failures"]] + [""]
    out += ["| system | command |", "|---|---|"]
    for s in d.get("systems", []):
        out.append(
            f"| {s['label']} | `{s['command']}`{' (missing: ' + s['missing'] + ')' if s.get('missing') else ''} |"
        )
    out += ["", END]
    return "\n".join(out) + "\n"


def chart(r: Results, path: Path) -> bool:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("report.py: matplotlib not available; chart not redrawn", file=sys.stderr)
        return False
    scen = [(f"stdio {t.split(', ', 1)[1]}", lambda label, k=k: r.s(label, k)) for k, t in STDIO]
    scen += [(f"HTTP {c} conn{'s' if c != '1' else ''}", lambda label, c=c: r.h(label, c)) for c, _ in HTTP]
    labels = [s["label"] for s in r.systems]
    palette = {
        "hypermcp-rust": "#b7410e",
        "hypermcp-python": "#1f5fa8",
        "hypermcp-node": "#3c8c3c",
        "rmcp": "#e8a98f",
        "official-python": "#9fbbe0",
        "fastmcp": "#c5d6ee",
        "official-typescript": "#a9d3a9",
    }
    fig, axes = plt.subplots(2, len(scen), figsize=(3.1 * len(scen), 7.5), sharey="row")
    for i, (title, get) in enumerate(scen):
        vals = [(get(x) or {}) for x in labels]
        cps = [v.get("calls_per_s") or 0 for v in vals]
        p99 = [(v.get("p99_us") or 0) / 1000 for v in vals]
        colors = [palette.get(x, "#888888") for x in labels]
        for row, data, unit in ((0, cps, "calls/s"), (1, p99, "p99 ms")):
            ax = axes[row][i]
            ax.bar(range(len(labels)), [x if x > 0 else float("nan") for x in data], color=colors)
            ax.set_yscale("log")
            ax.set_xticks(range(len(labels)))
            ax.set_xticklabels(labels, rotation=70, ha="right", fontsize=7)
            ax.grid(axis="y", which="both", alpha=0.25)
            if row == 0:
                ax.set_title(title.replace(", sequential", " seq").replace(" (50 tools)", ""), fontsize=9)
            if i == 0:
                ax.set_ylabel(f"{unit} (log)" + (", higher is better" if row == 0 else ", lower is better"))
            for j, v in enumerate(data):
                if v > 0:
                    ax.text(
                        j,
                        v,
                        f"{v:,.0f}" if row == 0 else f"{v:.2g}",
                        ha="center",
                        va="bottom",
                        fontsize=5.5,
                        rotation=90,
                    )
    fig.suptitle(
        f"hypermcp vs peers, {r.d.get('date', '')}, commit {r.d.get('machine', {}).get('commit', '')} "
        "(HTTP: stateful mode; medians)",
        fontsize=10,
    )
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return True


def main() -> int:
    if len(sys.argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    r = Results(json.loads(Path(sys.argv[1]).read_text()))
    md = markdown(r)
    if "--stdout" in sys.argv[2:]:
        print(md)
        return 0
    text = README.read_text() if README.exists() else ""
    if BEGIN in text and END in text:
        head, rest = text.split(BEGIN, 1)
        tail = rest.split(END, 1)[1]
        text = head + md.rstrip("\n") + tail
    else:
        text = text.rstrip("\n") + ("\n\n" if text else "") + md
    README.write_text(text)
    drawn = chart(r, CHART)
    print(
        f"report.py: wrote {README.relative_to(ROOT)}" + (f" and {CHART.relative_to(ROOT)}" if drawn else ""),
        file=sys.stderr,
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
