"""Interop tests: drive the example servers through the official Python MCP SDK client.

The servers are the compiled example binaries, named by the environment variables
CALCULATOR_BIN and SHOWCASE_BIN (absolute paths). Each test starts its own server
process through ``mcp.Client(StdioServerParameters(...), mode=...)`` and runs once per
client connect mode:

* ``"legacy"``: the ``initialize`` handshake (protocol 2025-11-25).
* ``"auto"``:   the SDK first probes ``server/discover``; our servers answer it (they
  speak both eras), so the connection stays on stateless 2026-07-28 requests.
* ``"2026-07-28"``: stateless from the first request, without the probe.

The SDK does not expose the server process, so every server is launched through a
tiny ``/bin/sh`` wrapper that records the server's exit status in a file once it
exits. On close the SDK shuts its stdin, waits up to 2 s for the process to exit on
its own, and then SIGTERMs the whole process group (wrapper included). So a status
file containing ``0`` proves the server exited by itself, with code 0, after stdin
closed; a hanging server leaves no status file.
"""

from __future__ import annotations

import base64
import json
import re
import shlex
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client, MCPError, StdioServerParameters, types
from mcp.types.version import HANDSHAKE_PROTOCOL_VERSIONS, LATEST_HANDSHAKE_VERSION

import interop_support as support
from interop_support import INVALID_PARAMS, MODES, Collected, only_text, run_async, wait_until

# `Client.set_logging_level` is marked deprecated for 2026-07-28 servers (SEP-2577),
# but it is exactly the API a 2025-11-25 server is driven with.
pytestmark = pytest.mark.filterwarnings("ignore::mcp.shared.exceptions.MCPDeprecationWarning")


# The SDK waits this long (PROCESS_TERMINATION_TIMEOUT) after closing stdin before it
# kills the server; a clean shutdown must be faster than that.
CLEAN_EXIT_LIMIT_S = 2.0


# ----------------------------------------------------------------------------- helpers



@dataclass
class ServerRun:
    """One launched server process: its wrapper script, exit-status file and stderr log."""

    binary: str
    workdir: Path
    wrapper: Path = field(init=False)
    status_file: Path = field(init=False)
    stderr_file: Path = field(init=False)

    def __post_init__(self) -> None:
        self.workdir.mkdir(parents=True, exist_ok=True)
        self.wrapper = self.workdir / "server.sh"
        self.status_file = self.workdir / "exit-status"
        self.stderr_file = self.workdir / "stderr.log"
        # No `exec`: the shell must outlive the server to record its exit status.
        # The server inherits the shell's stdin/stdout pipes; stderr goes to a file.
        self.wrapper.write_text(
            "#!/bin/sh\n"
            f"{shlex.quote(self.binary)} 2>>{shlex.quote(str(self.stderr_file))}\n"
            f"echo $? >{shlex.quote(str(self.status_file))}\n"
        )
        self.wrapper.chmod(0o755)

    def params(self) -> StdioServerParameters:
        return StdioServerParameters(command=str(self.wrapper), env={"RUST_BACKTRACE": "1"})

    def exit_status(self) -> str | None:
        """The server's exit status, or None if it has not exited by itself (or was killed)."""
        try:
            return self.status_file.read_text().strip()
        except FileNotFoundError:
            return None

    def stderr_tail(self, limit: int = 4000) -> str:
        try:
            text = self.stderr_file.read_text(errors="replace")
        except FileNotFoundError:
            return "<no stderr>"
        return text[-limit:] if text else "<empty stderr>"



@asynccontextmanager
async def connect(
    run: ServerRun, mode: str, collected: Collected | None = None, log_level: str | None = None
) -> AsyncIterator[Client]:
    kwargs: dict[str, Any] = {}
    if collected is not None:
        kwargs["logging_callback"] = collected.on_log
    if log_level is not None:
        # 2026-07-28 requests opt in to logs per request; the handshake era uses setLevel.
        kwargs["log_level"] = log_level
    async with support.connect(run.params(), mode, **kwargs) as client:
        yield client





def texts(result: types.CallToolResult) -> list[str]:
    return [block.text for block in result.content if isinstance(block, types.TextContent)]


def schema_type_is(schema: dict[str, Any], wanted: str) -> bool:
    """`{"type": wanted}`, or a nullable form like `{"type": [wanted, "null"]}`."""
    t = schema.get("type")
    if isinstance(t, list):
        return wanted in t and all(x in (wanted, "null") for x in t)
    return t == wanted


def is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


# ----------------------------------------------------------------------------- fixtures


@pytest.fixture(params=MODES)
def mode(request: pytest.FixtureRequest) -> str:
    return request.param


@pytest.fixture
def calculator(tmp_path: Path) -> ServerRun:
    return ServerRun(support.server_binary("CALCULATOR_BIN"), tmp_path / "calculator")


@pytest.fixture
def showcase(tmp_path: Path) -> ServerRun:
    return ServerRun(support.server_binary("SHOWCASE_BIN"), tmp_path / "showcase")


# ----------------------------------------------------------------------------- handshake


def check_handshake(client: Client, mode: str, name: str, connect_seconds: float) -> None:
    info = client.server_info
    assert info is not None, "server did not identify itself"
    assert info.name == name
    assert info.version, "serverInfo.version must be a non-empty string"
    if mode == "legacy":
        assert client.session.initialize_result is not None, "initialize handshake did not happen"
        assert client.session.discover_result is None
        assert client.protocol_version in HANDSHAKE_PROTOCOL_VERSIONS
        assert client.protocol_version == LATEST_HANDSHAKE_VERSION == "2025-11-25"
    else:
        # The servers speak both eras: "auto" probes with server/discover and stays stateless;
        # "2026-07-28" is stateless from the start.
        if mode == "auto":
            assert client.session.discover_result is not None, "server/discover was not answered"
        assert client.session.initialize_result is None
        assert client.protocol_version == "2026-07-28"
        # A server that ignored server/discover would make the SDK wait out its 10 s timeout.
        assert connect_seconds < 5.0, f"auto-mode connect took {connect_seconds:.1f}s (server/discover unanswered?)"
    assert client.server_capabilities.tools is not None, "server must advertise the tools capability"


@pytest.mark.parametrize("server, name", [("calculator", "calculator"), ("showcase", "showcase")])
def test_handshake(request: pytest.FixtureRequest, server: str, name: str, mode: str) -> None:
    run: ServerRun = request.getfixturevalue(server)

    async def body() -> None:
        started = time.monotonic()
        async with connect(run, mode) as client:
            check_handshake(client, mode, name, time.monotonic() - started)

    run_async(body)


# ----------------------------------------------------------------------------- calculator


def test_calculator_list_tools(calculator: ServerRun, mode: str) -> None:
    async def body() -> None:
        async with connect(calculator, mode) as client:
            listed = await client.list_tools()
        assert [t.name for t in listed.tools] == ["add", "subtract", "multiply", "divide"]
        assert listed.next_cursor is None
        for tool in listed.tools:
            assert tool.description, f"{tool.name} has no description"
            schema = tool.input_schema
            assert schema.get("type") == "object", f"{tool.name}: {schema!r}"
            props = schema.get("properties") or {}
            assert set(props) == {"a", "b"}, f"{tool.name}: {schema!r}"
            for arg in ("a", "b"):
                assert schema_type_is(props[arg], "number") and props[arg]["type"] == "number", (
                    f"{tool.name}.{arg}: {props[arg]!r}"
                )
            assert sorted(schema.get("required") or []) == ["a", "b"], f"{tool.name}: {schema!r}"
        add = listed.tools[0]
        assert add.annotations is not None and add.annotations.read_only_hint is True

    run_async(body)


@pytest.mark.parametrize(
    "tool, args, expected",
    [
        ("add", {"a": 2, "b": 3}, "5"),
        ("subtract", {"a": 10, "b": 4}, "6"),
        ("multiply", {"a": 2.5, "b": 4}, "10"),
        ("divide", {"a": 1, "b": 4}, "0.25"),
    ],
)
def test_calculator_arithmetic(calculator: ServerRun, mode: str, tool: str, args: dict[str, Any], expected: str) -> None:
    async def body() -> None:
        async with connect(calculator, mode) as client:
            result = await client.call_tool(tool, args)
        assert result.is_error is False, f"{tool}({args}) failed: {result.content!r}"
        assert only_text(result) == expected

    run_async(body)


def test_calculator_divide_by_zero(calculator: ServerRun, mode: str) -> None:
    async def body() -> None:
        async with connect(calculator, mode) as client:
            result = await client.call_tool("divide", {"a": 1, "b": 0})
        assert result.is_error is True, f"divide by zero did not report a tool error: {result!r}"
        assert any("cannot divide by zero" in t for t in texts(result)), result.content

    run_async(body)


def test_calculator_bad_argument_type(calculator: ServerRun, mode: str) -> None:
    async def body() -> None:
        async with connect(calculator, mode) as client:
            result = await client.call_tool("add", {"a": "x", "b": 3})
        assert result.is_error is True, f"add(a='x') did not report a tool error: {result!r}"
        message = " ".join(texts(result))
        # The message must name the offending parameter `a` (as a word, not just a letter).
        assert re.search(r"(?<![A-Za-z0-9_])a(?![A-Za-z0-9_])", message), f"error does not mention 'a': {message!r}"

    run_async(body)


def test_calculator_unknown_tool(calculator: ServerRun, mode: str) -> None:
    async def body() -> None:
        async with connect(calculator, mode) as client:
            with pytest.raises(MCPError) as excinfo:
                await client.call_tool("no_such_tool", {"a": 1, "b": 2})
            assert excinfo.value.code == INVALID_PARAMS, f"{excinfo.value.code}: {excinfo.value.message}"
            # The connection must stay usable after the error.
            result = await client.call_tool("add", {"a": 1, "b": 1})
            assert only_text(result) == "2"

    run_async(body)


# ----------------------------------------------------------------------------- showcase


def test_showcase_list_tools(showcase: ServerRun, mode: str) -> None:
    async def body() -> None:
        async with connect(showcase, mode) as client:
            listed = await client.list_tools()
        tools = {t.name: t for t in listed.tools}
        assert {"forecast", "count_slowly", "pixel"} <= set(tools), sorted(tools)
        for tool in listed.tools:
            assert tool.description, f"{tool.name} has no description"
            assert tool.input_schema.get("type") == "object", f"{tool.name}: {tool.input_schema!r}"

        forecast = tools["forecast"]
        props = forecast.input_schema.get("properties") or {}
        assert set(props) == {"city", "days"}, forecast.input_schema
        assert schema_type_is(props["city"], "string"), props["city"]
        assert schema_type_is(props["days"], "integer"), props["days"]
        assert forecast.input_schema.get("required") == ["city"], forecast.input_schema
        out = forecast.output_schema
        assert out is not None, "forecast must declare an outputSchema"
        assert out.get("type") == "object", out
        assert {"city", "days"} <= set(out.get("properties") or {}), out

        count = tools["count_slowly"]
        props = count.input_schema.get("properties") or {}
        assert set(props) == {"to"}, count.input_schema
        assert schema_type_is(props["to"], "integer") and props["to"]["type"] == "integer", props["to"]
        assert count.input_schema.get("required") == ["to"], count.input_schema

        pixel = tools["pixel"]
        assert not (pixel.input_schema.get("properties") or {}), pixel.input_schema
        assert not pixel.input_schema.get("required"), pixel.input_schema

    run_async(body)


def check_forecast(result: types.CallToolResult, city: str, days: int) -> None:
    assert result.is_error is False, result.content
    data = result.structured_content
    assert isinstance(data, dict), f"no structuredContent: {result!r}"
    assert data.get("city") == city
    entries = data.get("days")
    assert isinstance(entries, list) and len(entries) == days, data
    for i, entry in enumerate(entries, start=1):
        assert entry.get("day") == i, entry
        assert is_number(entry.get("high_c")), entry
        assert is_number(entry.get("low_c")), entry
        assert isinstance(entry.get("summary"), str), entry
    # Backwards compatibility: a text block carrying the same JSON.
    decoded = []
    for text in texts(result):
        try:
            decoded.append(json.loads(text))
        except ValueError:
            pass
    assert data in decoded, f"no text block whose JSON equals structuredContent: {result.content!r}"


@pytest.mark.parametrize("days", [None, 1, 5])
def test_showcase_forecast(showcase: ServerRun, mode: str, days: int | None) -> None:
    async def body() -> None:
        args: dict[str, Any] = {"city": "Paris"}
        if days is not None:
            args["days"] = days
        async with connect(showcase, mode) as client:
            # The SDK also validates structuredContent against the listed outputSchema.
            result = await client.call_tool("forecast", args)
        check_forecast(result, "Paris", 3 if days is None else days)

    run_async(body)


def test_showcase_forecast_empty_city(showcase: ServerRun, mode: str) -> None:
    async def body() -> None:
        async with connect(showcase, mode) as client:
            result = await client.call_tool("forecast", {"city": ""})
        assert result.is_error is True, f"empty city did not report a tool error: {result!r}"
        assert any("city must not be empty" in t for t in texts(result)), result.content

    run_async(body)


def test_showcase_pixel(showcase: ServerRun, mode: str) -> None:
    async def body() -> None:
        async with connect(showcase, mode) as client:
            result = await client.call_tool("pixel", {})
        assert result.is_error is False, result.content
        assert len(result.content) == 1, result.content
        block = result.content[0]
        assert isinstance(block, types.ImageContent), block
        assert block.mime_type == "image/png"
        assert block.data, "empty image data"
        raw = base64.b64decode(block.data, validate=True)
        assert raw.startswith(b"\x89PNG\r\n\x1a\n"), f"not a PNG: {raw[:16]!r}"

    run_async(body)


def test_showcase_count_slowly_progress(showcase: ServerRun, mode: str) -> None:
    to = 5

    async def body() -> None:
        got = Collected()
        async with connect(showcase, mode) as client:
            result = await client.call_tool("count_slowly", {"to": to}, progress_callback=got.on_progress)
            assert result.is_error is False, result.content
            assert only_text(result) == f"counted to {to}"
            # Progress callbacks run as separate tasks; let stragglers land.
            await wait_until(lambda: len(got.progress) >= to)
            await anyio.sleep(0.1)
        progress = [p for p, _, _ in got.progress]
        assert progress == [float(i) for i in range(1, to + 1)], got.progress
        assert all(total == float(to) for _, total, _ in got.progress), got.progress

    run_async(body)


def test_showcase_count_slowly_without_progress_token(showcase: ServerRun, mode: str) -> None:
    async def body() -> None:
        async with connect(showcase, mode) as client:
            result = await client.call_tool("count_slowly", {"to": 2})
        assert result.is_error is False, result.content
        assert only_text(result) == "counted to 2"

    run_async(body)


def test_showcase_logging_info(showcase: ServerRun, mode: str) -> None:
    to = 3
    expected = [f"counted {i}" for i in range(1, to + 1)]

    async def body() -> None:
        got = Collected()
        async with connect(showcase, mode, got, log_level="info") as client:
            assert client.server_capabilities.logging is not None, "server must advertise the logging capability"
            if mode == "legacy":
                await client.set_logging_level("info")
            result = await client.call_tool("count_slowly", {"to": to})
            assert only_text(result) == f"counted to {to}"
            await wait_until(lambda: len([m for m in got.logs if m.data in expected]) >= to)
        counted = [m for m in got.logs if m.data in expected]
        assert sorted((m.data for m in counted), key=lambda d: int(d.split()[1])) == expected, got.logs
        assert all(m.level == "info" for m in counted), counted

    run_async(body)


def test_showcase_logging_error_level_filters_info(showcase: ServerRun, mode: str) -> None:
    async def body() -> None:
        got = Collected()
        async with connect(showcase, mode, got, log_level="error") as client:
            if mode == "legacy":
                await client.set_logging_level("error")
            result = await client.call_tool("count_slowly", {"to": 3})
            assert only_text(result) == "counted to 3"
            # Another full round trip, then a grace period for any straggling notifications.
            await client.call_tool("pixel", {})
            await anyio.sleep(0.5)
        below_error = [m for m in got.logs if m.level in ("debug", "info", "notice", "warning")]
        assert not below_error, f"messages below 'error' delivered after logging/setLevel error: {below_error!r}"

    run_async(body)


# ----------------------------------------------------------------------------- shutdown


@pytest.mark.parametrize("server", ["calculator", "showcase"])
def test_clean_exit(request: pytest.FixtureRequest, server: str, mode: str) -> None:
    run: ServerRun = request.getfixturevalue(server)
    timings: dict[str, float] = {}

    async def body() -> None:
        async with connect(run, mode) as client:
            listed = await client.list_tools()
            assert listed.tools
            timings["close_started"] = time.monotonic()
        timings["closed"] = time.monotonic()

    run_async(body)
    close_seconds = timings["closed"] - timings["close_started"]
    status = run.exit_status()
    assert status is not None, (
        f"{server} did not exit by itself after stdin closed (the SDK killed it after "
        f"{close_seconds:.2f}s); stderr:\n{run.stderr_tail()}"
    )
    assert status == "0", f"{server} exited with status {status}; stderr:\n{run.stderr_tail()}"
    assert close_seconds < CLEAN_EXIT_LIMIT_S, f"closing the client took {close_seconds:.2f}s"
