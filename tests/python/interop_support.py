"""Helpers shared by the interop tests of the notes, filesystem and showcase servers.

A server is started straight from its binary (named by an environment variable) with
arguments and environment variables of the test's choosing; everything the server sends
without being asked (notifications) is recorded by `Recorder`.
"""

from __future__ import annotations

import os
import socket
import subprocess
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from contextlib import asynccontextmanager, contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client, StdioServerParameters, types

MODES = ["legacy", "auto", "2026-07-28"]
INVALID_PARAMS = -32602
RESOURCE_NOT_FOUND = -32002

TEST_TIMEOUT_S = 60.0
READ_TIMEOUT_S = 20.0
NOTIFY_GRACE_S = 3.0
HTTP_START_TIMEOUT_S = 10.0


@dataclass
class Collected:
    """Progress and log notifications received through the SDK callbacks."""

    progress: list[tuple[float, float | None, str | None]] = field(default_factory=list)
    logs: list[types.LoggingMessageNotificationParams] = field(default_factory=list)

    async def on_progress(self, progress: float, total: float | None, message: str | None) -> None:
        self.progress.append((progress, total, message))

    async def on_log(self, params: types.LoggingMessageNotificationParams) -> None:
        self.logs.append(params)


def server_binary(var: str) -> str:
    path = os.environ.get(var)
    if not path:
        pytest.fail(f"environment variable {var} is not set (absolute path of the compiled server binary)")
    if not os.path.isabs(path):
        pytest.fail(f"{var}={path!r} is not an absolute path")
    if not (os.path.isfile(path) and os.access(path, os.X_OK)):
        pytest.fail(f"{var}={path!r} is not an executable file")
    return path


def stdio(binary: str, *args: str, **env: str) -> StdioServerParameters:
    return StdioServerParameters(command=binary, args=list(args), env={"RUST_BACKTRACE": "1", **env})


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@contextmanager
def http_server(
    binary: str, stderr_path: Path, *args: str, port: int | None = None, env: dict[str, str] | None = None
) -> Iterator[str]:
    """Runs `binary` serving Streamable HTTP on `port` of 127.0.0.1 (``PORT``; a free one by
    default), with `env` added to its environment, until the block ends; yields its endpoint,
    ``http://127.0.0.1:<port>/mcp``, once it accepts connections. Its stderr goes to
    `stderr_path` (quoted when it fails to start)."""
    port = port or free_port()
    with stderr_path.open("wb") as stderr:
        process = subprocess.Popen(
            [binary, *args],
            env={**os.environ, **(env or {}), "PORT": str(port), "RUST_BACKTRACE": "1"},
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=stderr,
        )
    try:
        deadline = time.monotonic() + HTTP_START_TIMEOUT_S
        while True:
            if process.poll() is not None:
                pytest.fail(f"{binary} exited with {process.returncode}: {stderr_path.read_text(errors='replace')}")
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                break
            except OSError:
                if time.monotonic() > deadline:
                    pytest.fail(f"{binary} did not listen on port {port}: {stderr_path.read_text(errors='replace')}")
                time.sleep(0.05)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        if process.poll() is None:
            process.kill()
        process.wait()


@dataclass
class Recorder:
    """The notifications the server sent, in arrival order."""

    notifications: list[types.ServerNotification] = field(default_factory=list)

    async def __call__(self, message: Any) -> None:
        if isinstance(message, Exception):
            raise message
        self.notifications.append(message)

    def updated(self) -> list[str]:
        return [n.params.uri for n in self.notifications if isinstance(n, types.ResourceUpdatedNotification)]

    def list_changed(self) -> int:
        return sum(isinstance(n, types.ResourceListChangedNotification) for n in self.notifications)


@asynccontextmanager
async def connect(params: StdioServerParameters | str, mode: str, **callbacks: Any) -> AsyncIterator[Client]:
    async with Client(params, mode=mode, read_timeout_seconds=READ_TIMEOUT_S, **callbacks) as client:
        if mode == "2026-07-28":
            # A pinned 2026-07-28 client skips discovery (the SDK adopts a placeholder); ask
            # explicitly, as a client that wants the server's identity and capabilities does.
            raw = await client.session.send_discover("2026-07-28")
            client.session.adopt(types.DiscoverResult.model_validate(raw))
        yield client


def run_async(fn: Callable[[], Awaitable[None]]) -> None:
    async def bounded() -> None:
        with anyio.fail_after(TEST_TIMEOUT_S):
            await fn()

    anyio.run(bounded)


async def wait_until(predicate: Callable[[], bool], timeout: float = NOTIFY_GRACE_S) -> bool:
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() >= deadline:
            return False
        await anyio.sleep(0.01)
    return True


def only_text(result: types.CallToolResult) -> str:
    assert len(result.content) == 1, f"expected exactly one content block, got {result.content!r}"
    block = result.content[0]
    assert isinstance(block, types.TextContent), f"expected a text block, got {block!r}"
    return block.text


def resource_text(result: types.ReadResourceResult) -> str:
    assert len(result.contents) == 1, result.contents
    contents = result.contents[0]
    assert isinstance(contents, types.TextResourceContents), contents
    return contents.text
