"""``hypermcp``, one command line for every MCP server (``python -m hypermcp`` too).

The command line is the engine's (``hypermcp::cli``): this only hands it the arguments and
this Python, which runs ``.py`` server files (``hypermcp run server.py``). ``hypermcp
--help`` lists the commands.
"""

from __future__ import annotations

import signal
import sys


def main() -> None:
    """The ``hypermcp`` console script."""
    from . import _core

    # Ctrl-C is the engine's to handle (it stops a server `run` started, or ends the
    # command), not a KeyboardInterrupt raised here once the command has returned.
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    sys.exit(_core.cli_main(sys.argv[1:], python=sys.executable))


if __name__ == "__main__":
    main()
