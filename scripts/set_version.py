#!/usr/bin/env python3
"""Sets hypermcp's version everywhere it is written (what `make version V=x.y.z` runs).

The version lives in the workspace's Cargo.toml (``[workspace.package] version``): every
crate inherits it and the Python package reads it at build time (maturin). npm needs it in
package.json and package-lock.json, which this writes too; the platform packages take it
from there when `make dist` builds them. `make test` checks that they agree.

    python3 scripts/set_version.py 0.2.0
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SEMVER = re.compile(r"^\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?$")


def main(argv: list[str]) -> int:
    if len(argv) != 1 or not SEMVER.match(argv[0]):
        print("usage: set_version.py X.Y.Z[-pre] (a semantic version)", file=sys.stderr)
        return 2
    version = argv[0]
    cargo = ROOT / "Cargo.toml"
    text = cargo.read_text()
    new, n = re.subn(r'(?ms)^(\[workspace\.package\].*?^version = )"[^"]*"', rf'\g<1>"{version}"', text, count=1)
    if n != 1:
        print(f"set_version: no [workspace.package] version in {cargo}", file=sys.stderr)
        return 1
    cargo.write_text(new)
    for name in ("package.json", "package-lock.json"):
        path = ROOT / name
        data = json.loads(path.read_text())
        data["version"] = version
        root_pkg = data.get("packages", {}).get("")
        if root_pkg is not None:
            root_pkg["version"] = version
        path.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n")
    print(f"hypermcp {version}: Cargo.toml, package.json, package-lock.json (Cargo.lock follows at the next build)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
