"""Interop tests over Streamable HTTP: the official Python MCP SDK client against the
``examples/http-server`` binary (named by the environment variable HTTP_SERVER_BIN, an
absolute path), in the three connect modes: ``"legacy"`` (the ``initialize`` handshake,
protocol 2025-11-25, with an ``Mcp-Session-Id``), ``"auto"`` (probes ``server/discover`` and
stays stateless) and ``"2026-07-28"`` (stateless from the start).

Each test starts its own server process on a free port of 127.0.0.1 (``PORT``), waits until
it accepts connections, and connects with ``mcp.Client("http://127.0.0.1:<port>/mcp")``.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import anyio
import pytest
from mcp import Client, types

from interop_support import Collected, free_port, only_text, run_async

pytestmark = pytest.mark.filterwarnings("ignore::mcp.shared.exceptions.MCPDeprecationWarning")

MODES = ["legacy", "auto", "2026-07-28"]
READ_TIMEOUT_S = 20.0
START_TIMEOUT_S = 10.0
STOP_TIMEOUT_S = 5.0


@dataclass
class HttpServer:
    process: subprocess.Popen[bytes]
    url: str
    stderr_path: Path

    def stderr_tail(self, limit: int = 4000) -> str:
        text = self.stderr_path.read_text(errors="replace") if self.stderr_path.exists() else ""
        return text[-limit:] if text else "<empty stderr>"


@pytest.fixture
def http_server(tmp_path: Path) -> Iterator[HttpServer]:
    binary = os.environ.get("HTTP_SERVER_BIN")
    if not binary:
        pytest.fail("environment variable HTTP_SERVER_BIN is not set (absolute path of the compiled server)")
    if not (os.path.isabs(binary) and os.path.isfile(binary) and os.access(binary, os.X_OK)):
        pytest.fail(f"HTTP_SERVER_BIN={binary!r} is not an absolute path to an executable file")
    port = free_port()
    stderr_path = tmp_path / "stderr.log"
    with stderr_path.open("wb") as stderr:
        process = subprocess.Popen(
            [binary],
            env={**os.environ, "PORT": str(port), "RUST_BACKTRACE": "1"},
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=stderr,
        )
    server = HttpServer(process, f"http://127.0.0.1:{port}/mcp", stderr_path)
    deadline = time.monotonic() + START_TIMEOUT_S
    while True:
        if process.poll() is not None:
            pytest.fail(f"the server exited with {process.returncode}: {server.stderr_tail()}")
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            break
        except OSError:
            if time.monotonic() > deadline:
                process.kill()
                pytest.fail(f"the server did not listen on port {port}: {server.stderr_tail()}")
            time.sleep(0.05)
    try:
        yield server
    finally:
        if process.poll() is None:
            process.kill()
        process.wait()
        assert process.stdout is not None
        process.stdout.close()





@pytest.fixture(params=MODES)
def mode(request: pytest.FixtureRequest) -> str:
    return request.param


def test_handshake_and_list_tools(http_server: HttpServer, mode: str) -> None:
    async def body() -> None:
        async with Client(http_server.url, mode=mode, read_timeout_seconds=READ_TIMEOUT_S) as client:
            if mode == "legacy":
                assert client.server_info is not None and client.server_info.name == "http-server"
                assert client.session.initialize_result is not None, "initialize handshake did not happen"
                assert client.protocol_version == "2025-11-25"
                assert client.server_capabilities.tools is not None
            else:
                assert client.session.initialize_result is None, "a stateless client needs no handshake"
                assert client.protocol_version == "2026-07-28"
            if mode == "auto":
                assert client.server_info is not None and client.server_info.name == "http-server"
                assert client.server_capabilities.tools is not None
            listed = await client.list_tools()
        assert [t.name for t in listed.tools] == ["add", "count_slowly", "long_job", "book_table"]
        add = listed.tools[0]
        assert set((add.input_schema.get("properties") or {})) == {"a", "b"}
        assert add.annotations is not None and add.annotations.read_only_hint is True

    run_async(body)


def test_call_tool(http_server: HttpServer, mode: str) -> None:
    async def body() -> None:
        async with Client(http_server.url, mode=mode, read_timeout_seconds=READ_TIMEOUT_S) as client:
            result = await client.call_tool("add", {"a": 2, "b": 3})
            assert result.is_error is False, result.content
            assert only_text(result) == "5"
            failed = await client.call_tool("count_slowly", {"to": 1000})
            assert failed.is_error is True
            assert "at most 100" in only_text(failed)

    run_async(body)


def test_progress_and_logs_stream_during_the_call(http_server: HttpServer, mode: str) -> None:
    to = 5

    async def body() -> None:
        got = Collected()
        # 2026-07-28 requests opt in to logs per request (log_level); sessions default to info.
        async with Client(
            http_server.url,
            mode=mode,
            read_timeout_seconds=READ_TIMEOUT_S,
            logging_callback=got.on_log,
            log_level="info",
        ) as client:
            result = await client.call_tool("count_slowly", {"to": to}, progress_callback=got.on_progress)
            assert only_text(result) == f"counted to {to}"
            deadline = time.monotonic() + 3.0
            while (len(got.progress) < to or len(got.logs) < to) and time.monotonic() < deadline:
                await anyio.sleep(0.01)
        assert [p for p, _, _ in got.progress] == [float(i) for i in range(1, to + 1)], got.progress
        assert all(total == float(to) for _, total, _ in got.progress), got.progress
        assert [m.data for m in got.logs] == [f"counted {i}" for i in range(1, to + 1)], got.logs

    run_async(body)


def test_sse_polling_delivers_the_result_after_reconnecting(http_server: HttpServer, mode: str) -> None:
    async def body() -> None:
        async with Client(http_server.url, mode=mode, read_timeout_seconds=READ_TIMEOUT_S) as client:
            result = await client.call_tool("long_job", {})
            assert only_text(result) == "job done"
            # The session still works afterwards.
            assert only_text(await client.call_tool("add", {"a": 1, "b": 1})) == "2"

    run_async(body)


def test_elicitation_round_trip(http_server: HttpServer, mode: str) -> None:
    """legacy: an elicitation request on the call's stream; 2026-07-28: an input-required
    result the SDK answers through the same callback and retries."""
    asked: list[types.ElicitRequestParams] = []

    async def answer(_: object, params: types.ElicitRequestParams) -> types.ElicitResult:
        asked.append(params)
        return types.ElicitResult(action="accept", content={"guests": 4})

    async def body() -> None:
        async with Client(
            http_server.url, mode=mode, read_timeout_seconds=READ_TIMEOUT_S, elicitation_callback=answer
        ) as client:
            result = await client.call_tool("book_table", {})
            assert result.is_error is False, result.content
            assert only_text(result) == "table for 4 booked"
        [params] = asked
        assert params.message == "How many guests?"

    run_async(body)


def test_sigterm_stops_the_server_cleanly(http_server: HttpServer) -> None:
    async def body() -> None:
        async with Client(http_server.url, mode="legacy", read_timeout_seconds=READ_TIMEOUT_S) as client:
            await client.list_tools()

    run_async(body)
    http_server.process.send_signal(signal.SIGTERM)
    try:
        code = http_server.process.wait(timeout=STOP_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        pytest.fail(f"the server did not stop within {STOP_TIMEOUT_S}s of SIGTERM: {http_server.stderr_tail()}")
    assert code == 0, f"exit status {code}: {http_server.stderr_tail()}"
    assert http_server.process.stdout is not None
    assert http_server.process.stdout.read() == b"", "the server printed on stdout"
