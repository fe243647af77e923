"""Drives one of our stdio servers with the official Python SDK client, for a Rust test.

    python sdk_client_report.py CALLS_JSON COMMAND [ARG...]

Starts ``COMMAND ARG...`` (with this script's environment) over stdio once per client connect mode (``legacy``: the
2025-11-25 handshake; ``2026-07-28``: stateless requests), lists its tools and makes the calls
of CALLS_JSON (``[{"name": ..., "arguments": {...}}, ...]``), then prints one JSON object:
``{mode: {"tools": [<listed tool>...], "calls": [<CallToolResult>...]}}``, each as the SDK
parsed it (so a message the SDK refuses fails here), for the Rust test to check.
"""

from __future__ import annotations

import json
import os
import sys
from typing import Any

from mcp import StdioServerParameters

import interop_support as support


async def report(params: StdioServerParameters, calls: list[dict[str, Any]]) -> dict[str, Any]:
    modes: dict[str, Any] = {}
    for mode in ("legacy", "2026-07-28"):
        async with support.connect(params, mode) as client:
            listed = await client.list_tools()
            results = [await client.call_tool(call["name"], call.get("arguments", {})) for call in calls]
        modes[mode] = {
            "tools": [tool.model_dump(mode="json", by_alias=True, exclude_none=True) for tool in listed.tools],
            "calls": [result.model_dump(mode="json", by_alias=True, exclude_none=True) for result in results],
        }
    return modes


def main() -> None:
    calls = json.loads(sys.argv[1])
    env = dict(os.environ, RUST_BACKTRACE="1")
    params = StdioServerParameters(command=sys.argv[2], args=sys.argv[3:], env=env)
    outcome: dict[str, Any] = {}

    async def body() -> None:
        outcome.update(await report(params, calls))

    support.run_async(body)
    print(json.dumps(outcome))


if __name__ == "__main__":
    main()
