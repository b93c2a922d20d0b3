"""The start-up floor of a Python stdio server, timed beside the real ones by bench/run.py.

Not an MCP server: the interpreter and asyncio, the initialize request read from stdin and a
minimal answer written, then nothing until stdin closes. Whatever a Python server costs at
start beyond this is its own.
"""

import asyncio
import json
import sys


async def main() -> None:
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader()
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
    while line := await reader.readline():
        msg = json.loads(line)
        if msg.get("method") == "initialize":
            result = {
                "protocolVersion": msg["params"]["protocolVersion"],
                "capabilities": {},
                "serverInfo": {"name": "floor", "version": "0"},
            }
            sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": msg["id"], "result": result}) + "\n")
            sys.stdout.flush()


asyncio.run(main())
