"""Interop: task-augmented tool calls through the official Python SDK client (mcp 2.3.0)
against the conformance fixture (CONFORMANCE_BIN, an absolute path), over stdio
(``conformance --stdio``) and Streamable HTTP (``PORT``), in both eras.

The SDK has no tasks client; each era is driven through the lowest SDK layer that accepts it:

* 2026-07-28, the ``io.modelcontextprotocol/tasks`` extension: `TasksExtension` is a
  `mcp.client.extension.ClientExtension`. Passed as ``Client(extensions=[...])``, it is
  declared in every request's client capabilities and claims ``resultType: "task"`` on
  ``tools/call`` (`ResultClaim`); its resolver polls ``tasks/get``, answers the task's
  ``inputRequests`` through the client's own callbacks (``ClientSession.dispatch_input_request``)
  and ``tasks/update``, and returns the tool's result, so ``Client.call_tool`` reads as a
  plain call. ``tasks/*`` go through ``ClientSession.send_request`` with request models whose
  ``name_param`` mirrors ``taskId`` into ``Mcp-Name`` (required on HTTP).
* 2025-11-25 (a session): `LegacyTasks`. ``tasks/get``, ``tasks/result`` and ``tasks/cancel``
  go through ``ClientSession.send_request`` with the SDK's own models (``types.GetTaskRequest``
  and the rest). ``tools/call`` with ``task`` cannot: ``send_request`` validates every
  ``tools/call`` result against the era's ``CallToolResult`` (``mcp_types.methods.SERVER_RESULTS``
  has no ``CreateTaskResult`` arm: "tasks/* deliberately absent"), so the ``{task: ...}`` answer
  fails with a ValidationError ("content: Field required") before the caller's result type is
  consulted. That one request goes through the session's dispatcher
  (``JSONRPCDispatcher.send_raw_request``, built here over the SDK's own transport and handed to
  ``ClientSession(dispatcher=...)``), and its answer is validated as ``types.CreateTaskResult``.
  The server's elicitation inside the task reaches the session's elicitation callback as any
  server request does (over HTTP, on the GET stream).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import anyio
import pytest
from interop_support import READ_TIMEOUT_S, connect, http_server, only_text, run_async, server_binary, stdio, wait_until
from mcp import Client, MCPError, StdioServerParameters, types
from mcp.client.extension import ClaimContext, ClientExtension, ResultClaim
from mcp.client.session import ClientRequestContext, ClientSession
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.inbound import MCP_PROTOCOL_VERSION_HEADER
from mcp.shared.jsonrpc_dispatcher import JSONRPCDispatcher

pytestmark = pytest.mark.filterwarnings("ignore::mcp.shared.exceptions.MCPDeprecationWarning")

TASKS_EXTENSION = "io.modelcontextprotocol/tasks"
RELATED_TASK = "io.modelcontextprotocol/related-task"
MISSING_CAPABILITY = -32021
METHOD_NOT_FOUND = -32601
INTERNAL_ERROR = -32603
POLL_S = 0.02
"""How often the tests poll (the fixture suggests 500 ms, which would make each test slow)."""

Server = StdioServerParameters | str
"""What `mcp.Client` connects to: stdio parameters, or the URL of the HTTP endpoint."""


@pytest.fixture(params=["stdio", "http"])
def server(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Server]:
    binary = server_binary("CONFORMANCE_BIN")
    if request.param == "stdio":
        yield stdio(binary, "--stdio")
    else:
        with http_server(binary, tmp_path / "stderr.log") as url:
            yield url


# ------------------------------------------------------------------ 2026-07-28: the extension


class ExtensionTask(types.Result):
    """The extension's ``Task``: the fields every shape of a task carries."""

    task_id: str
    status: types.TaskStatus
    status_message: str | None = None
    created_at: str
    last_updated_at: str
    ttl_ms: int | None
    poll_interval_ms: int | None = None


class TaskHandle(ExtensionTask):
    """The extension's ``CreateTaskResult``: what ``tools/call`` answers once the call is a task."""

    result_type: Literal["task"] = "task"


class DetailedTask(ExtensionTask):
    """The extension's ``GetTaskResult``: the task, with its outcome or the input it waits for."""

    input_requests: types.InputRequests | None = None
    result: dict[str, Any] | None = None
    error: types.ErrorData | None = None


class TaskIdParams(types.RequestParams):
    task_id: str


class UpdateTaskParams(TaskIdParams):
    input_responses: types.InputResponses


class GetTask(types.Request[TaskIdParams, Literal["tasks/get"]]):
    method: Literal["tasks/get"] = "tasks/get"
    params: TaskIdParams
    name_param = "taskId"


class UpdateTask(types.Request[UpdateTaskParams, Literal["tasks/update"]]):
    method: Literal["tasks/update"] = "tasks/update"
    params: UpdateTaskParams
    name_param = "taskId"


class CancelTask(types.Request[TaskIdParams, Literal["tasks/cancel"]]):
    method: Literal["tasks/cancel"] = "tasks/cancel"
    params: TaskIdParams
    name_param = "taskId"


class TaskCancelledError(RuntimeError):
    """The task of a call ended ``cancelled`` (someone sent ``tasks/cancel``)."""

    def __init__(self, task_id: str, message: str | None) -> None:
        super().__init__(f"task {task_id} was cancelled: {message}")
        self.task_id = task_id


@dataclass
class TasksExtension(ClientExtension):
    """The client side of ``io.modelcontextprotocol/tasks`` for `mcp.Client`.

    `Client.call_tool` returns the tool's result whether or not the call became a task; a
    task that fails raises its `MCPError`, one cancelled raises `TaskCancelledError`. When the
    caller gives up on the call (its scope is cancelled), the task is cancelled too.
    """

    poll_interval_s: float | None = None
    """Seconds between polls; `None` follows the server's ``pollIntervalMs``."""
    statuses: dict[str, list[str]] = field(default_factory=dict)
    """Each task's statuses as the client saw them, in order, without repeats."""

    identifier = TASKS_EXTENSION

    def claims(self) -> list[ResultClaim[Any]]:
        return [ResultClaim(result_type="task", model=TaskHandle, resolve=self._resolve)]

    async def get(self, session: ClientSession, task_id: str, timeout: float | None = None) -> DetailedTask:
        detail = await session.send_request(GetTask(params=TaskIdParams(task_id=task_id)), DetailedTask, timeout)
        self._saw(task_id, detail.status)
        return detail

    async def update(
        self, session: ClientSession, task_id: str, responses: types.InputResponses, timeout: float | None = None
    ) -> None:
        params = UpdateTaskParams(task_id=task_id, input_responses=responses)
        await session.send_request(UpdateTask(params=params), types.EmptyResult, timeout)

    async def cancel(self, session: ClientSession, task_id: str, timeout: float | None = None) -> None:
        await session.send_request(CancelTask(params=TaskIdParams(task_id=task_id)), types.EmptyResult, timeout)

    def _saw(self, task_id: str, status: str) -> None:
        seen = self.statuses.setdefault(task_id, [])
        if not seen or seen[-1] != status:
            seen.append(status)

    async def _resolve(self, handle: TaskHandle, ctx: ClaimContext) -> types.CallToolResult:
        session, timeout, task_id = ctx.session, ctx.read_timeout_seconds, handle.task_id
        self._saw(task_id, handle.status)
        answered: set[str] = set()
        try:
            while True:
                detail = await self.get(session, task_id, timeout)
                if detail.status == "completed":
                    assert detail.result is not None, f"task {task_id} completed without a result"
                    return types.CallToolResult.model_validate(detail.result)
                if detail.status == "failed":
                    error = detail.error or types.ErrorData(code=INTERNAL_ERROR, message="the task failed")
                    raise MCPError.from_error_data(error)
                if detail.status == "cancelled":
                    raise TaskCancelledError(task_id, detail.status_message)
                pending = {k: r for k, r in (detail.input_requests or {}).items() if k not in answered}
                if detail.status == "input_required" and pending:
                    responses = await _answer(session, pending)
                    await self.update(session, task_id, responses, timeout)
                    answered.update(responses)
                    continue
                interval = self.poll_interval_s
                if interval is None:
                    interval = (detail.poll_interval_ms or 1000) / 1000
                await anyio.sleep(interval)
        except anyio.get_cancelled_exc_class():
            # The caller gave up: so does the task (best effort, within a short grace).
            with anyio.CancelScope(shield=True), anyio.move_on_after(5):
                await self.cancel(session, task_id, timeout)
            raise


async def _answer(session: ClientSession, requests: types.InputRequests) -> types.InputResponses:
    """Answers input requests through the client's callbacks, concurrently (as the SDK answers
    an input-required result); a callback's error raises it."""
    responses: types.InputResponses = {}

    async def one(key: str, request: types.InputRequest) -> None:
        meta = request.params.meta if request.params else None
        answer = await session.dispatch_input_request(
            ClientRequestContext(session=session, request_id=key, meta=meta), request
        )
        if isinstance(answer, types.ErrorData):
            raise MCPError.from_error_data(answer)
        responses[key] = answer

    async with anyio.create_task_group() as tg:
        for key, request in requests.items():
            tg.start_soon(one, key, request)
    return responses


@asynccontextmanager
async def modern(server: Server, tasks: TasksExtension | None, **callbacks: Any) -> AsyncIterator[Client]:
    extensions = [tasks] if tasks is not None else None
    async with connect(server, "2026-07-28", extensions=extensions, **callbacks) as client:
        yield client


def test_2026_a_call_that_waits_becomes_a_task_and_resolves_to_its_result(server: Server) -> None:
    async def body() -> None:
        tasks = TasksExtension(poll_interval_s=POLL_S)
        async with modern(server, tasks) as client:
            assert TASKS_EXTENSION in (client.server_capabilities.extensions or {})
            result = await client.call_tool("slow_compute", {"seconds": 0.3, "label": "pi"})
            assert result.is_error is False, result.content
            assert only_text(result) == "Computed pi in 0.3 s"
            [(task_id, seen)] = tasks.statuses.items()
            assert seen[0] == "working" and seen[-1] == "completed", seen
            # A call answered at once is no task.
            assert only_text(await client.call_tool("greet", {"name": "Ada"})) == "Hello, Ada!"
            assert list(tasks.statuses) == [task_id]

    run_async(body)


def test_2026_a_task_asks_for_input_through_tasks_update(server: Server) -> None:
    asked: list[types.ElicitRequestParams] = []

    async def confirm(_: ClientRequestContext, params: types.ElicitRequestParams) -> types.ElicitResult:
        asked.append(params)
        return types.ElicitResult(action="accept", content={"confirm": True})

    async def body() -> None:
        tasks = TasksExtension(poll_interval_s=POLL_S)
        async with modern(server, tasks, elicitation_callback=confirm) as client:
            result = await client.call_tool("confirm_delete", {"filename": "report.txt"})
            assert only_text(result) == "Deleted report.txt"
        [params] = asked
        assert params.message == "Delete report.txt?"
        [seen] = tasks.statuses.values()
        assert "input_required" in seen and seen[-1] == "completed", seen

    run_async(body)


def test_2026_a_task_cancelled_with_tasks_cancel_ends_cancelled(server: Server) -> None:
    async def body() -> None:
        tasks = TasksExtension(poll_interval_s=POLL_S)
        async with modern(server, tasks) as client:
            outcome: list[BaseException] = []

            async def call() -> None:
                try:
                    await client.call_tool("slow_compute", {"seconds": 60, "label": "forever"})
                except TaskCancelledError as error:
                    outcome.append(error)

            async with anyio.create_task_group() as tg:
                tg.start_soon(call)
                assert await wait_until(lambda: any("working" in s for s in tasks.statuses.values()))
                [task_id] = tasks.statuses
                await tasks.cancel(client.session, task_id)
            [error] = outcome
            assert isinstance(error, TaskCancelledError) and error.task_id == task_id
            assert (await tasks.get(client.session, task_id)).status == "cancelled"
            assert tasks.statuses[task_id][-1] == "cancelled"

    run_async(body)


def test_2026_giving_up_on_the_call_cancels_its_task(server: Server) -> None:
    async def body() -> None:
        tasks = TasksExtension(poll_interval_s=POLL_S)
        async with modern(server, tasks) as client:
            async with anyio.create_task_group() as tg:
                tg.start_soon(client.call_tool, "slow_compute", {"seconds": 60})
                assert await wait_until(lambda: any("working" in s for s in tasks.statuses.values()))
                tg.cancel_scope.cancel()
            [task_id] = tasks.statuses
            # Cancellation is eventually consistent (the extension's text): the ack may come
            # before the task's status changes, so poll until it is terminal. A 60 s task can
            # only end early by being cancelled.
            deadline = anyio.current_time() + 30
            detail = await tasks.get(client.session, task_id)
            while detail.status not in ("completed", "failed", "cancelled") and anyio.current_time() < deadline:
                await anyio.sleep(POLL_S)
                detail = await tasks.get(client.session, task_id)
            assert detail.status == "cancelled", detail

    run_async(body)


def test_2026_a_required_task_needs_the_extension(server: Server) -> None:
    async def name(_: ClientRequestContext, params: types.ElicitRequestParams) -> types.ElicitResult:
        assert params.message == "What is your name?"
        return types.ElicitResult(action="accept", content={"name": "Ada"})

    async def body() -> None:
        async with modern(server, None) as client:
            with pytest.raises(MCPError) as excinfo:
                await client.call_tool("failing_job", {})
            assert excinfo.value.code == MISSING_CAPABILITY, excinfo.value.message
            assert excinfo.value.data == {"requiredCapabilities": {"extensions": {TASKS_EXTENSION: {}}}}
        # With it: asks first (an input-required round, answered by the SDK), then a task.
        tasks = TasksExtension(poll_interval_s=POLL_S)
        async with modern(server, tasks, elicitation_callback=name) as client:
            result = await client.call_tool("test_tool_with_task", {})
            assert only_text(result) == "Hello, Ada! The task is done."
            [seen] = tasks.statuses.values()
            assert seen[-1] == "completed", seen

    run_async(body)


# ------------------------------------------------------------------ 2025-11-25: a session


@dataclass
class LegacyTasks:
    """2025-11-25 tasks over an initialized `ClientSession` and the dispatcher under it."""

    session: ClientSession
    dispatcher: JSONRPCDispatcher

    async def call_tool_as_task(
        self, name: str, arguments: dict[str, Any] | None = None, ttl: int | None = None
    ) -> types.CreateTaskResult:
        params = types.CallToolRequestParams(name=name, arguments=arguments, task=types.TaskMetadata(ttl=ttl))
        raw = await self.dispatcher.send_raw_request(
            "tools/call",
            params.model_dump(by_alias=True, mode="json", exclude_none=True),
            {"timeout": READ_TIMEOUT_S, "headers": {MCP_PROTOCOL_VERSION_HEADER: str(self.session.protocol_version)}},
        )
        return types.CreateTaskResult.model_validate(raw)

    async def get(self, task_id: str) -> types.GetTaskResult:
        request = types.GetTaskRequest(params=types.GetTaskRequestParams(task_id=task_id))
        return await self.session.send_request(request, types.GetTaskResult)

    async def result(self, task_id: str) -> types.CallToolResult:
        request = types.GetTaskPayloadRequest(params=types.GetTaskPayloadRequestParams(task_id=task_id))
        return await self.session.send_request(request, types.CallToolResult)

    async def cancel(self, task_id: str) -> types.CancelTaskResult:
        request = types.CancelTaskRequest(params=types.CancelTaskRequestParams(task_id=task_id))
        return await self.session.send_request(request, types.CancelTaskResult)

    async def until(self, task_id: str, status: str) -> types.GetTaskResult:
        with anyio.fail_after(10):
            while (task := await self.get(task_id)).status != status:
                assert task.status in ("working", "input_required"), task
                await anyio.sleep(POLL_S)
        return task


@asynccontextmanager
async def legacy(server: Server, **callbacks: Any) -> AsyncIterator[LegacyTasks]:
    transport = stdio_client(server) if isinstance(server, StdioServerParameters) else streamable_http_client(server)
    async with transport as (read, write):
        dispatcher = JSONRPCDispatcher(read, write)
        async with ClientSession(dispatcher=dispatcher, read_timeout_seconds=READ_TIMEOUT_S, **callbacks) as session:
            initialized = await session.initialize()
            assert initialized.protocol_version == "2025-11-25"
            assert initialized.capabilities.tasks is not None, initialized.capabilities
            yield LegacyTasks(session, dispatcher)


def test_legacy_a_task_is_created_polled_and_its_result_fetched(server: Server) -> None:
    async def body() -> None:
        async with legacy(server) as tasks:
            listed = await tasks.session.list_tools()
            support = {t.name: t.execution.task_support if t.execution else None for t in listed.tools}
            assert (support["slow_compute"], support["failing_job"], support["greet"]) == ("optional", "required", None)

            created = await tasks.call_tool_as_task("slow_compute", {"seconds": 0.5, "label": "pi"}, ttl=60_000)
            task_id = created.task.task_id
            assert (created.task.status, created.task.ttl) == ("working", 60_000)
            assert (await tasks.get(task_id)).status == "working"
            result = await tasks.result(task_id)  # waits for the end
            assert only_text(result) == "Computed pi in 0.5 s"
            assert (result.meta or {})[RELATED_TASK] == {"taskId": task_id}
            assert (await tasks.get(task_id)).status == "completed"

    run_async(body)


def test_legacy_task_support_follows_the_tool(server: Server) -> None:
    async def body() -> None:
        async with legacy(server) as tasks:
            with pytest.raises(MCPError) as never:
                await tasks.call_tool_as_task("greet", {"name": "Ada"})
            assert never.value.code == METHOD_NOT_FOUND, never.value.message
            with pytest.raises(MCPError) as required:
                await tasks.session.call_tool("failing_job", {})
            assert required.value.code == METHOD_NOT_FOUND, required.value.message

    run_async(body)


def test_legacy_a_task_asks_for_input_over_the_session(server: Server) -> None:
    asked: list[tuple[types.ElicitRequestParams, dict[str, Any]]] = []
    release = anyio.Event()

    async def confirm(context: ClientRequestContext, params: types.ElicitRequestParams) -> types.ElicitResult:
        asked.append((params, dict(context.meta or {})))
        await release.wait()  # the task shows input_required meanwhile
        return types.ElicitResult(action="accept", content={"confirm": True})

    async def body() -> None:
        async with legacy(server, elicitation_callback=confirm) as tasks:
            created = await tasks.call_tool_as_task("confirm_delete", {"filename": "report.txt"})
            task_id = created.task.task_id
            await tasks.until(task_id, "input_required")
            [(params, meta)] = asked
            assert params.message == "Delete report.txt?"
            assert meta[RELATED_TASK] == {"taskId": task_id}, meta
            release.set()
            result = await tasks.result(task_id)
            assert only_text(result) == "Deleted report.txt"
            assert (await tasks.get(task_id)).status == "completed"

    run_async(body)


def test_legacy_a_task_cancelled_mid_way_ends_cancelled(server: Server) -> None:
    async def body() -> None:
        async with legacy(server) as tasks:
            created = await tasks.call_tool_as_task("slow_compute", {"seconds": 60})
            task_id = created.task.task_id
            assert (await tasks.get(task_id)).status == "working"
            cancelled = await tasks.cancel(task_id)
            assert (cancelled.task_id, cancelled.status) == (task_id, "cancelled")
            assert (await tasks.get(task_id)).status == "cancelled"
            with pytest.raises(MCPError) as no_result:
                await tasks.result(task_id)
            assert no_result.value.code == INTERNAL_ERROR, no_result.value.message
            with pytest.raises(MCPError) as again:
                await tasks.cancel(task_id)
            assert "already cancelled" in again.value.message
            # The session goes on.
            assert only_text(await tasks.session.call_tool("greet", {"name": "Ada"})) == "Hello, Ada!"

    run_async(body)
