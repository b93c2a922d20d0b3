// The start-up floor of a Node stdio server (an ES module, as the servers measured beside it),
// timed by bench/run.py. Not an MCP server: Node itself, the initialize request read from
// stdin and a minimal answer written, then nothing until stdin closes. Whatever a Node server
// costs at start beyond this is its own.
let buffered = '';
process.stdin.setEncoding('utf8');
process.stdin.on('data', (chunk) => {
  buffered += chunk;
  let nl;
  while ((nl = buffered.indexOf('\n')) >= 0) {
    const msg = JSON.parse(buffered.slice(0, nl));
    buffered = buffered.slice(nl + 1);
    if (msg.method === 'initialize') {
      const result = { protocolVersion: msg.params.protocolVersion, capabilities: {}, serverInfo: { name: 'floor', version: '0' } };
      process.stdout.write(JSON.stringify({ jsonrpc: '2.0', id: msg.id, result }) + '\n');
    }
  }
});
