#!/usr/bin/env python3
"""Replicas behind a real load balancer (issue 16): for each language, three replicas of the
weather example server sharing their sessions in Redis, behind nginx round-robin (no sticky
sessions), driven by the official Python SDK client; what the README's deployment recipe
describes, run.

    run_scale.py [rust] [python] [node]     (default: all three)

Environment: RUST_EXAMPLES (target/release/examples), VENV (.venv), PEERS (.peers).
Needs redis-server and nginx (`make peers` installs them from Debian).

For each language:
1. redis-server on a free loopback port; three replicas with HYPERMCP_STORE pointing at it
   and one HYPERMCP_REQUEST_STATE_KEYS; nginx on a free port, round-robin over them;
2. tests/scale/scale_legacy.py: a full legacy session through nginx (progress, an elicitation
   and a sampling answered through the balancer, a subscription whose update is raised on
   another replica, the replica holding the GET stream killed with SIGKILL and the stream
   resumed on another);
3. the nginx log shows the session's requests spread over several replicas;
   tests/scale/scale_modern.py and scale_ours.py: the 2026-07-28 era through the two
   replicas left, with the official SDK's client and with ours (multi round-trip requests
   retried on other replicas, a listen stream hearing updates raised on others);
4. Redis restarted (it keeps nothing: no persistence): the surviving replicas recover on
   their own and a new session (without the kill) runs through them;
5. after the sessions ended (DELETE), Redis holds no record of them.
Exit 0 when every language passed; the output of a failed step is printed.
"""

from __future__ import annotations

import base64
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent.parent
EXAMPLES = Path(
    os.environ.get("RUST_EXAMPLES")
    or Path(os.environ.get("HYPERMCP_BUILD") or REPO / "target" / "release") / "examples"
)
VENV = Path(os.environ.get("VENV", REPO / ".venv"))
NGINX = shutil.which("nginx") or "/usr/sbin/nginx"

SERVERS = {
    "rust": [str(EXAMPLES / "weather_server")],
    "python": [str(VENV / "bin" / "python"), str(REPO / "examples" / "python" / "weather_server.py")],
    "node": ["node", str(REPO / "examples" / "node" / "weather_server.mjs")],
}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_port(port: int, proc: subprocess.Popen[bytes] | None, what: str, seconds: float = 30) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if proc is not None and proc.poll() is not None:
            raise RuntimeError(f"{what} exited ({proc.returncode}) before listening on {port}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return
        except OSError:
            time.sleep(0.05)
    raise RuntimeError(f"{what} did not listen on {port} within {seconds} s")


def redis_cli(port: int, *args: str) -> str:
    out = subprocess.run(["redis-cli", "-p", str(port), *args], capture_output=True, text=True, timeout=10)
    return out.stdout.strip()


class Stack:
    """Redis, three replicas and nginx for one language, in a temporary directory."""

    def __init__(self, lang: str, cmd: list[str] | None = None, replicas: int = 3, store: bool = True) -> None:
        """Replicas of ``cmd`` (default: the language's weather server) with ``--http PORT``;
        ``store``: sharing sessions in Redis (else each keeps its own)."""
        self.lang = lang
        self.cmd = cmd or SERVERS[lang]
        self.count = replicas
        self.dir = Path(tempfile.mkdtemp(prefix=f"hypermcp-scale-{lang}-"))
        self.redis_port = free_port()
        self.redis: subprocess.Popen[bytes] | None = None
        self.replicas: dict[int, subprocess.Popen[bytes]] = {}
        self.nginx: subprocess.Popen[bytes] | None = None
        self.nginx_port = free_port()
        self.env = dict(os.environ)
        self.env.pop("HYPERMCP_STORE", None)
        if store:
            self.env["HYPERMCP_STORE"] = f"redis://127.0.0.1:{self.redis_port}/0"
        self.env["HYPERMCP_REQUEST_STATE_KEYS"] = base64.b64encode(os.urandom(32)).decode()

    def start_redis(self) -> None:
        self.redis = subprocess.Popen(
            ["redis-server", "--port", str(self.redis_port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
            cwd=self.dir,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        wait_port(self.redis_port, self.redis, "redis-server")

    def stop_redis(self) -> None:
        if self.redis is not None:
            self.redis.kill()
            self.redis.wait()
            self.redis = None

    def start(self) -> None:
        self.start_redis()
        for n in range(self.count):
            port = free_port()
            log = open(self.dir / f"replica-{n}.log", "wb")
            p = subprocess.Popen([*self.cmd, "--http", str(port)], env=self.env, stdout=log, stderr=log)
            self.replicas[port] = p
        for port, p in self.replicas.items():
            wait_port(port, p, f"{self.lang} replica")
        upstreams = "\n".join(f"    server 127.0.0.1:{p} max_fails=1 fail_timeout=5s;" for p in self.replicas)
        conf = f"""
worker_processes 1;
daemon off;
pid {self.dir}/nginx.pid;
error_log {self.dir}/nginx-error.log warn;
events {{ worker_connections 1024; }}
http {{
  log_format mcp '$request_method $upstream_addr $status $http_mcp_session_id';
  access_log {self.dir}/access.log mcp;
  client_body_temp_path {self.dir}/body;
  proxy_temp_path {self.dir}/proxy;
  fastcgi_temp_path {self.dir}/fastcgi;
  uwsgi_temp_path {self.dir}/uwsgi;
  scgi_temp_path {self.dir}/scgi;
  upstream mcp {{
{upstreams}
    keepalive 32;
  }}
  server {{
    listen 127.0.0.1:{self.nginx_port};
    location / {{
      proxy_pass http://mcp;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_set_header Host $host;
      proxy_buffering off;
      proxy_cache off;
      proxy_read_timeout 1h;
      # For the test only: which replica answered (the driver finds the GET stream's).
      add_header X-Upstream $upstream_addr always;
    }}
  }}
}}
"""
        (self.dir / "nginx.conf").write_text(conf)
        self.nginx = subprocess.Popen(
            [NGINX, "-p", str(self.dir), "-c", str(self.dir / "nginx.conf")],
            stdout=subprocess.DEVNULL,
            stderr=open(self.dir / "nginx-start.log", "wb"),
        )
        wait_port(self.nginx_port, self.nginx, "nginx")

    def url(self) -> str:
        return f"http://127.0.0.1:{self.nginx_port}/mcp"

    def live(self) -> dict[int, int]:
        return {port: p.pid for port, p in self.replicas.items() if p.poll() is None}

    def logs(self) -> str:
        out = []
        for f in sorted(self.dir.glob("*.log")):
            text = f.read_text(errors="replace")[-3000:]
            if text.strip():
                out.append(f"--- {f.name}\n{text}")
        return "\n".join(out)

    def stop(self) -> None:
        if self.nginx is not None:
            self.nginx.send_signal(signal.SIGQUIT)
            try:
                self.nginx.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.nginx.kill()
        for p in self.replicas.values():
            if p.poll() is None:
                p.terminate()
        for p in self.replicas.values():
            try:
                p.wait(timeout=10)
            except subprocess.TimeoutExpired:
                p.kill()
        self.stop_redis()
        shutil.rmtree(self.dir, ignore_errors=True)


def drive(stack: Stack, kill: bool) -> tuple[str, str]:
    """Runs scale_legacy.py through the balancer: (its ok line, the session id)."""
    cmd = [sys.executable, str(REPO / "tests" / "scale" / "scale_legacy.py"), "--url", stack.url()]
    for port, pid in stack.live().items():
        cmd += ["--replica", f"{port}:{pid}"]
    if not kill:
        cmd.append("--no-kill")
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=150, env=stack.env)
    if r.returncode != 0:
        raise RuntimeError(f"scale_legacy.py failed:\n{r.stdout}{r.stderr}")
    session = ""
    for line in r.stderr.splitlines():
        if line.startswith('{"session"'):
            import json

            session = json.loads(line)["session"]
    return r.stdout.strip(), session


def run(lang: str) -> None:
    stack = Stack(lang)
    try:
        stack.start()
        line, session = drive(stack, kill=True)
        print(f"  {lang}: {line}")
        # The session's requests went to several replicas (round-robin, no stickiness).
        served = set()
        for entry in (stack.dir / "access.log").read_text().splitlines():
            parts = entry.split()
            if len(parts) >= 4 and parts[3] == session:
                served.add(parts[1])
        if len(served) < 2:
            raise RuntimeError(f"the session was served by {sorted(served)} only")
        print(f"  {lang}: the session's requests were served by {len(served)} replicas ({', '.join(sorted(served))})")
        # The 2026-07-28 era: multi round-trip requests and a listen stream across replicas.
        cmd = [sys.executable, str(REPO / "tests" / "scale" / "scale_modern.py"), "--url", stack.url()]
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=90, env=stack.env)
        if r.returncode != 0:
            raise RuntimeError(f"scale_modern.py failed:\n{r.stdout}{r.stderr}")
        print(f"  {lang}: {r.stdout.strip()}")
        # The same with hypermcp's own client (run with the project's venv, where it is installed).
        cmd = [str(VENV / "bin" / "python"), str(REPO / "tests" / "scale" / "scale_ours.py"), "--url", stack.url()]
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=90, env=stack.env)
        if r.returncode != 0:
            raise RuntimeError(f"scale_ours.py failed:\n{r.stdout}{r.stderr}")
        print(f"  {lang}: {r.stdout.strip()}")
        # Redis restarted empty: the surviving replicas recover without a restart.
        stack.stop_redis()
        time.sleep(0.5)
        stack.start_redis()
        deadline = time.monotonic() + 20
        while True:
            try:
                line, _ = drive(stack, kill=False)
                break
            except RuntimeError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(1)
        print(f"  {lang}: after a Redis restart: {line}")
        time.sleep(0.5)
        left = redis_cli(stack.redis_port, "--scan", "--pattern", "hypermcp:s:*")
        if left:
            raise RuntimeError(f"session records left in Redis after the sessions ended: {left}")
        print(f"  {lang}: no session record left in Redis")
    except BaseException:
        print(stack.logs(), file=sys.stderr)
        raise
    finally:
        stack.stop()


def main() -> int:
    langs = sys.argv[1:] or ["rust", "python", "node"]
    for lang in langs:
        if lang not in SERVERS:
            print(f"run_scale.py: unknown language {lang!r} (rust, python, node)", file=sys.stderr)
            return 2
    for tool in ("redis-server", "redis-cli"):
        if shutil.which(tool) is None:
            print(f"run_scale.py: {tool} not found (make peers installs it)", file=sys.stderr)
            return 1
    if not os.access(NGINX, os.X_OK):
        print("run_scale.py: nginx not found (make peers installs it)", file=sys.stderr)
        return 1
    failed = []
    for lang in langs:
        print(f"scale: {lang}: three replicas behind nginx, sessions in Redis")
        try:
            run(lang)
        except Exception as e:  # noqa: BLE001 - reported, then the next language
            print(f"scale: {lang}: FAILED: {e}", file=sys.stderr)
            failed.append(lang)
    if failed:
        print(f"scale: FAILED for {', '.join(failed)}", file=sys.stderr)
        return 1
    print(f"scale: ok ({', '.join(langs)})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
