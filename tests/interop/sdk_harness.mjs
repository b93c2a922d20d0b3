// Shared plumbing of the scripts that drive a server with the official TypeScript SDK
// (ts_sdk_client.mjs, ts_sdk_full.mjs): parse
// `[--timeout SECONDS] (--url URL | --sse-url URL | [--] CMD [ARGS...])`, open the matching SDK
// transport (stdio child, Streamable HTTP, legacy HTTP+SSE), check conditions, bound the run,
// and end it with one clear line and an exit code.
import { importPeer } from './peer_import.mjs';

export class CheckFailed extends Error {}

/** Waits until cond() holds or `ms` pass (notification handlers may run after the call resolves). */
export async function settle(cond, ms = 2000) {
  const end = Date.now() + ms;
  while (!cond() && Date.now() < end) await new Promise((r) => setTimeout(r, 10));
}

/** Throws CheckFailed with `msg` unless `cond` holds. */
export function check(cond, msg) {
  if (!cond) throw new CheckFailed(msg);
}

/**
 * Starts a bounded run: parses the command line (exits 2 with a usage line when it is
 * wrong) and arms the timeout. Returns `{ target, cmd, openTransport(), track(transport),
 * negotiated(), finish(promise, onOk) }`; `target` is `{ kind: 'stdio', cmd }`,
 * `{ kind: 'http', url }` or `{ kind: 'sse', url }` (`cmd` is the stdio command, or []).
 */
export function harness(prefix, script) {
  let timeoutSec = 30;
  let url = null;
  const argv = process.argv.slice(2);
  let i = 0;
  let bad = false;
  while (i < argv.length && argv[i] !== '--') {
    const [name, ...rest] = argv[i].split('=');
    if (!['--timeout', '--url', '--sse-url'].includes(name)) break;
    let value = rest.join('=');
    if (rest.length === 0) {
      if (i + 1 >= argv.length) bad = true;
      value = argv[++i];
    }
    if (name === '--timeout') timeoutSec = Number(value);
    else url = { kind: name === '--url' ? 'http' : 'sse', url: value };
    i += 1;
  }
  if (argv[i] === '--') i += 1;
  const cmd = argv.slice(i);
  if (bad || (cmd.length === 0) === (url === null) || !(timeoutSec > 0)) {
    process.stderr.write(`usage: ${script} [--timeout SECONDS] (--url URL | --sse-url URL | [--] CMD [ARGS...])\n`);
    process.exit(2);
  }
  const target = url ?? { kind: 'stdio', cmd };
  const cmdText = url ? `${url.kind === 'http' ? 'url' : 'sse url'}: ${url.url}` : `server: ${cmd.join(' ')}`;
  let transport = null;
  let negotiated = '?';
  let failed = false;

  function fail(msg) {
    if (failed) return;
    failed = true;
    process.stderr.write(`${prefix}: FAIL: ${msg} (${cmdText})\n`);
    const done = () => process.exit(1);
    if (transport) transport.close().then(done, done);
    else done();
    setTimeout(done, 3000).unref();
  }

  const timer = setTimeout(() => fail(`timed out after ${timeoutSec}s`), timeoutSec * 1000);
  return {
    target,
    cmd,
    /**
     * The SDK's client transport for the target (tracked, see `track`). A stdio child gets
     * the whole environment (the SDK's default keeps only a few variables) and our stderr.
     * The negotiated protocol revision is recorded for `negotiated()`.
     */
    async openTransport() {
      let t;
      try {
        if (target.kind === 'http') {
          const { StreamableHTTPClientTransport } = await importPeer('@modelcontextprotocol/sdk/client/streamableHttp.js');
          t = new StreamableHTTPClientTransport(new URL(target.url));
        } else if (target.kind === 'sse') {
          const { SSEClientTransport } = await importPeer('@modelcontextprotocol/sdk/client/sse.js');
          t = new SSEClientTransport(new URL(target.url));
        } else {
          const { StdioClientTransport } = await importPeer('@modelcontextprotocol/sdk/client/stdio.js');
          const env = Object.fromEntries(Object.entries(process.env).filter(([, v]) => v !== undefined));
          t = new StdioClientTransport({ command: cmd[0], args: cmd.slice(1), env, stderr: 'inherit' });
        }
      } catch (e) {
        throw new CheckFailed(`cannot load the TypeScript SDK: ${e.message}`);
      }
      // The client reports the negotiated revision to transports that accept it (the HTTP
      // transport needs it for its MCP-Protocol-Version header: wrap, do not replace).
      const setProtocolVersion = t.setProtocolVersion?.bind(t);
      t.setProtocolVersion = (v) => {
        negotiated = v;
        setProtocolVersion?.(v);
      };
      return this.track(t);
    },
    /** The protocol revision the client negotiated ('?' before). */
    negotiated() {
      return negotiated;
    },
    /** Remembers the transport, so a failure or a timeout closes it. */
    track(t) {
      transport = t;
      return t;
    },
    /** Ends the run with the outcome of `promise`: `onOk(value)` then exit 0, or FAIL. */
    finish(promise, onOk) {
      promise.then(
        (value) => {
          clearTimeout(timer);
          onOk(value);
          process.exit(0);
        },
        (e) => {
          clearTimeout(timer);
          fail(e instanceof CheckFailed ? e.message : `${e?.name ?? 'Error'}: ${e?.message ?? e}`);
        },
      );
    },
  };
}
