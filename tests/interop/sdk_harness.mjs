// Shared plumbing of the scripts that drive a server with the official TypeScript SDK
// (ts_sdk_client.mjs, ts_sdk_full.mjs): parse `[--timeout SECONDS] [--] CMD [ARGS...]`,
// check conditions, bound the run, and end it with one clear line and an exit code.

export class CheckFailed extends Error {}

/** Throws CheckFailed with `msg` unless `cond` holds. */
export function check(cond, msg) {
  if (!cond) throw new CheckFailed(msg);
}

/**
 * Starts a bounded run: parses the command line (exits 2 with a usage line when it is
 * wrong) and arms the timeout. Returns `{ cmd, track(transport), finish(promise, onOk) }`.
 */
export function harness(prefix, script) {
  let timeoutSec = 30;
  const argv = process.argv.slice(2);
  let i = 0;
  while (i < argv.length && argv[i] !== '--') {
    if (argv[i] === '--timeout' && i + 1 < argv.length) {
      timeoutSec = Number(argv[i + 1]);
      i += 2;
    } else if (argv[i].startsWith('--timeout=')) {
      timeoutSec = Number(argv[i].slice('--timeout='.length));
      i += 1;
    } else {
      break;
    }
  }
  if (argv[i] === '--') i += 1;
  const cmd = argv.slice(i);
  if (cmd.length === 0 || !(timeoutSec > 0)) {
    process.stderr.write(`usage: ${script} [--timeout SECONDS] [--] CMD [ARGS...]\n`);
    process.exit(2);
  }
  const cmdText = cmd.join(' ');
  let transport = null;
  let failed = false;

  function fail(msg) {
    if (failed) return;
    failed = true;
    process.stderr.write(`${prefix}: FAIL: ${msg} (server: ${cmdText})\n`);
    const done = () => process.exit(1);
    if (transport) transport.close().then(done, done);
    else done();
    setTimeout(done, 3000).unref();
  }

  const timer = setTimeout(() => fail(`timed out after ${timeoutSec}s`), timeoutSec * 1000);
  return {
    cmd,
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
