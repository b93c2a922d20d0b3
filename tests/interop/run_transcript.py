#!/usr/bin/env python3
"""Raw stdio transcript checker for MCP servers (Python stdlib; jsonschema optional).

    run_transcript.py [options] TRANSCRIPT.json|DIR [...] -- CMD [ARGS...]

Each transcript file is one session: the runner spawns a fresh `CMD ARGS...`, and for
every step writes one raw line to the server's stdin and checks what comes back on stdout.
A directory argument means every *.json file in it (sorted). The closing line is
`transcript: N passed, M failed` (steps, over all files); exit status 1 on any failure.

A transcript is a JSON list of steps. A step has one way to send a line:
    {"send": <JSON value>}                 serialised compactly, plus "\\n"
    {"send_raw": "text"}                   the text as UTF-8, plus "\\n"
    {"send_hex": "c3 28 ..."}              raw bytes (hex; spaces ignored), plus "\\n"
    {"send_big": {"bytes": N, "template": <JSON value, optional>}}
                                           a line of exactly N bytes (plus "\\n"): the
                                           template (default: a ping request with id
                                           "big") padded with trailing spaces
    {"send_nested": {"depth": N, "open": "[", "close": "]"}}
                                           open*N + close*N (deeply nested JSON)
and an expectation:
    "expect": "nothing"                    no message within --quiet-ms (default 300 ms)
    "expect": {                            the next message (a response), checked for:
        "id": <value or null>,             its id (type-exact: 1 != "1" != 1.0 != true)
        "error_code": N,                   an error response with this code
        "error": true,                     an error response, any code
        "result_subset": {...},            a result containing this (objects: listed keys,
                                           recursively; arrays: same length, element-wise)
        "result_path_equals": {"a.b.0.c": value},   values inside the result
        "is_array_of": N,                  the line is a JSON array of N responses
        "array_ids": [...]                 ...whose ids are these, in any order
    }
Optional "name" labels a step in the output. Messages the server sends on its own
(requests/notifications, i.e. objects with a "method") are reported and skipped.
A step fails if the server process has exited after it.

Schema validation: if `jsonschema` is importable, every received message is validated
against tests/fixtures/schema/<rev>.json, where <rev> is the protocolVersion of the
initialize result (before that: --default-revision). Errors are checked against the
JSON-RPC error message type (an error with id null, which JSON-RPC 2.0 requires when the
request id could not be determined, is accepted); results of requests whose method is
known are checked against that method's result type (initialize -> InitializeResult,
tools/list -> ListToolsResult, ping -> EmptyResult, ...). A violation fails the step.
Run it with the peers venv (.peers/venv/bin/python, see setup_peers.sh) to get
validation; --require-schema makes a missing jsonschema an error.
"""

from __future__ import annotations

import argparse
import json
import os
import queue
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
DEFAULT_SCHEMA_DIR = REPO / "tests" / "fixtures" / "schema"
LATEST_LEGACY_REVISION = "2025-11-25"

try:  # optional
    import jsonschema  # type: ignore

    try:
        import referencing  # type: ignore  # jsonschema >= 4.18
        import referencing.jsonschema  # type: ignore
    except ImportError:  # pragma: no cover - old jsonschema
        referencing = None
except ImportError:
    jsonschema = None
    referencing = None

# Result type of each request method (first name that exists in the schema wins).
RESULT_TYPES: dict[str, list[str]] = {
    "initialize": ["InitializeResult"],
    "ping": ["EmptyResult", "Result"],
    "tools/list": ["ListToolsResult"],
    "tools/call": ["CallToolResult"],
    "resources/list": ["ListResourcesResult"],
    "resources/templates/list": ["ListResourceTemplatesResult"],
    "resources/read": ["ReadResourceResult"],
    "resources/subscribe": ["EmptyResult", "Result"],
    "resources/unsubscribe": ["EmptyResult", "Result"],
    "prompts/list": ["ListPromptsResult"],
    "prompts/get": ["GetPromptResult"],
    "completion/complete": ["CompleteResult"],
    "logging/setLevel": ["EmptyResult", "Result"],
    "tasks/get": ["GetTaskResult"],
    "tasks/list": ["ListTasksResult"],
    "tasks/cancel": ["CancelTaskResult"],
    "tasks/result": ["GetTaskPayloadResult", "Result"],
}
RESULT_MESSAGE_TYPES = ["JSONRPCResultResponse", "JSONRPCResponse"]
ERROR_MESSAGE_TYPES = ["JSONRPCErrorResponse", "JSONRPCError"]

MAX_SHOWN = 240  # characters of a received/sent line shown in the output


def short(text: str, limit: int = MAX_SHOWN) -> str:
    if len(text) <= limit:
        return text
    return f"{text[:limit]}... ({len(text)} chars)"


def dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def same(a: Any, b: Any) -> bool:
    """JSON equality that keeps types apart (1 vs 1.0 vs true vs "1")."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=True))
    return a == b


def subset_mismatch(want: Any, got: Any, path: str = "result") -> str | None:
    """None if `got` contains `want`, else where it differs."""
    if isinstance(want, dict):
        if not isinstance(got, dict):
            return f"{path} is {short(dumps(got), 80)}, want an object"
        for key, sub in want.items():
            if key not in got:
                return f"{path}.{key} is missing"
            err = subset_mismatch(sub, got[key], f"{path}.{key}")
            if err:
                return err
        return None
    if isinstance(want, list):
        if not isinstance(got, list) or len(got) != len(want):
            return f"{path} is {short(dumps(got), 80)}, want an array of {len(want)}"
        for i, (w, g) in enumerate(zip(want, got, strict=True)):
            err = subset_mismatch(w, g, f"{path}.{i}")
            if err:
                return err
        return None
    if not same(want, got):
        return f"{path} is {short(dumps(got), 80)}, want {dumps(want)}"
    return None


_MISSING = object()


def get_path(value: Any, path: str) -> Any:
    for part in path.split(".") if path else []:
        if isinstance(value, dict) and part in value:
            value = value[part]
        elif isinstance(value, list) and part.lstrip("-").isdigit() and -len(value) <= int(part) < len(value):
            value = value[int(part)]
        else:
            return _MISSING
    return value


# --------------------------------------------------------------------------- schemas


class SchemaSet:
    """Validators for the message types of one revision's schema.json."""

    def __init__(self, path: Path):
        self.path = path
        self.root = json.loads(path.read_text(encoding="utf-8"))
        self.defs_key = "$defs" if "$defs" in self.root else "definitions"
        self.defs = self.root[self.defs_key]
        self.cls = jsonschema.validators.validator_for(self.root)
        self.uri = path.resolve().as_uri()
        self._validators: dict[str, Any] = {}
        if referencing is not None:
            resource = referencing.Resource.from_contents(
                self.root, default_specification=referencing.jsonschema.DRAFT7
            )
            self.registry = referencing.Registry().with_resource(self.uri, resource)
        else:  # pragma: no cover - jsonschema < 4.18
            self.registry = None

    def first(self, names: list[str]) -> str | None:
        return next((n for n in names if n in self.defs), None)

    def validator(self, name: str):
        v = self._validators.get(name)
        if v is None:
            ref = {"$ref": f"{self.uri}#/{self.defs_key}/{name}"}
            if self.registry is not None:
                v = self.cls(ref, registry=self.registry)
            else:  # pragma: no cover
                resolver = jsonschema.RefResolver(self.uri, self.root)
                v = self.cls(ref, resolver=resolver)
            self._validators[name] = v
        return v

    def errors(self, name: str, instance: Any) -> list[str]:
        out = []
        for err in sorted(self.validator(name).iter_errors(instance), key=lambda e: list(e.path)):
            where = "/".join(str(p) for p in err.absolute_path) or "(root)"
            out.append(f"{where}: {short(err.message, 200)}")
        return out

    def id_required(self, type_name: str) -> bool:
        return "id" in self.defs[type_name].get("required", [])


class Schemas:
    def __init__(self, schema_dir: Path, enabled: bool):
        self.dir = schema_dir
        self.enabled = enabled and jsonschema is not None
        self._cache: dict[str, SchemaSet | None] = {}

    def get(self, revision: str) -> SchemaSet | None:
        if revision not in self._cache:
            path = self.dir / f"{revision}.json"
            self._cache[revision] = SchemaSet(path) if path.is_file() else None
        return self._cache[revision]


# --------------------------------------------------------------------------- server


class Server:
    """The process under test, with line-reading and writing threads."""

    def __init__(self, cmd: list[str]):
        self.cmd = cmd
        self.proc = subprocess.Popen(
            cmd,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            start_new_session=True,
        )
        self.lines: queue.Queue[bytes | None] = queue.Queue()
        self.eof = False
        self.outgoing: queue.Queue[bytes | None] = queue.Queue()
        self.stderr_tail: list[str] = []
        self._stderr_lock = threading.Lock()
        for target in (self._read_stdout, self._read_stderr, self._write_stdin):
            threading.Thread(target=target, daemon=True).start()

    def _read_stdout(self) -> None:
        assert self.proc.stdout
        for line in iter(self.proc.stdout.readline, b""):
            self.lines.put(line)
        self.lines.put(None)  # EOF

    def _read_stderr(self) -> None:
        assert self.proc.stderr
        for line in iter(self.proc.stderr.readline, b""):
            with self._stderr_lock:
                self.stderr_tail.append(line.decode("utf-8", "replace").rstrip("\n"))
                del self.stderr_tail[:-20]

    def _write_stdin(self) -> None:
        assert self.proc.stdin
        while True:
            data = self.outgoing.get()
            try:
                if data is None:
                    self.proc.stdin.close()
                    return
                self.proc.stdin.write(data)
                self.proc.stdin.flush()
            except (BrokenPipeError, OSError, ValueError):
                return

    def send(self, data: bytes) -> None:
        self.outgoing.put(data)

    def next_line(self, timeout: float) -> bytes | None | str:
        """A stdout line, None at EOF, or "timeout"."""
        if self.eof:
            return None
        try:
            line = self.lines.get(timeout=max(timeout, 0))
        except queue.Empty:
            return "timeout"
        if line is None:
            self.eof = True
        return line

    def exited(self) -> int | None:
        return self.proc.poll()

    def wait_exit(self, timeout: float) -> int | None:
        try:
            return self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            return None

    def gone(self) -> bool:
        """Exited, or closed its stdout (it can no longer answer)."""
        return self.eof or self.proc.poll() is not None

    def stderr_text(self) -> str:
        with self._stderr_lock:
            return "\n".join(self.stderr_tail[-10:])

    def stop(self) -> None:
        self.outgoing.put(None)  # close stdin: the stdio shutdown sequence
        try:
            self.proc.wait(timeout=2)
            return
        except subprocess.TimeoutExpired:
            pass
        for sig in (signal.SIGTERM, signal.SIGKILL):
            try:
                os.killpg(self.proc.pid, sig)
            except (ProcessLookupError, PermissionError):
                try:
                    self.proc.send_signal(sig)
                except ProcessLookupError:
                    return
            try:
                self.proc.wait(timeout=2)
                return
            except subprocess.TimeoutExpired:
                continue


# --------------------------------------------------------------------------- steps


class TranscriptError(Exception):
    pass


def build_line(step: dict) -> tuple[bytes, str, Any]:
    """(bytes to write including newline, label, parsed JSON value or None)."""
    if "send" in step:
        value = step["send"]
        text = dumps(value)
        if isinstance(value, dict) and "method" in value:
            label = f"{value['method']}" + (f" id={dumps(value['id'])}" if "id" in value else " (notification)")
        elif isinstance(value, list):
            label = f"batch of {len(value)}"
        else:
            label = short(text, 60)
        return text.encode("utf-8") + b"\n", label, value
    if "send_raw" in step:
        text = step["send_raw"]
        try:
            value = json.loads(text)
        except (ValueError, RecursionError):
            value = None
        return text.encode("utf-8") + b"\n", f"raw {short(dumps(text), 60)}", value
    if "send_hex" in step:
        data = bytes.fromhex("".join(step["send_hex"].split()))
        return data + b"\n", f"hex {short(data.hex(' '), 60)}", None
    if "send_big" in step:
        spec = step["send_big"]
        n = int(spec["bytes"])
        template = spec.get("template", {"jsonrpc": "2.0", "id": "big", "method": "ping"})
        head = dumps(template).encode("utf-8")
        if len(head) > n:
            raise TranscriptError(f"send_big: template is longer than {n} bytes")
        return head + b" " * (n - len(head)) + b"\n", f"line of {n} bytes ({n / 1048576:.2f} MiB)", template
    if "send_nested" in step:
        spec = step["send_nested"]
        depth = int(spec["depth"])
        data = (spec.get("open", "[") * depth + spec.get("close", "]") * depth).encode("utf-8")
        return data + b"\n", f"nested {spec.get('open', '[')} x{depth}", None
    raise TranscriptError(f"step has no send/send_raw/send_hex/send_big/send_nested: {short(dumps(step))}")


def id_key(value: Any) -> str:
    return f"{type(value).__name__}:{dumps(value)}"


class Session:
    def __init__(self, server: Server, schemas: Schemas, args: argparse.Namespace):
        self.server = server
        self.schemas = schemas
        self.args = args
        self.revision: str | None = None
        self.methods: dict[str, str] = {}  # id_key -> method of requests we sent
        self.notes: list[str] = []

    # -- bookkeeping
    def record_sent(self, value: Any) -> None:
        items = value if isinstance(value, list) else [value]
        for item in items:
            if isinstance(item, dict) and isinstance(item.get("method"), str) and "id" in item:
                self.methods[id_key(item["id"])] = item["method"]

    def revision_for_schema(self) -> str:
        return self.revision or self.args.default_revision

    # -- checks of one received message
    def check_message(self, msg: Any, problems: list[str]) -> None:
        """Shape + schema checks of one response object; appends problems."""
        if not isinstance(msg, dict):
            problems.append(f"message is not a JSON object: {short(dumps(msg), 80)}")
            return
        if msg.get("jsonrpc") != "2.0":
            problems.append('message lacks "jsonrpc": "2.0"')
        has_result, has_error = "result" in msg, "error" in msg
        if has_result == has_error:
            problems.append("a response must have exactly one of result/error")
        if "id" not in msg:
            problems.append("response has no id")
        method = self.methods.get(id_key(msg.get("id"))) if "id" in msg else None
        if has_result and method == "initialize" and isinstance(msg["result"], dict):
            pv = msg["result"].get("protocolVersion")
            if isinstance(pv, str):
                self.revision = pv
        if not self.schemas.enabled:
            return
        rev = self.revision_for_schema()
        schema = self.schemas.get(rev)
        if schema is None:
            note = f"no schema for revision {rev!r}: schema validation skipped"
            if note not in self.notes:
                self.notes.append(note)
            return
        if has_error and not has_result:
            type_name = schema.first(ERROR_MESSAGE_TYPES)
            inst = msg
            if msg.get("id", 0) is None:
                # JSON-RPC 2.0: id null when the request id could not be determined.
                inst = dict(msg)
                if schema.id_required(type_name):
                    inst["id"] = 0
                else:
                    del inst["id"]
            for e in schema.errors(type_name, inst):
                problems.append(f"schema {rev} {type_name}: {e}")
        elif has_result and not has_error:
            type_name = schema.first(RESULT_MESSAGE_TYPES)
            for e in schema.errors(type_name, msg):
                problems.append(f"schema {rev} {type_name}: {e}")
            result_type = schema.first(RESULT_TYPES.get(method or "", [])) if method else None
            if result_type:
                for e in schema.errors(result_type, msg["result"]):
                    problems.append(f"schema {rev} {result_type} ({method}): {e}")

    def check_expect(self, expect: dict, msg: Any) -> list[str]:
        problems: list[str] = []
        if "is_array_of" in expect or "array_ids" in expect:
            if not isinstance(msg, list):
                return [f"want a JSON array, got {type(msg).__name__}"]
            n = expect.get("is_array_of")
            if n is not None and len(msg) != n:
                problems.append(f"array has {len(msg)} elements, want {n}")
            for i, item in enumerate(msg):
                sub: list[str] = []
                self.check_message(item, sub)
                problems.extend(f"[{i}] {p}" for p in sub)
            if "array_ids" in expect:
                got = sorted(id_key(m.get("id")) for m in msg if isinstance(m, dict))
                want = sorted(id_key(v) for v in expect["array_ids"])
                if got != want:
                    ids = [m.get("id") for m in msg if isinstance(m, dict)]
                    problems.append(f"array ids are {dumps(ids)}, want {dumps(expect['array_ids'])} (any order)")
            return problems
        if isinstance(msg, list):
            return [f"got a JSON array of {len(msg)}, want one response"]
        self.check_message(msg, problems)
        if not isinstance(msg, dict):
            return problems
        if "id" in expect and not same(expect["id"], msg.get("id", _MISSING)):
            got_id = dumps(msg["id"]) if "id" in msg else "(none)"
            problems.append(f"id is {got_id}, want {dumps(expect['id'])}")
        wants_error = "error_code" in expect or expect.get("error") is True
        if wants_error:
            err = msg.get("error")
            if not isinstance(err, dict):
                problems.append("want an error response, got " + ("a result" if "result" in msg else "no error"))
            elif "error_code" in expect and not same(expect["error_code"], err.get("code")):
                problems.append(f"error code is {dumps(err.get('code'))}, want {expect['error_code']}")
        wants_result = "result_subset" in expect or "result_path_equals" in expect
        if wants_result:
            if "result" not in msg:
                problems.append("want a result, got " + ("an error" if "error" in msg else "no result"))
            else:
                result = msg["result"]
                if "result_subset" in expect:
                    err = subset_mismatch(expect["result_subset"], result)
                    if err:
                        problems.append(err)
                for path, want in expect.get("result_path_equals", {}).items():
                    got = get_path(result, path)
                    if got is _MISSING:
                        problems.append(f"result.{path} is missing, want {dumps(want)}")
                    elif not same(want, got):
                        problems.append(f"result.{path} is {short(dumps(got), 80)}, want {dumps(want)}")
        return problems

    # -- reading
    def read_message(self, deadline: float, skipped: list[str], bad: list[str]) -> tuple[str, Any, str]:
        """("msg", value, raw text) | ("timeout", None, "") | ("eof", None, "").

        Messages the server sends on its own (objects with a "method") go to `skipped`;
        lines that are not JSON-RPC text (invalid UTF-8, not JSON, empty) go to `bad`
        and reading goes on."""
        while True:
            line = self.server.next_line(deadline - time.monotonic())
            if line == "timeout":
                return "timeout", None, ""
            if line is None:
                return "eof", None, ""
            assert isinstance(line, bytes)
            try:
                text = line.decode("utf-8").rstrip("\r\n")
            except UnicodeDecodeError:
                bad.append(f"stdout line is not valid UTF-8: {short(repr(line))}")
                continue
            if not text.strip():
                bad.append("empty line on stdout")
                continue
            try:
                value = json.loads(text)
            except (ValueError, RecursionError):
                bad.append(f"stdout line is not JSON: {short(text)}")
                continue
            if isinstance(value, dict) and "method" in value:
                skipped.append(short(text, 120))
                continue
            return "msg", value, text

    def drain_unprompted(self, skipped: list[str]) -> list[str]:
        """Problems for output that is already waiting (nothing should be)."""
        problems: list[str] = []
        while True:
            bad: list[str] = []
            kind, _value, text = self.read_message(time.monotonic(), skipped, bad)
            problems.extend(bad)
            if kind != "msg":
                return problems
            problems.append(f"unexpected message: {short(text)}")

    def say(self, text: str) -> None:
        print(text, flush=True)

    def report(self, ok: bool, head: str, want: str, got: str, problems: list[str], skipped: list[str]) -> None:
        if ok:
            shown = f" -> {short(got, 120)}" if got else " -> (nothing)"
            self.say(f"  ok   {head}{shown}")
        else:
            self.say(f"  FAIL {head}")
            if want:
                self.say(f"       want: {short(want)}")
                self.say(f"       got:  {short(got) if got else '(nothing)'}")
            for p in problems:
                self.say(f"       - {p}")
        for s in skipped:
            self.say(f"       (server message skipped: {s})")

    # -- one step
    @staticmethod
    def label(step: dict) -> str:
        try:
            label = build_line(step)[1]
        except Exception:  # noqa: BLE001 - reported when the step runs
            label = "invalid step"
        return f"{step['name']}: {label}" if step.get("name") else label

    def run_step(self, index: int, step: dict) -> bool:
        problems: list[str] = []
        skipped: list[str] = []
        try:
            data, _, value = build_line(step)
        except (TranscriptError, KeyError, ValueError, TypeError) as exc:
            self.say(f"  FAIL #{index} invalid step: {exc}")
            return False
        head = f"#{index} {self.label(step)}"
        expect = step.get("expect")
        if expect != "nothing" and not isinstance(expect, dict):
            self.say(f'  FAIL {head}: step needs "expect": "nothing" or an object')
            return False

        for p in self.drain_unprompted(skipped):
            problems.append(f"before this step was sent: {p}")
        self.record_sent(value)
        self.server.send(data)

        got_text = ""
        bad: list[str] = []
        if expect == "nothing":
            want_text = "nothing"
            kind, _msg, text = self.read_message(time.monotonic() + self.args.quiet_ms / 1000, skipped, bad)
            if kind == "msg":
                problems.append("want no response")
                got_text = text
            elif kind == "eof":
                problems.append("server closed stdout")
        else:
            want_text = dumps(expect)
            kind, msg, text = self.read_message(time.monotonic() + self.args.step_timeout, skipped, bad)
            if kind == "timeout":
                problems.append(f"no response within {self.args.step_timeout:g}s")
            elif kind == "eof":
                problems.append("server closed stdout")
            else:
                got_text = text
                problems.extend(self.check_expect(expect, msg))
        problems[:0] = bad

        # Give a dying server a moment, so the step that killed it is the one that fails.
        code = self.server.wait_exit(1.0 if self.server.eof else 0.02)
        if code is not None:
            problems.append(f"server exited with code {code}")
        self.report(not problems, head, want_text, got_text, problems, skipped)
        return not problems

    def finish(self) -> bool:
        """After the last step: output that has arrived unasked is a failure."""
        skipped: list[str] = []
        problems = self.drain_unprompted(skipped)
        if problems or skipped:
            self.report(not problems, "after the last step", "", "", problems, skipped)
        return not problems


def run_file(path: Path, cmd: list[str], schemas: Schemas, args: argparse.Namespace) -> tuple[int, int]:
    print(f"== {path}", flush=True)
    try:
        steps = json.loads(path.read_text(encoding="utf-8"))
        if not isinstance(steps, list) or not all(isinstance(s, dict) for s in steps):
            raise ValueError("a transcript is a JSON list of step objects")
    except (OSError, ValueError) as exc:
        print(f"  FAIL cannot read transcript: {exc}")
        return 0, 1
    try:
        server = Server(cmd)
    except OSError as exc:
        print(f"  FAIL cannot start {' '.join(cmd)}: {exc}")
        return 0, len(steps) or 1
    session = Session(server, schemas, args)
    passed = failed = 0
    try:
        for i, step in enumerate(steps, 1):
            if server.gone() and i > 1:
                why = f"has exited (code {server.exited()})" if server.exited() is not None else "closed stdout"
                print(f"  FAIL #{i} {session.label(step)}: not run, the server {why}")
                failed += 1
                continue
            if session.run_step(i, step):
                passed += 1
            else:
                failed += 1
        if not server.gone() and not session.finish():
            failed += 1
    finally:
        code = server.exited()
        server.stop()
    for note in session.notes:
        print(f"  note: {note}")
    if failed and server.stderr_text():
        print("  server stderr (last lines):")
        for line in server.stderr_text().splitlines():
            print(f"    | {short(line, 200)}")
    if code is not None and failed:
        print(f"  server exited with code {code} during the session")
    print(f"  {path.name}: {passed} passed, {failed} failed", flush=True)
    return passed, failed


def parse_args(argv: list[str]) -> tuple[argparse.Namespace, list[str]]:
    if "--" not in argv:
        print("usage: run_transcript.py [options] TRANSCRIPT.json|DIR [...] -- CMD [ARGS...]", file=sys.stderr)
        sys.exit(2)
    cut = argv.index("--")
    cmd = argv[cut + 1 :]
    p = argparse.ArgumentParser(
        prog="run_transcript.py",
        usage="%(prog)s [options] TRANSCRIPT.json|DIR [...] -- CMD [ARGS...]",
        description="Run raw stdio transcripts against an MCP server (one process per file).",
    )
    p.add_argument("transcripts", nargs="+", type=Path)
    p.add_argument("--step-timeout", type=float, default=5.0, help="seconds to wait for a response (5)")
    p.add_argument("--quiet-ms", type=float, default=300, help='window for "expect": "nothing" (300)')
    p.add_argument("--schema-dir", type=Path, default=DEFAULT_SCHEMA_DIR, help="where <rev>.json schemas are")
    p.add_argument(
        "--default-revision",
        default=LATEST_LEGACY_REVISION,
        help=f"schema revision before initialize has succeeded ({LATEST_LEGACY_REVISION})",
    )
    p.add_argument("--no-schema", action="store_true", help="skip JSON Schema validation")
    p.add_argument("--require-schema", action="store_true", help="fail if jsonschema is not importable")
    args = p.parse_args(argv[:cut])
    if not cmd:
        p.error("no server command after --")
    return args, cmd


def main() -> int:
    args, cmd = parse_args(sys.argv[1:])
    files: list[Path] = []
    for t in args.transcripts:
        if t.is_dir():
            files.extend(sorted(t.glob("*.json")))
        else:
            files.append(t)
    if not files:
        print("run_transcript.py: no transcript files", file=sys.stderr)
        return 2
    if jsonschema is None and args.require_schema and not args.no_schema:
        print(
            f"run_transcript.py: --require-schema but jsonschema is not importable by {sys.executable}",
            file=sys.stderr,
        )
        return 2
    schemas = Schemas(args.schema_dir, enabled=not args.no_schema)
    if schemas.enabled:
        from importlib.metadata import PackageNotFoundError
        from importlib.metadata import version as dist_version

        try:
            version = dist_version("jsonschema")
        except PackageNotFoundError:
            version = "?"
        print(f"schema validation: on (jsonschema {version}, schemas in {args.schema_dir})")
    elif args.no_schema:
        print("schema validation: off (--no-schema)")
    else:
        print(f"schema validation: off (jsonschema is not importable by {sys.executable})")
    print(f"server: {' '.join(cmd)}", flush=True)
    total_pass = total_fail = 0
    for f in files:
        p, m = run_file(f, cmd, schemas, args)
        total_pass += p
        total_fail += m
    print(f"transcript: {total_pass} passed, {total_fail} failed", flush=True)
    return 1 if total_fail else 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except BrokenPipeError:  # our stdout went away (e.g. `| head`)
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        sys.exit(1)
