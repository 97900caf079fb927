"""Drive `mnemo mcp` with the official MCP Python SDK (PyPI `mcp`), a client this project did
not write, and watch `mnemo serve`'s event stream while it does.

Run by `mcp.rs` with: MNEMO_BIN, SERVE_URL, SERVE_TOKEN, WORK_DIR and the home's environment.
Exits non-zero (with the reason) on the first expectation that fails.
"""

import asyncio
import json
import os
import http.client
import subprocess
import sys
import threading
import urllib.parse

from mcp import ClientSession, MCPError, StdioServerParameters, stdio_client

BIN = os.environ["MNEMO_BIN"]
SERVE_URL = os.environ["SERVE_URL"].rstrip("/")
SERVE_TOKEN = os.environ["SERVE_TOKEN"]
FACT = "The user's cat is called Tofu."

TOOLS = {"recall", "search", "list", "read", "remember", "forget", "dream", "proposals", "status"}


def check(cond, what):
    if not cond:
        print(f"FAILED: {what}", file=sys.stderr)
        sys.exit(1)
    print(f"ok: {what}")


def watch_events(events, ready):
    """Read `mnemo serve`'s Server-Sent Events (stdlib only) into `events` (a thread)."""
    u = urllib.parse.urlsplit(SERVE_URL)
    conn = http.client.HTTPConnection(u.hostname, u.port, timeout=60)
    conn.request("GET", "/events", headers={"Authorization": f"Bearer {SERVE_TOKEN}"})
    r = conn.getresponse()
    if r.status != 200:
        print(f"FAILED: /events answered {r.status}", file=sys.stderr)
        os._exit(1)
    ready.set()
    kind = None
    for raw in r:
        line = raw.decode().rstrip("\r\n")
        if line.startswith("event:"):
            kind = line[len("event:"):].strip()
        elif line.startswith("data:"):
            events.append((kind, json.loads(line[len("data:"):].strip())))


async def expect_error(session, tool, args, code, what):
    try:
        await session.call_tool(tool, args)
    except MCPError as e:
        data = e.data or {}
        check(data.get("code") == code and code in e.message,
              f"{what} -> MCP error {e.code} with Mnemo's code {code!r} ({e.message})")
        return
    check(False, f"{what} -> an MCP error")


async def main():
    events = []
    ready = threading.Event()
    threading.Thread(target=watch_events, args=(events, ready), daemon=True).start()
    check(ready.wait(10), "subscribed to mnemo serve's events")

    env = {k: v for k, v in os.environ.items() if k.startswith(("MNEMO_", "PATH", "HOME"))}
    params = StdioServerParameters(command=BIN, args=["mcp"], env=env, cwd=os.environ["WORK_DIR"])
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as s:
            init = await s.initialize()
            check(init.server_info.name == "mnemo", "initialize names the server mnemo")
            check(init.capabilities.tools is not None and init.capabilities.resources is not None,
                  "tools and resources are offered")

            tools = {t.name: t for t in (await s.list_tools()).tools}
            check(set(tools) == TOOLS, f"the tools are {sorted(TOOLS)} (got {sorted(tools)})")
            check(tools["recall"].annotations.read_only_hint is True, "recall is read-only")
            check(tools["forget"].annotations.destructive_hint is True, "forget is destructive")
            check(tools["remember"].annotations.read_only_hint is False, "remember writes")
            check(all("workspace" in t.input_schema["properties"] for t in tools.values()),
                  "every tool takes a workspace")
            check(tools["search"].input_schema["required"] == ["query"], "search needs a query")

            r = await s.call_tool("remember", {"content": FACT})
            task = r.structured_content["task"]
            check(not r.is_error and task["status"] == "completed", f"remember completed: {task}")
            written = task["result"]["filesTouched"]
            check(len(written) == 1, f"remember wrote one file: {written}")
            path = written[0]

            # `mnemo serve` (another process, watching the same home) announces the write live,
            # as the MCP server's.
            def announced():
                return any(k == "memory_changed" and d.get("source") == "mcp"
                           and path in d.get("paths", []) for k, d in events)
            for _ in range(100):
                if announced():
                    break
                await asyncio.sleep(0.1)
            check(announced(), f"mnemo serve's SSE announced the write: {events}")

            r = await s.call_tool("recall", {"query": "what is the cat called?"})
            items = r.structured_content["items"]
            check(any(i["path"] == path for i in items), f"recall finds the fact: {items}")
            check("Tofu" in r.structured_content["prompt"], "the prompt block carries the fact")
            check(all(i["why"] for i in items), "each recalled item says why")

            r = await s.call_tool("search", {"query": "Tofu", "limit": 5})
            check([h["path"] for h in r.structured_content["hits"]][:1] == [path], "search finds it")

            r = await s.call_tool("list", {"type": "user"})
            check(any(m["path"] == path for m in r.structured_content["memories"]), "list shows it")

            r = await s.call_tool("read", {"path": path})
            check("Tofu" in r.structured_content["memory"]["content"], "read returns the file")

            r = await s.call_tool("status", {})
            check(r.structured_content["workspace"] == "personal", "calls default to personal")

            res = await s.list_resources()
            uris = [str(x.uri) for x in res.resources]
            check("mnemo://personal/MEMORY.md" in uris, "MEMORY.md is a resource")
            check(f"mnemo://personal/{path}" in uris, "the memory is a resource")
            rr = await s.read_resource(f"mnemo://personal/{path}")
            check("Tofu" in rr.contents[0].text and rr.contents[0].mime_type == "text/markdown",
                  "the memory reads as markdown")
            rr = await s.read_resource("mnemo://personal/MEMORY.md")
            check(path in rr.contents[0].text, "MEMORY.md lists it")

            # Bad input: MCP errors carrying Mnemo's code; the server keeps serving.
            await expect_error(s, "fly", {}, "unknown_command", "an unknown tool")
            await expect_error(s, "read", {}, "invalid_arguments", "a missing argument")
            await expect_error(s, "read", {"path": 7}, "invalid_arguments", "a wrong-typed argument")
            await expect_error(s, "search", {"query": "x", "colour": "red"}, "invalid_arguments",
                               "an unknown argument")
            await expect_error(s, "list", {"type": "secret"}, "invalid_arguments", "a bad type")
            await expect_error(s, "search", {"query": "cat", "workspace": "nope"}, "not_found",
                               "an unknown workspace")
            await expect_error(s, "read", {"path": "../../settings.toml"}, "path_escape",
                               "a path escaping the root")
            try:
                await s.read_resource("mnemo://personal/../index.db")
                check(False, "an escaping resource is refused")
            except MCPError as e:
                check((e.data or {}).get("code") == "path_escape", "an escaping resource is refused")
            await expect_error(s, "forget", {}, "invalid_arguments", "forget with nothing to do")
            await expect_error(s, "forget", {"remove": "all"}, "invalid_arguments",
                               "forget with a malformed remove")
            await expect_error(s, "forget", {"remove": []}, "invalid_arguments",
                               "forget with nothing to remove")
            await expect_error(s, "forget", {"query": "x", "remove": []}, "invalid_arguments",
                               "forget with both a query and a remove")

            r = await s.call_tool("forget", {"query": "Tofu"})
            sel = r.structured_content["preview"]["selected"]
            check([e["path"] for e in sel] == [path], f"forget previews the fact: {sel}")
            check(os.path.exists(os.path.join(os.environ["MNEMO_HOME"], "workspaces/personal/memory", path)),
                  "a preview writes nothing")
            r = await s.call_tool("forget", {"remove": [{"id": e["id"], "hash": e["hash"]} for e in sel]})
            check(r.structured_content["task"]["status"] == "completed", "forget removes it")
            r = await s.call_tool("search", {"query": "Tofu"})
            check(r.structured_content["hits"] == [], "it is gone")

            # Review mode: the agent's remember becomes a proposal it can follow.
            subprocess.run([BIN, "review", "on"], check=True, env=env, capture_output=True)
            r = await s.call_tool("remember", {"content": "The user's dog is called Miso."})
            task = r.structured_content["task"]
            proposal = (task.get("result") or {}).get("proposal")
            check(task["status"] == "completed" and proposal, f"remember became a proposal: {task}")
            r = await s.call_tool("proposals", {"id": proposal})
            check(r.structured_content["proposal"]["status"] == "pending", "the proposal waits")
            r = await s.call_tool("proposals", {})
            check([p["id"] for p in r.structured_content["proposals"]] == [proposal],
                  f"the agent's own proposals are listed: {r.structured_content}")
            r = await s.call_tool("search", {"query": "Miso"})
            check(r.structured_content["hits"] == [], "nothing landed before a person accepts")
            subprocess.run([BIN, "inbox", "accept", str(proposal)], check=True, env=env,
                           capture_output=True)
            r = await s.call_tool("proposals", {"id": proposal})
            check(r.structured_content["proposal"]["status"] == "accepted", "then it is accepted")
            await expect_error(s, "proposals", {"id": 999999}, "not_found", "an unknown proposal")

    # The client closed stdin: the server has exited (stdio_client waited for it).
    history = json.loads(subprocess.run([BIN, "--json", "history"], capture_output=True,
                                        check=True, env=env).stdout)
    sources = {(h["path"], h["source"]) for h in history}
    check((path, "mcp") in sources, f"the writes are journaled with source mcp: {sources}")

    print("MCP OK")


asyncio.run(main())
