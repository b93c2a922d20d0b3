"""The runner of ``hypermcp run FILE[:OBJECT]`` (and ``dev``) for Python files:
``python -m hypermcp._runner FILE [OBJECT]``. The command line (``hypermcp::cli``) starts it
with ``HYPERMCP_TRANSPORT`` (and ``HYPERMCP_HOST``, ``HYPERMCP_PORT``), which
:meth:`hypermcp.Server.run` follows when the file does not name a transport.

Without OBJECT the file runs as a program (``__name__ == "__main__"``): if it runs its server
(``server.run()`` under the usual guard), that is the server; else the one :class:`Server` it
defines is run. With OBJECT the file is loaded as a module (its ``__main__`` guard does not
run) and its server OBJECT is run. No server, or several, is an error naming what to do.
"""

from __future__ import annotations

import os
import runpy
import sys


def main(argv: list[str]) -> int:
    if not argv or len(argv) > 2:
        print("usage: python -m hypermcp._runner FILE [OBJECT]", file=sys.stderr)
        return 2
    path = os.path.abspath(argv[0])
    name = argv[1] if len(argv) == 2 else None
    from . import _running
    from . import server as server_module

    # What the file sees: itself as the program, its directory first on the import path.
    sys.argv = [path]
    sys.path.insert(0, os.path.dirname(path))
    runs = _running._runs  # pyright: ignore[reportPrivateUsage]
    found = runpy.run_path(path, run_name="__main__" if name is None else "__hypermcp_app__")
    if name is None and _running._runs > runs:  # pyright: ignore[reportPrivateUsage]
        return 0  # the file ran its server, which has stopped
    servers = {k: v for k, v in found.items() if isinstance(v, server_module.Server)}
    if name is not None:
        server = found.get(name)
        if not isinstance(server, server_module.Server):
            return _fail(f"{argv[0]} defines no Server named {name} (its servers: {', '.join(servers) or 'none'})")
    elif len(set(map(id, servers.values()))) == 1:
        server = next(iter(servers.values()))
    elif not servers:
        return _fail(f"{argv[0]} defines no Server: create one (server = Server(...)), or run it itself")
    else:
        return _fail(f"{argv[0]} defines several Servers ({', '.join(servers)}): name one, {argv[0]}:NAME")
    server.run()
    return 0


def _fail(message: str) -> int:
    print(f"hypermcp run: {message}", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
