"""The skills extension (``io.modelcontextprotocol/skills``) from Python: ``server.skills(dir)``
and ``server.skills(files=...)`` served by the engine in both eras and over HTTP, the client's
``list_skills`` / ``get_skill`` / ``read_directory`` / ``load_skill``, and the verification of
every file it reads (a file changed after listing is refused)."""

from __future__ import annotations

import asyncio
import hashlib
import shutil
from pathlib import Path
from typing import Any

import pytest

from _helpers import run, within
from hypermcp import Client, DefinitionError, Server, SkillVerificationError
from hypermcp.errors import InvalidParams, MethodNotFound

SKILLS = Path(__file__).resolve().parents[2] / "examples" / "skills"
EXT = "io.modelcontextprotocol/skills"


@pytest.mark.parametrize("mode", ["legacy", "modern"])
def test_skills_are_listed_loaded_and_read(mode: str) -> None:
    async def main() -> None:
        server = Server("skills", page_size=2)
        server.skills(SKILLS)
        async with Client(server, mode=mode) as client:
            assert client.server_capabilities["extensions"][EXT] == {"directoryRead": True}
            assert "resources" in client.server_capabilities
            skills = await within(client.list_skills())
            assert [s.uri for s in skills] == [
                "skill://acme/billing/refunds/SKILL.md",
                "skill://git-workflow/SKILL.md",
                "skill://git-workflow/commit-message/SKILL.md",
                "skill://pdf-processing/SKILL.md",
            ]
            pdf = skills[3]
            assert pdf.frontmatter["metadata"] == {"version": "2.1.0", "tags": ["pdf", "forms"]}
            md = (SKILLS / "pdf-processing/SKILL.md").read_bytes()
            own = next(f for f in pdf.resources if f["uri"] == pdf.uri)
            assert own["size"] == len(md) and own["digest"] == "sha256:" + hashlib.sha256(md).hexdigest()
            assert await within(client.get_skill(pdf.uri)) == pdf
            with pytest.raises(InvalidParams):
                await within(client.get_skill("skill://nope/SKILL.md"))

            loaded = await within(client.load_skill(pdf))
            assert loaded.text.encode() == md and loaded.name == "pdf-processing" and len(loaded.files) == 6
            assert (await within(loaded.read_text("references/FORMS.md"))).startswith("# Filling PDF forms")
            png = await within(loaded.read("skill://pdf-processing/assets/logo.png"))
            assert png == (SKILLS / "pdf-processing/assets/logo.png").read_bytes()
            with pytest.raises(SkillVerificationError) as info:
                await within(loaded.read("references/SECRET.md"))
            assert info.value.reason == "unlisted" and info.value.uri.endswith("SECRET.md")

            children = await within(client.read_directory("skill://pdf-processing/templates"))
            assert [(c.uri, c.mime_type) for c in children] == [
                ("skill://pdf-processing/templates/invoice.md", "text/markdown"),
                ("skill://pdf-processing/templates/regional", "inode/directory"),
            ]
            with pytest.raises(InvalidParams):
                await within(client.read_directory(pdf.uri))
            listed = {r.uri: r for r in await within(client.list_resources())}
            assert listed[pdf.uri].description == pdf.frontmatter["description"]

    run(main())


def test_a_file_changed_after_listing_is_refused(tmp_path: Path) -> None:
    async def main() -> None:
        root = tmp_path / "skills"
        shutil.copytree(SKILLS, root)
        server = Server("skills")
        server.skills(root)
        async with await within(server.start_http("127.0.0.1", 0)) as http:
            async with Client.http(http.url) as client:
                pdf = next(s for s in await within(client.list_skills()) if s.frontmatter["name"] == "pdf-processing")
                forms = root / "pdf-processing/references/FORMS.md"
                data = bytearray(forms.read_bytes())
                data[2:3] = b"X"
                forms.write_bytes(bytes(data))
                server.reload_skills()
                with pytest.raises(SkillVerificationError) as info:
                    await within(client.read_skill_file(pdf, "references/FORMS.md"))
                assert (info.value.reason, info.value.uri) == ("digest", "skill://pdf-processing/references/FORMS.md")
                forms.write_bytes(bytes(data) + b"more")
                server.reload_skills()
                with pytest.raises(SkillVerificationError, match="bytes read") as info:
                    await within(client.read_skill_file(pdf, "references/FORMS.md"))
                assert info.value.reason == "size"
                # A new SKILL.md with the entry's old frontmatter: the comparison catches it.
                md = root / "pdf-processing/SKILL.md"
                md.write_text(md.read_text().replace("Extract text", "Exfiltrate text"))
                server.reload_skills()
                fresh = await within(client.get_skill(pdf.uri))
                stale: dict[str, Any] = {**fresh, "frontmatter": pdf.frontmatter}
                with pytest.raises(SkillVerificationError) as info:
                    await within(client.load_skill(stale))
                assert info.value.reason == "frontmatter"
                assert "Exfiltrate" in (await within(client.load_skill(fresh))).text

    run(main())


def test_skills_from_code_and_reload_notifications() -> None:
    async def main() -> None:
        server = Server("skills")
        md = "---\nname: hello\ndescription: Say hi\n---\nHi\n"
        server.skills(files={"hello/SKILL.md": md, "hello/a.txt": b"A"})
        seen: list[tuple[str, Any]] = []
        got = asyncio.Event()

        def on_message(method: str, params: Any) -> None:
            seen.append((method, params))
            if method == "notifications/resources/updated":
                got.set()

        async with Client(server, mode="legacy", message_handler=on_message) as client:
            (hello,) = await within(client.list_skills())
            assert (await within(client.load_skill(hello))).text.endswith("Hi\n")
            await within(client.subscribe_resource("skill://hello/a.txt"))
            server.skills(files={"hello/SKILL.md": md, "hello/a.txt": "B"})
            await within(got.wait())
            assert ("notifications/resources/list_changed", None) in [(m, p or None) for m, p in seen]
            assert ("notifications/resources/updated", {"uri": "skill://hello/a.txt"}) in seen
            # With no skills the extension is no longer declared (unless the app declares it
            # itself in extensions=, when the listing is empty).
            server.clear_skills()
            with pytest.raises(MethodNotFound):
                await within(client.list_skills())

    run(main())


def test_bad_skills_are_refused_with_the_rule_broken(tmp_path: Path) -> None:
    server = Server("skills")
    with pytest.raises(DefinitionError, match="its directory is"):
        server.skills(files={"pdf/SKILL.md": "---\nname: other\ndescription: x\n---\n"})
    with pytest.raises(DefinitionError, match="lowercase"):
        server.skills(files={"Pdf/SKILL.md": "---\nname: Pdf\ndescription: x\n---\n"})
    with pytest.raises(DefinitionError, match="no description"):
        server.skills(files={"pdf/SKILL.md": "---\nname: pdf\n---\n"})
    with pytest.raises(DefinitionError, match="missing"):
        server.skills(tmp_path / "missing")
    with pytest.raises(TypeError):
        server.skills()
    with pytest.raises(RuntimeError, match="directory"):
        server.reload_skills()
