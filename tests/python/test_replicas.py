"""Interop through a load balancer: the official Python MCP SDK client against several replicas
of the conformance fixture (``examples/conformance``) sharing their sessions through Redis,
behind nginx balancing round robin without stickiness (``scripts/replicas.sh`` starts them).

Skipped unless ``MCP_REPLICAS_URL`` names the load balancer's MCP endpoint. Every test speaks
2025-11-25 (``mode="legacy"``: ``initialize`` and an ``Mcp-Session-Id``) and makes several
requests in one session, so that they reach different replicas: each request, each answer to a
server-to-client request (sampling, elicitation, roots), each notification and each resumption
of a stream may be handled by a replica other than the one that started the session.
"""

from __future__ import annotations

import json
import os
import uuid

import anyio
import pytest
from mcp import Client, types
from mcp.client.session import ClientRequestContext

from interop_support import Collected, Recorder, only_text, resource_text, run_async, wait_until

URL = os.environ.get("MCP_REPLICAS_URL", "")

pytestmark = [
    pytest.mark.skipif(not URL, reason="MCP_REPLICAS_URL is not set (scripts/replicas.sh sets it)"),
    # `subscribe_resource` and `set_logging_level` are deprecated for 2026-07-28 servers; these
    # tests speak 2025-11-25.
    pytest.mark.filterwarnings("ignore::mcp.shared.exceptions.MCPDeprecationWarning"),
]

READ_TIMEOUT_S = 20.0
ROUNDS = 4


def client(**callbacks: object) -> Client:
    return Client(URL, mode="legacy", read_timeout_seconds=READ_TIMEOUT_S, **callbacks)  # type: ignore[arg-type]


def test_one_session_serves_every_kind_of_request() -> None:
    async def body() -> None:
        async with client() as session:
            assert session.protocol_version == "2025-11-25"
            assert session.server_info is not None and session.server_info.name == "conformance"
            for _ in range(ROUNDS):
                assert only_text(await session.call_tool("test_simple_text", {})) == (
                    "This is a simple text response for testing."
                )
            names = [t.name for t in (await session.list_tools()).tools]
            assert "test_sampling" in names and "test_trigger_resource_update" not in names, names
            text = resource_text(await session.read_resource("test://static-text"))
            assert text == "This is the content of the static text resource."
            data = resource_text(await session.read_resource("test://template/42/data"))
            assert data == '{"id":"42","templateTest":true,"data":"Data for ID: 42"}'
            prompt = await session.get_prompt("test_prompt_with_arguments", {"arg1": "a", "arg2": "b"})
            [message] = prompt.messages
            assert isinstance(message.content, types.TextContent)
            assert message.content.text == "Prompt with arguments: arg1='a', arg2='b'"
            error = await session.call_tool("test_error_handling", {})
            assert error.is_error is True

    run_async(body)


def test_sampling_answers_reach_the_waiting_tool() -> None:
    prompts: list[str] = []

    async def sampling(_: ClientRequestContext, params: types.CreateMessageRequestParams) -> types.CreateMessageResult:
        [message] = params.messages
        assert isinstance(message.content, types.TextContent)
        prompts.append(message.content.text)
        return types.CreateMessageResult(
            role="assistant",
            content=types.TextContent(type="text", text=f"echo {message.content.text}"),
            model="test-model",
        )

    async def body() -> None:
        async with client(sampling_callback=sampling) as session:
            for i in range(ROUNDS):
                result = await session.call_tool("test_sampling", {"prompt": f"question {i}"})
                assert only_text(result) == f"LLM response: echo question {i}"

    run_async(body)
    assert prompts == [f"question {i}" for i in range(ROUNDS)]


def test_elicitation_answers_reach_the_waiting_tool() -> None:
    asked: list[str] = []

    async def answer(_: ClientRequestContext, params: types.ElicitRequestParams) -> types.ElicitResult:
        asked.append(params.message)
        n = len(asked)
        if n % 2:
            return types.ElicitResult(action="accept", content={"username": f"user{n}", "email": f"u{n}@example.com"})
        return types.ElicitResult(action="decline")

    async def body() -> None:
        async with client(elicitation_callback=answer) as session:
            for i in range(1, ROUNDS + 1):
                result = await session.call_tool("test_elicitation", {"message": f"who are you ({i})?"})
                text = only_text(result)
                if i % 2:
                    prefix = "User response: action=accept, content="
                    assert text.startswith(prefix), text
                    assert json.loads(text[len(prefix) :]) == {"username": f"user{i}", "email": f"u{i}@example.com"}
                else:
                    assert text == "User response: action=decline, content=undefined"

    run_async(body)
    assert asked == [f"who are you ({i})?" for i in range(1, ROUNDS + 1)]


def test_roots_answers_reach_the_waiting_tool() -> None:
    calls: list[int] = []

    async def roots(_: ClientRequestContext) -> types.ListRootsResult:
        calls.append(1)
        return types.ListRootsResult(
            roots=[
                types.Root(uri="file:///srv/one", name="one"),  # type: ignore[arg-type]
                types.Root(uri="file:///srv/two", name="two"),  # type: ignore[arg-type]
            ]
        )

    async def body() -> None:
        async with client(list_roots_callback=roots) as session:
            for _ in range(ROUNDS):
                result = await session.call_tool("test_input_required_result_list_roots", {})
                assert only_text(result) == "Client roots: file:///srv/one (one), file:///srv/two (two)"

    run_async(body)
    # 2025-11-25 servers may cache the roots for the session (until roots/list_changed).
    assert 1 <= len(calls) <= ROUNDS, calls


def test_progress_notifications_arrive_with_their_call() -> None:
    async def body() -> None:
        async with client() as session:
            for _ in range(ROUNDS):
                got = Collected()
                result = await session.call_tool("test_tool_with_progress", {}, progress_callback=got.on_progress)
                assert only_text(result) == "Progress test completed"
                assert await wait_until(lambda: len(got.progress) >= 3), got.progress
                assert [(p, total) for p, total, _ in got.progress] == [(0.0, 100.0), (50.0, 100.0), (100.0, 100.0)]

    run_async(body)


def test_the_log_level_holds_on_every_replica() -> None:
    async def body() -> None:
        got = Collected()
        async with client(logging_callback=got.on_log) as session:
            await session.set_logging_level("info")
            for n in range(1, ROUNDS + 1):
                result = await session.call_tool("test_tool_with_logging", {})
                assert only_text(result) == "Tool with logging executed successfully"
                assert await wait_until(lambda: len(got.logs) >= 3 * n), got.logs
            expected = ["Tool execution started", "Tool processing data", "Tool execution completed"] * ROUNDS
            assert [m.data for m in got.logs] == expected
            assert all(m.level == "info" for m in got.logs), got.logs

            # Raised to `error`: no replica sends the tools' `info` lines any more.
            await session.set_logging_level("error")
            before = len(got.logs)
            for _ in range(ROUNDS):
                assert only_text(await session.call_tool("test_logging_tool", {})) == "Logging tool completed"
                assert only_text(await session.call_tool("test_tool_with_logging", {})) == (
                    "Tool with logging executed successfully"
                )
            await session.send_ping()
            await anyio.sleep(0.5)
            assert got.logs[before:] == [], "messages below `error` after logging/setLevel error"

    run_async(body)


def test_resource_updates_reach_the_subscriber_from_any_replica() -> None:
    uri = f"test://template/replicas-{uuid.uuid4().hex}/data"

    async def body() -> None:
        got = Recorder()
        async with client(message_handler=got) as session:
            await session.subscribe_resource(uri)
            for n in range(1, ROUNDS + 1):
                result = await session.call_tool("test_trigger_resource_update", {"uri": uri})
                assert only_text(result) == f"Updated {uri}"
                assert await wait_until(lambda: got.updated().count(uri) >= n, timeout=5.0), got.notifications
            await session.unsubscribe_resource(uri)
            for _ in range(2):
                await session.call_tool("test_trigger_resource_update", {"uri": uri})
            await session.send_ping()
            await anyio.sleep(0.5)
            assert got.updated().count(uri) == ROUNDS, "updates after unsubscribing"

    run_async(body)


def test_sse_polling_resumes_on_any_replica() -> None:
    """The fixture's `test_reconnection` closes its SSE stream before answering; the SDK
    resumes it with `GET` and `Last-Event-ID`, which the load balancer may send to any
    replica."""

    async def body() -> None:
        async with client() as session:
            for _ in range(ROUNDS):
                result = await session.call_tool("test_reconnection", {})
                assert only_text(result) == "Reconnection test completed"
                assert only_text(await session.call_tool("test_simple_text", {})) == (
                    "This is a simple text response for testing."
                )

    run_async(body)
