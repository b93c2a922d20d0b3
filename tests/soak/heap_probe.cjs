// Loaded into a Node server under soak (NODE_OPTIONS=--require): every second it writes the
// process's memory as V8 sees it to HYPERMCP_SOAK_HEAP_FILE (one JSON line, overwritten), so
// the soak can tell V8 growing its heap (heapTotal, reserved, not a leak) from memory that is
// held (heapUsed, and everything outside the heap).
'use strict';
const fs = require('node:fs');
const file = process.env.HYPERMCP_SOAK_HEAP_FILE;
if (file) {
  const write = () => {
    const m = process.memoryUsage();
    try {
      fs.writeFileSync(`${file}.tmp`, JSON.stringify({ rss: m.rss, heapTotal: m.heapTotal, heapUsed: m.heapUsed, external: m.external }));
      fs.renameSync(`${file}.tmp`, file);
    } catch {}
  };
  write();
  setInterval(write, 1000).unref();
}
