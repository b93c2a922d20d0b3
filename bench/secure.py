"""The authorization and TLS rows of the suite (issue 14), for bench/run.py's `secure` part.

For each hypermcp server (Rust, Python, Node) three configurations of the same Streamable HTTP
echo, each its own server process, started side by side:

  http        plain HTTP, no authorization (the suite's usual HTTP server);
  http-auth   plain HTTP, an OAuth resource server (the `auth` option): every request carries
              `Authorization: Bearer <JWT>`, verified against the JWKS (fetched once, then
              cached): signature, iss, aud, exp, nbf and the required scope `mcp`;
  https       HTTPS (`tls_cert` / `tls_key`), no authorization.

`httpload` runs them in turns, the order rotating each round, `rounds` runs of `seconds` each at
50 keep-alive connections (a session each, handshake and warm-up first), so that a busy moment
of this shared machine falls on every configuration alike; a run during which more than
OTHER_MAX CPUs were busy outside the server and httpload is measured once more and the quieter
attempt kept (as bench/http.sh does). The figures are the medians over the quiet rounds (every
run of the round with at most OTHER_MAX CPUs busy elsewhere; every round if fewer than
QUIET_MIN were quiet), and "÷ plain HTTP" is the ratio of the medians.

Everything the run needs it makes in a temporary directory with `openssl` (no package): an
RSA 2048 key and its JWKS (served on loopback by a thread of this process: plain http is
accepted for a JWKS only on loopback), a long-lived RS256 access token, and a test CA with
a P-256 server certificate for 127.0.0.1 (the CA file httpload trusts).
"""

from __future__ import annotations

import base64
import http.server
import json
import os
import signal
import socket
import statistics
import subprocess
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

# The canonical URI the bench servers protect (the token's audience) and the scope they require.
RESOURCE = "https://mcp.bench.invalid/mcp"
SCOPE = "mcp"
KID = "bench-rs256"
CONNECTIONS = 50
THREADS = 2
WARMUP = 1000
OTHER_MAX = 0.3
QUIET_MIN = 3
# What is kept of each httpload run (its other members restate the configuration).
RUN_FIELDS = (
    "calls_per_s",
    "p50_us",
    "p99_us",
    "max_us",
    "init_ms",
    "ok",
    "failures",
    "requests",
    "client_cpu_us",
    "tls",
)
CLK_TCK = os.sysconf("SC_CLK_TCK")


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def openssl(cwd: Path, *args: str) -> str:
    proc = subprocess.run(["openssl", *args], cwd=cwd, capture_output=True, text=True)
    if proc.returncode != 0:
        raise RuntimeError(f"openssl {' '.join(args[:2])}: {proc.stderr.strip()[-400:]}")
    return proc.stdout


class JwksServer:
    """The authorization server's JWKS at http://127.0.0.1:PORT/jwks.json (a thread); counts
    the fetches (the servers should fetch it once each)."""

    def __init__(self) -> None:
        self.body = b"{}"
        self.fetches = 0
        outer = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                if self.path != "/jwks.json":
                    self.send_error(404)
                    return
                outer.fetches += 1
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(outer.body)))
                self.end_headers()
                self.wfile.write(outer.body)

            def log_message(self, format: str, *args: object) -> None:
                pass

        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.issuer = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        self.jwks_uri = f"{self.issuer}/jwks.json"
        self.thread = threading.Thread(target=self.httpd.serve_forever, name="jwks", daemon=True)

    def __enter__(self) -> JwksServer:
        self.thread.start()
        return self

    def __exit__(self, *_: object) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


@dataclass
class Material:
    ca: Path
    cert: Path
    key: Path
    token: str
    issuer: str
    jwks_uri: str


def make_material(d: Path, jwks: JwksServer) -> Material:
    """The JWT signing key (its JWKS goes to `jwks`), a token, and the TLS CA and server
    certificate, all in `d`."""
    # The authorization server's key, and its JWKS.
    openssl(d, "genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048", "-out", "jwt.key")
    modulus = openssl(d, "rsa", "-in", "jwt.key", "-noout", "-modulus").strip().split("=", 1)[1]
    text = openssl(d, "rsa", "-in", "jwt.key", "-noout", "-text")
    exponent = int(next(x for x in text.splitlines() if x.startswith("publicExponent")).split()[1])
    n, e = bytes.fromhex(modulus), exponent.to_bytes((exponent.bit_length() + 7) // 8, "big")
    jwk = {"kty": "RSA", "kid": KID, "use": "sig", "alg": "RS256", "n": b64url(n), "e": b64url(e)}
    jwks.body = json.dumps({"keys": [jwk]}).encode()

    # A long-lived access token (RFC 9068 shape), signed RS256 (PKCS #1 v1.5 over SHA-256).
    now = int(time.time())
    header = {"alg": "RS256", "typ": "at+jwt", "kid": KID}
    claims = {
        "iss": jwks.issuer,
        "aud": RESOURCE,
        "sub": "bench-user",
        "client_id": "bench-client",
        "scope": f"{SCOPE} profile",
        "iat": now,
        "nbf": now - 60,
        "exp": now + 30 * 24 * 3600,
        "jti": b64url(os.urandom(12)),
    }
    signing_input = ".".join(b64url(json.dumps(x, separators=(",", ":")).encode()) for x in (header, claims))
    (d / "jwt.in").write_text(signing_input)
    openssl(d, "dgst", "-sha256", "-sign", "jwt.key", "-out", "jwt.sig", "jwt.in")
    token = f"{signing_input}.{b64url((d / 'jwt.sig').read_bytes())}"

    # A test CA and the servers' certificate for 127.0.0.1 (P-256).
    ec = ("-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes")
    openssl(
        d, "req", "-x509", *ec, "-keyout", "ca.key", "-out", "ca.pem", "-days", "30",
        "-subj", "/CN=hypermcp bench CA",
        "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign",
    )  # fmt: skip
    openssl(d, "req", "-new", *ec, "-keyout", "server.key", "-out", "server.csr", "-subj", "/CN=127.0.0.1")
    (d / "server.ext").write_text(
        "subjectAltName=IP:127.0.0.1,DNS:localhost\nbasicConstraints=critical,CA:FALSE\n"
        "keyUsage=critical,digitalSignature\nextendedKeyUsage=serverAuth\n"
    )
    openssl(
        d, "x509", "-req", "-in", "server.csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-set_serial", "2",
        "-days", "30", "-extfile", "server.ext", "-out", "server.pem",
    )  # fmt: skip
    return Material(d / "ca.pem", d / "server.pem", d / "server.key", token, jwks.issuer, jwks.jwks_uri)


def summarize(runs: dict[str, list[dict]], base: str = "http") -> dict:
    """Medians per configuration, and each divided by the `base` configuration's (plain HTTP;
    run i of every configuration is from round i). Only the quiet rounds count, those during
    which no run had more than OTHER_MAX CPUs busy outside the server and httpload, when there
    are at least QUIET_MIN of them (else every round, and `quiet_rounds` says how few were
    quiet). The rest of the keys of each configuration's result are named as for plain HTTP
    (`vs_http`, `vs_http_paired`) whatever the base."""
    rounds = len(runs[base])
    quiet = [i for i in range(rounds) if all(r[i].get("other_cpus", 0) <= OTHER_MAX for r in runs.values())]
    used = quiet if len(quiet) >= min(QUIET_MIN, rounds) else list(range(rounds))
    res: dict = {}
    for name, rs in runs.items():
        rs_used = [rs[i] for i in used]
        res[name] = {
            k: statistics.median(x[k] for x in rs_used)
            for k in ("calls_per_s", "p50_us", "p99_us", "max_us", "server_cpu_us", "client_cpu_us")
            if all(x.get(k) is not None for x in rs_used)
        }
        res[name].update(runs=rs, rounds_used=used, quiet_rounds=len(quiet))
        if rs[-1].get("tls"):
            res[name]["tls"] = rs[-1]["tls"]
    base_calls = res[base]["calls_per_s"]
    for name in runs:
        if name == base:
            continue
        res[name]["vs_http"] = res[name]["calls_per_s"] / base_calls if base_calls else None
        # The same ratio taken within each round (the neighbours' load of that minute).
        res[name]["vs_http_paired"] = statistics.median(
            runs[name][i]["calls_per_s"] / runs[base][i]["calls_per_s"] for i in used
        )
    return res


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def group_cpu_ticks(pgid: int) -> int:
    """utime + stime of the processes of group `pgid` (every thread included)."""
    total = 0
    for p in Path("/proc").iterdir():
        if not p.name.isdigit():
            continue
        try:
            stat = (p / "stat").read_text()
        except OSError:
            continue
        f = stat[stat.rfind(")") + 2 :].split()
        if int(f[2]) == pgid:
            total += int(f[11]) + int(f[12])
    return total


def machine_ticks() -> int:
    """Busy CPU ticks of the whole machine (user, nice, system, irq, softirq, steal)."""
    f = Path("/proc/stat").read_text().split("\n", 1)[0].split()
    return sum(int(f[i]) for i in (1, 2, 3, 6, 7, 8))


@dataclass
class Config:
    name: str
    server_flags: list[str]
    url_scheme: str
    load_flags: list[str]
    # What the start-up probe (one session's handshake) adds; None: load_flags.
    probe_flags: list[str] | None = None
    connections: int = CONNECTIONS
    proc: subprocess.Popen | None = None
    log: Path | None = None
    url: str = ""
    runs: list[dict] = field(default_factory=list)


class Secure:
    def __init__(
        self, httpload: Path, seconds: float, rounds: int, say: Callable[..., None], fail: Callable[[str], None]
    ) -> None:
        self.httpload = httpload
        self.seconds = seconds
        self.rounds = rounds
        self.say = say
        self.fail = fail

    def run(self, systems: list[tuple[str, list[str]]]) -> dict | None:
        """Measures each (label, server command) in the three configurations."""
        started = time.time()
        with tempfile.TemporaryDirectory(prefix="hypermcp-bench-secure-") as tmp, JwksServer() as jwks:
            try:
                m = make_material(Path(tmp), jwks)
            except (OSError, RuntimeError) as e:
                self.fail(f"secure: making the keys and certificates failed: {e}")
                return None
            out: dict = {
                "config": {
                    "connections": CONNECTIONS,
                    "threads": THREADS,
                    "warmup": WARMUP,
                    "seconds": self.seconds,
                    "rounds": self.rounds,
                    "token": {"alg": "RS256", "key": "RSA 2048", "bytes": len(m.token), "scope": SCOPE},
                    "resource": RESOURCE,
                    "tls_key": "ECDSA P-256",
                },
                "systems": {},
            }
            for label, command in systems:
                res = self.system(label, command, m, Path(tmp))
                if res is not None:
                    out["systems"][label] = res
            out["config"]["jwks_fetches"] = jwks.fetches
        out["elapsed_s"] = round(time.time() - started, 1)
        return out

    def system(self, label: str, command: list[str], m: Material, tmp: Path) -> dict | None:
        auth = ["--auth-issuer", m.issuer, "--auth-jwks", m.jwks_uri, "--auth-resource", RESOURCE]
        tls = ["--tls-cert", str(m.cert), "--tls-key", str(m.key)]
        configs = [
            Config("http", [], "http", []),
            Config("http-auth", auth, "http", ["--bearer", m.token]),
            Config("https", tls, "https", ["--ca-file", str(m.ca)]),
        ]
        names = " / ".join(c.name for c in configs)
        self.say(f"{label}: echo at {CONNECTIONS} connections, {names} in turns")
        try:
            for c in configs:
                if not self.start(label, command, c, tmp):
                    return None
            # The protected server must refuse a request without the token.
            probe = self.load(configs[1], ["--sessions", "1", "--idle-only", "--timeout", "5"], with_flags=False)
            if probe.returncode == 0 or "401" not in probe.stderr:
                self.fail(f"{label} http-auth: a request without a token was not refused with 401")
                return None
            if not self.in_turns(label, configs):
                return None
            res = summarize({c.name: c.runs for c in configs})
            for c in configs:
                res[c.name]["command"] = " ".join([*command, "--http", "PORT", *c.server_flags])
            self.say(
                "  "
                + ", ".join(f"{c.name} {res[c.name]['calls_per_s']:,.0f}" for c in configs)
                + " calls/s; authenticated ÷ plain "
                + f"{res['http-auth']['vs_http']:.1%}, HTTPS ÷ plain {res['https']['vs_http']:.1%}"
            )
            return res
        finally:
            for c in configs:
                self.stop(c)

    def order(self, r: int, configs: list[Config]) -> list[Config]:
        """The configurations in the order round `r` measures them: rotating."""
        k = r % len(configs)
        return configs[k:] + configs[:k]

    def in_turns(self, label: str, configs: list[Config]) -> bool:
        """`rounds` rounds, each measuring every configuration once in `order`; a run with more
        than OTHER_MAX CPUs busy elsewhere is measured once more and the quieter attempt kept.
        False (and a failure said) when a run fails."""
        for r in range(self.rounds):
            for c in self.order(r, configs):
                run = self.measure(c)
                if run is not None and run.get("other_cpus", 0) > OTHER_MAX:
                    again = self.measure(c)
                    if again is not None and again.get("other_cpus", 0) < run["other_cpus"]:
                        again["noisy_attempt"] = {f: run.get(f) for f in ("calls_per_s", "other_cpus")}
                        run = again
                if run is None:
                    self.fail(f"{label} {c.name}: httpload failed")
                    return False
                c.runs.append(run)
        return True

    def load(self, c: Config, args: list[str], with_flags: bool = True) -> subprocess.CompletedProcess:
        """httpload against `c` (with its token or CA file unless `with_flags` is false)."""
        argv = [str(self.httpload), "--url", c.url, *args, *(c.load_flags if with_flags else [])]
        return subprocess.run(argv, capture_output=True, text=True, timeout=120 + 4 * self.seconds)

    def start(self, label: str, command: list[str], c: Config, tmp: Path) -> bool:
        """Starts `command` in configuration `c` on a free port (another one if the port was
        taken) and waits until it completes an MCP handshake."""
        c.log = tmp / f"{label}-{c.name}.log"
        for _ in range(3):
            port = free_port()
            c.url = f"{c.url_scheme}://127.0.0.1:{port}/mcp"
            with c.log.open("w") as log:
                c.proc = subprocess.Popen(
                    [*command, "--http", str(port), *c.server_flags],
                    stdin=subprocess.DEVNULL,
                    stdout=log,
                    stderr=subprocess.STDOUT,
                    start_new_session=True,
                )
            deadline = time.time() + 20
            while time.time() < deadline and c.proc.poll() is None:
                probe = ["--sessions", "1", "--idle-only", "--timeout", "2"]
                if self.load(c, probe + (c.probe_flags or []), with_flags=c.probe_flags is None).returncode == 0:
                    return True
                time.sleep(0.2)
            if c.proc.poll() is None:
                self.fail(f"{label} {c.name}: no MCP answer at {c.url} within 20 s")
                return False
            if "in use" not in c.log.read_text(errors="replace").lower():
                break
        self.fail(f"{label} {c.name}: exited before answering: {c.log.read_text(errors='replace')[-600:]}")
        return False

    def stop(self, c: Config) -> None:
        if c.proc is None or c.proc.poll() is not None:
            return
        try:
            os.killpg(c.proc.pid, signal.SIGTERM)
            c.proc.wait(5)
        except subprocess.TimeoutExpired:
            os.killpg(c.proc.pid, signal.SIGKILL)
            c.proc.wait()
        except ProcessLookupError:
            pass

    def measure(self, c: Config) -> dict | None:
        """One httpload run against `c`: its JSON line, with the server's CPU per HTTP request
        and the CPUs busy outside the server and httpload meanwhile."""
        assert c.proc is not None
        t0, m0, w0 = group_cpu_ticks(c.proc.pid), machine_ticks(), time.monotonic()
        threads = 1 if c.connections == 1 else THREADS
        args = ["--json", "--connections", str(c.connections), "--threads", str(threads), "--calls", "100000000"]
        args += ["--duration", str(self.seconds), "--warmup", str(WARMUP), "--runs", "1", "--timeout", "10"]
        proc = self.load(c, args)
        t1, m1, w1 = group_cpu_ticks(c.proc.pid), machine_ticks(), time.monotonic()
        lines = [json.loads(x) for x in proc.stdout.splitlines() if x.startswith("{")]
        if proc.returncode != 0 or not lines:
            self.say(f"    {c.name}: httpload exit {proc.returncode}: {proc.stderr.strip()[-600:]}")
            return None
        run = {k: v for k, v in lines[-1].items() if k in RUN_FIELDS}
        requests = run.get("requests") or 0
        if requests:
            run["server_cpu_us"] = round((t1 - t0) / CLK_TCK * 1e6 / requests, 1)
            client_s = (run.get("client_cpu_us") or 0) * requests / 1e6
            other = ((m1 - m0) - (t1 - t0)) / CLK_TCK - client_s
            run["other_cpus"] = round(max(other, 0) / (w1 - w0), 2)
        return run
