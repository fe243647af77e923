"""The official Python MCP SDK client against examples/lambda under `cargo lambda watch`
(tests/tests/lambda.rs runs it): ``python lambda_client.py URL`` connects to the function URL in
the client's 2025-era mode (``legacy``: ``initialize``, then requests without a session) and in
2026-07-28 mode, lists and calls the tools, and prints what it saw as one JSON object per mode.
"""

from __future__ import annotations

import json
import sys

import anyio
from mcp import Client

# The first request may wait for `cargo lambda watch` to build and start the function.
READ_TIMEOUT_S = 300.0


async def run(url: str, mode: str) -> dict[str, object]:
    progress: list[float] = []
    logs: list[object] = []

    async def on_progress(value: float, _total: float | None, _message: str | None) -> None:
        progress.append(value)

    async def on_log(params: object) -> None:
        logs.append(getattr(params, "data", None))

    async with Client(url, mode=mode, read_timeout_seconds=READ_TIMEOUT_S, logging_callback=on_log) as client:
        tools = sorted(tool.name for tool in (await client.list_tools()).tools)
        added = await client.call_tool("add", {"a": 2, "b": 3})
        counted = await client.call_tool("count", {"to": 3}, progress_callback=on_progress)
        return {
            "mode": mode,
            "protocol_version": client.session.protocol_version,
            "tools": tools,
            "add": [block.text for block in added.content if block.type == "text"],
            "count": [block.text for block in counted.content if block.type == "text"],
            "progress": progress,
            "logs": logs,
        }


async def main(url: str) -> None:
    for mode in ["legacy", "2026-07-28"]:
        print(json.dumps(await run(url, mode)), flush=True)


if __name__ == "__main__":
    anyio.run(main, sys.argv[1])
