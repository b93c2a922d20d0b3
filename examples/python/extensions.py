"""The official extensions in one runnable program (python examples/python/extensions.py).

A server that serves skills (the ``examples/skills`` directory), runs a tool as a task (it
reports progress, asks the user a question, then answers) and links that tool to an MCP App
view; and a client that loads and verifies a skill, follows the task to its end (answering its
question), keeps another task's handle and cancels it, and reads the app's view with the
Content-Security-Policy to render it with. Both ends run here, over the in-memory transport
(the stdio code path); ``Client.stdio`` or ``Client.http`` reach the same server elsewhere.
"""

from __future__ import annotations

import asyncio
import pathlib
from typing import Any

from hypermcp import Client, Context, Server
from hypermcp.client import TaskHandle

SKILLS = pathlib.Path(__file__).resolve().parent.parent / "skills"
VIEW = """<!doctype html>
<html><body><h1>Report</h1><p id="status">waiting for the report...</p></body></html>
"""

server = Server("extensions-demo", tasks={"poll_interval": 0.05})
server.skills(SKILLS)
server.app("ui://demo/report", VIEW)


@server.tool(task=True, ui="ui://demo/report")
async def build_report(ctx: Context, pages: int = 3) -> str:
    """Builds a report page by page, then asks whether to publish it (runs as a task)."""
    for page in range(1, pages + 1):
        await asyncio.sleep(0.02)
        await ctx.report_progress(page, pages, f"page {page} of {pages}")
    schema = {"type": "object", "properties": {"publish": {"type": "boolean"}}, "required": ["publish"]}
    answer = await ctx.elicit(f"Publish the {pages}-page report?", schema)
    publish = answer.accepted and (answer.content or {}).get("publish") is True
    return f"report of {pages} pages {'published' if publish else 'kept as a draft'}"


def on_elicitation(params: Any) -> dict[str, Any]:
    print(f"  the task asks: {params['message']} -> yes")
    return {"action": "accept", "content": {"publish": True}}


async def main() -> None:
    async with Client(server, tasks=True, apps=True, elicitation_handler=on_elicitation) as client:
        # Skills: listed without fetching; SKILL.md and each file verified when read.
        skills = await client.list_skills()
        print(f"skills: {', '.join(s['frontmatter']['name'] for s in skills)}")
        pdf = next(s for s in skills if s["frontmatter"]["name"] == "pdf-processing")
        loaded = await client.load_skill(pdf)
        forms = await loaded.read_text("references/FORMS.md")
        print(f"  {loaded.name}: {len(loaded.text)} bytes of SKILL.md, {len(forms)} of FORMS.md (verified)")

        # Tasks: call_tool follows the task to its end; its question reaches the handler above.
        result = await client.call_tool("build_report", {"pages": 3})
        print(f"task followed to its end: {result.text}")
        handle = await client.call_tool_task("build_report", {"pages": 500})
        assert isinstance(handle, TaskHandle), "the server answered with a task"
        print(f"task kept: {handle.id} is {(await handle.status()).status}")
        await handle.cancel()
        print(f"  after cancel: {(await handle.status()).status}")

        # MCP Apps: the tool's view, and how to render it.
        tool = next(t for t in await client.list_tools() if t["name"] == "build_report")
        app = await client.read_app(tool["_meta"]["ui"]["resourceUri"])
        print(f"app view: {app['uri']}, {len(app['html'])} bytes of HTML, CSP {app['csp']!r}")


if __name__ == "__main__":
    asyncio.run(main())
