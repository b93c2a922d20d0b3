"""Import cost: ``import hypermcp`` loads only the standard library, the hypermcp package and
its native module ``hypermcp._core``; the client loads on first use. Each check runs in a
fresh interpreter, so what this test process imported does not count."""

import json
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

PROBE = textwrap.dedent(
    """
    import json, sys

    before = set(sys.modules)
    import hypermcp

    after_import = set(sys.modules)
    new = sorted(after_import - before)
    outside = sorted(m for m in new if m.split(".")[0] not in sys.stdlib_module_names)

    client_class = hypermcp.Client
    from hypermcp import Client
    import hypermcp.client as client_module

    try:
        hypermcp.NoSuchName
    except AttributeError as exc:
        missing = str(exc)
    else:
        missing = None

    json.dump(
        {
            "outside_stdlib": outside,
            "client_loaded_by_import": "hypermcp.client" in after_import,
            "records_loaded_by_import": "hypermcp._records" in after_import,
            "client_loaded_after_use": "hypermcp.client" in sys.modules,
            "client_is_the_class": client_class is client_module.Client and Client is client_class,
            "loaded_by_client": sorted(set(sys.modules) - after_import),
            "missing_attribute": missing,
        },
        sys.stdout,
    )
    """
)


def probe(tmp_path: Path) -> dict[str, Any]:
    script = tmp_path / "probe.py"
    script.write_text(PROBE)
    done = subprocess.run(
        [sys.executable, str(script)], cwd=tmp_path, capture_output=True, text=True, timeout=60, check=False
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_import_loads_only_the_standard_library_and_hypermcp(tmp_path: Path) -> None:
    found = probe(tmp_path)
    outside = found["outside_stdlib"]
    assert "hypermcp" in outside and "hypermcp._core" in outside
    # Nothing but the package itself (pure-Python modules and the native one) beyond the stdlib:
    # no pydantic, typing_extensions or anything else, even when installed.
    assert [m for m in outside if m != "hypermcp" and not m.startswith("hypermcp.")] == []


def test_client_loads_lazily(tmp_path: Path) -> None:
    found = probe(tmp_path)
    assert found["client_loaded_by_import"] is False
    assert found["records_loaded_by_import"] is False
    assert found["client_loaded_after_use"] is True
    assert found["client_is_the_class"] is True
    assert "hypermcp.client" in found["loaded_by_client"]
    assert [m for m in found["loaded_by_client"] if m.split(".")[0] not in sys.stdlib_module_names] == [
        m for m in found["loaded_by_client"] if m.startswith("hypermcp.")
    ]
    assert found["missing_attribute"] == "module 'hypermcp' has no attribute 'NoSuchName'"
