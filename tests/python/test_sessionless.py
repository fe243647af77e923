"""HTTP without sessions: the official Python MCP SDK client against the conformance fixture
(``examples/conformance``, CONFORMANCE_BIN, an absolute path) run with ``MCP_STATELESS_HTTP=1``
(``HttpConfig::stateless``), in the client's three modes.

A 2025-era client (``legacy``) gets no ``Mcp-Session-Id`` from ``initialize``, and every later
request stands alone: the server may even be restarted between two calls of one client. Progress
and logs still reach it on each request's stream; sampling fails with an error naming the mode.
A 2026-07-28 client (``auto``, ``2026-07-28``) is served as always, sampling included.
"""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import AsyncExitStack
from pathlib import Path

import pytest
from mcp import types
from mcp.client.session import ClientRequestContext

from interop_support import Collected, connect, free_port, http_server, only_text, resource_text, run_async, server_binary

STATELESS = {"MCP_STATELESS_HTTP": "1"}


@pytest.fixture
def url(tmp_path: Path) -> Iterator[str]:
    with http_server(server_binary("CONFORMANCE_BIN"), tmp_path / "stderr.log", env=STATELESS) as url:
        yield url


async def sampling(_: ClientRequestContext, params: types.CreateMessageRequestParams) -> types.CreateMessageResult:
    [message] = params.messages
    assert isinstance(message.content, types.TextContent)
    reply = types.TextContent(type="text", text=f"echo {message.content.text}")
    return types.CreateMessageResult(role="assistant", content=reply, model="test-model")


def test_initialize_mints_no_session(url: str) -> None:
    initialize = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}},
    }
    headers = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
    post = urllib.request.Request(url, data=json.dumps(initialize).encode(), headers=headers, method="POST")
    with urllib.request.urlopen(post, timeout=10) as reply:
        assert reply.status == 200
        assert reply.headers.get("Mcp-Session-Id") is None
        assert json.load(reply)["result"]["protocolVersion"] == "2025-11-25"
    for method in ["GET", "DELETE"]:
        request = urllib.request.Request(url, headers={"Accept": "text/event-stream"}, method=method)
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(request, timeout=10)
        assert refused.value.code == 405, method


@pytest.mark.parametrize("mode", ["legacy", "auto", "2026-07-28"])
def test_every_request_alone(url: str, mode: str) -> None:
    collected = Collected()

    async def body() -> None:
        async with connect(url, mode, logging_callback=collected.on_log, sampling_callback=sampling) as client:
            names = {tool.name for tool in (await client.list_tools()).tools}
            assert {"test_simple_text", "test_sampling", "test_tool_with_progress"} <= names
            text = only_text(await client.call_tool("test_simple_text", {}))
            assert text == "This is a simple text response for testing."
            await client.call_tool("test_tool_with_progress", {}, progress_callback=collected.on_progress)
            assert [progress for progress, _, _ in collected.progress] == [0.0, 50.0, 100.0]
            resource = resource_text(await client.read_resource("test://static-text"))
            assert resource == "This is the content of the static text resource."
            prompt = await client.get_prompt("test_prompt_with_arguments", {"arg1": "a", "arg2": "b"})
            assert isinstance(prompt.messages[0].content, types.TextContent)
            assert prompt.messages[0].content.text == "Prompt with arguments: arg1='a', arg2='b'"
            sampled = await client.call_tool("test_sampling", {"prompt": "hi"})
            if mode == "legacy":
                # Logs go on the request's own stream; requests to the client cannot.
                await client.call_tool("test_tool_with_logging", {})
                assert [log.data for log in collected.logs] == [
                    "Tool execution started",
                    "Tool processing data",
                    "Tool execution completed",
                ]
                assert sampled.is_error is True
                assert "without sessions (stateless mode)" in only_text(sampled)
            else:
                # 2026-07-28 asks the client in an input-required result, in either mode.
                assert sampled.is_error is not True
                assert only_text(sampled) == "LLM response: echo hi"

    run_async(body)


def test_a_restarted_server_serves_the_same_client(tmp_path: Path) -> None:
    port = free_port()
    binary = server_binary("CONFORMANCE_BIN")

    async def body() -> None:
        # The client outlives the first server process.
        async with AsyncExitStack() as stack:
            with http_server(binary, tmp_path / "first.log", port=port, env=STATELESS) as url:
                client = await stack.enter_async_context(connect(url, "legacy"))
                assert only_text(await client.call_tool("test_simple_text", {})).startswith("This is a simple")
            # A new process, which never saw this client's handshake, serves its next call.
            with http_server(binary, tmp_path / "second.log", port=port, env=STATELESS):
                assert only_text(await client.call_tool("test_simple_text", {})).startswith("This is a simple")

    run_async(body)
