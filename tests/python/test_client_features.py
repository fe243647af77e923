"""Interop: servers asking the client, through the official Python SDK client's callbacks,
in modes "legacy" and "auto".

* sampling (`summarize`), form elicitation (`plan_trip`) and roots (`list_roots`) of the
  showcase (SHOWCASE_BIN);
* the confirmation of `delete_note` (NOTES_BIN), asked through elicitation;
* roots as a safety boundary in the filesystem server (FILESYSTEM_BIN);
* a client that never answers: the server's timeout (MCP_CLIENT_TIMEOUT_MS), and a client
  that gives up on a call (cancellation).

"legacy" speaks 2025-11-25, where the server sends requests to the client; "auto" negotiates
2026-07-28, where they come back inside input-required results that the SDK answers with the
same callbacks. Where the two eras differ visibly, the test says so.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import anyio
import pytest
from interop_support import (
    MODES,
    connect,
    only_text,
    run_async,
    server_binary,
    stdio,
)
from mcp import Client, MCPError, types
from mcp.client.session import ClientRequestContext

pytestmark = pytest.mark.filterwarnings("ignore::mcp.shared.exceptions.MCPDeprecationWarning")

LEGACY = "2025-11-25"
MISSING_CAPABILITY = -32021


@pytest.fixture(params=MODES)
def mode(request: pytest.FixtureRequest) -> str:
    return request.param


def showcase(**env: str):
    return stdio(server_binary("SHOWCASE_BIN"), **env)


async def call_needing(client: Client, capability: str, tool: str, arguments: dict[str, Any]) -> str | None:
    """Calls a tool that needs a client capability the client did not declare. 2025-11-25: a
    tool error result the model can read (its text is returned); 2026-07-28: the JSON-RPC
    error MissingRequiredClientCapability (-32021) naming the capability (None is returned)."""
    if client.protocol_version == LEGACY:
        result = await client.call_tool(tool, arguments)
        assert result.is_error is True, result.content
        return only_text(result)
    with pytest.raises(MCPError) as excinfo:
        await client.call_tool(tool, arguments)
    assert excinfo.value.code == MISSING_CAPABILITY, excinfo.value.message
    assert excinfo.value.data == {"requiredCapabilities": {capability: {}}}, excinfo.value.data
    return None


def answer_text(text: str) -> types.CreateMessageResult:
    return types.CreateMessageResult(
        role="assistant", content=types.TextContent(type="text", text=text), model="test-model"
    )


# ----------------------------------------------------------------------------- sampling


def test_sampling_is_answered_by_the_callback(mode: str) -> None:
    seen: list[types.CreateMessageRequestParams] = []

    async def sampling(_: ClientRequestContext, params: types.CreateMessageRequestParams) -> types.CreateMessageResult:
        seen.append(params)
        return answer_text("A cat sat.")

    async def body() -> None:
        async with connect(showcase(), mode, sampling_callback=sampling) as client:
            result = await client.call_tool("summarize", {"text": "The cat sat on the mat all day long."})
        assert result.is_error is False, result.content
        assert only_text(result) == "A cat sat."
        assert len(seen) == 1
        params = seen[0]
        assert params.max_tokens == 200
        assert params.system_prompt == "You write short, plain summaries."
        [message] = params.messages
        assert message.role == "user"
        assert isinstance(message.content, types.TextContent)
        assert "The cat sat on the mat all day long." in message.content.text

    run_async(body)


def test_sampling_without_the_capability_is_a_tool_error(mode: str) -> None:
    async def body() -> None:
        async with connect(showcase(), mode) as client:
            assert client.session._build_capabilities(client.protocol_version).sampling is None
            text = await call_needing(client, "sampling", "summarize", {"text": "x"})
            assert text in (None, "the client does not support `sampling`")
            assert (await client.call_tool("pixel", {})).is_error is False, "still usable"

    run_async(body)


def test_sampling_refused_by_the_client(mode: str) -> None:
    async def refuse(_: ClientRequestContext, __: types.CreateMessageRequestParams) -> types.ErrorData:
        return types.ErrorData(code=-1, message="User rejected sampling request")

    async def body() -> None:
        async with connect(showcase(), mode, sampling_callback=refuse) as client:
            if client.protocol_version == LEGACY:
                # The refusal travels back to the server, which reports it to the model.
                result = await client.call_tool("summarize", {"text": "x"})
                assert result.is_error is True
                assert only_text(result) == "the client refused the request: User rejected sampling request (-1)"
            else:
                # The SDK answers input-required rounds itself and raises on a refusal.
                with pytest.raises(MCPError) as excinfo:
                    await client.call_tool("summarize", {"text": "x"})
                assert "User rejected sampling request" in excinfo.value.message

    run_async(body)


# ----------------------------------------------------------------------------- elicitation


def elicit_with(action: str, content: dict[str, Any] | None, seen: list[types.ElicitRequestParams]):
    async def elicitation(_: ClientRequestContext, params: types.ElicitRequestParams) -> types.ElicitResult:
        seen.append(params)
        return types.ElicitResult(action=action, content=content)

    return elicitation


@pytest.mark.parametrize(
    "action, content, expected",
    [
        ("accept", {"destination": "Porto", "nights": 3, "travel": "train"}, "3 nights in Porto, by train"),
        ("decline", None, "no trip: the user declined"),
        ("cancel", None, "no trip: the user cancelled"),
    ],
)
def test_elicitation_outcomes(mode: str, action: str, content: dict[str, Any] | None, expected: str) -> None:
    seen: list[types.ElicitRequestParams] = []

    async def body() -> None:
        callback = elicit_with(action, content, seen)
        async with connect(showcase(), mode, elicitation_callback=callback) as client:
            result = await client.call_tool("plan_trip", {})
        assert result.is_error is False, result.content
        assert only_text(result) == expected
        [params] = seen
        assert isinstance(params, types.ElicitRequestFormParams)
        assert params.message == "Where would you like to go?"
        schema = params.requested_schema
        assert schema["type"] == "object"
        assert sorted(schema["required"]) == ["destination", "nights", "travel"]
        props = schema["properties"]
        assert props["destination"] == {"type": "string", "description": "Where to go"}
        assert props["nights"]["type"] == "integer" and props["nights"]["description"] == "How many nights to stay"
        travel = props["travel"]
        assert travel["type"] == "string"
        assert [(o["const"], o["title"]) for o in travel["oneOf"]] == [
            ("train", "By train"),
            ("plane", "By plane"),
            ("car", "By car"),
        ]

    run_async(body)


def test_elicitation_content_that_does_not_fit_the_form_is_a_tool_error(mode: str) -> None:
    async def body() -> None:
        callback = elicit_with("accept", {"destination": "Porto", "nights": "many", "travel": "boat"}, [])
        async with connect(showcase(), mode, elicitation_callback=callback) as client:
            result = await client.call_tool("plan_trip", {})
        assert result.is_error is True
        assert "malformed" in only_text(result), result.content

    run_async(body)


def test_elicitation_without_the_capability_is_a_tool_error(mode: str) -> None:
    async def body() -> None:
        async with connect(showcase(), mode) as client:
            text = await call_needing(client, "elicitation", "plan_trip", {})
        assert text in (None, "the client does not support `elicitation`")

    run_async(body)


# ----------------------------------------------------------------------------- confirmation


@pytest.fixture
def notes(tmp_path: Path) -> Path:
    folder = tmp_path / "notes"
    folder.mkdir()
    (folder / "old.md").write_text("# Old\n")
    return folder


@pytest.mark.parametrize(
    "action, content, deleted",
    [
        ("accept", {"confirm": True}, True),
        ("accept", {"confirm": False}, False),
        ("decline", None, False),
        ("cancel", None, False),
    ],
)
def test_delete_note_asks_for_confirmation(
    notes: Path, mode: str, action: str, content: dict[str, Any] | None, deleted: bool
) -> None:
    seen: list[types.ElicitRequestParams] = []

    async def body() -> None:
        params = stdio(server_binary("NOTES_BIN"), str(notes))
        async with connect(params, mode, elicitation_callback=elicit_with(action, content, seen)) as client:
            tool = {t.name: t for t in (await client.list_tools()).tools}["delete_note"]
            assert tool.annotations is not None and tool.annotations.destructive_hint is True
            result = await client.call_tool("delete_note", {"name": "old"})
            listed = [r.uri for r in (await client.list_resources()).resources]
        [asked] = seen
        assert "delete_note" in asked.message and '"old"' in asked.message, asked.message
        assert asked.requested_schema["properties"]["confirm"]["type"] == "boolean"
        if deleted:
            assert result.is_error is False, result.content
            assert only_text(result) == "deleted notes://old"
            assert "notes://old" not in listed
        else:
            assert result.is_error is True
            assert only_text(result) == "the user did not allow `delete_note` to run; it was not run"
            assert "notes://old" in listed

    run_async(body)
    assert (notes / "old.md").exists() is not deleted


def test_delete_note_is_refused_without_elicitation(notes: Path, mode: str) -> None:
    async def body() -> None:
        async with connect(stdio(server_binary("NOTES_BIN"), str(notes)), mode) as client:
            text = await call_needing(client, "elicitation", "delete_note", {"name": "old"})
        assert text is None or ("cannot ask for it" in text and "it was not run" in text), text

    run_async(body)
    assert (notes / "old.md").exists()


# ----------------------------------------------------------------------------- roots


def roots_answering(paths: list[Path], calls: list[int]):
    async def list_roots(_: ClientRequestContext) -> types.ListRootsResult:
        calls.append(1)
        return types.ListRootsResult(
            roots=[types.Root(uri=f"file://{p}", name=p.name) for p in paths]  # type: ignore[arg-type]
        )

    return list_roots


def test_list_roots_follows_the_clients_changes(tmp_path: Path, mode: str) -> None:
    first, second = tmp_path / "first", tmp_path / "second"
    roots = [first]
    calls: list[int] = []

    async def body() -> None:
        async with connect(showcase(), mode, list_roots_callback=roots_answering(roots, calls)) as client:
            assert only_text(await client.call_tool("list_roots", {})) == f"file://{first}"
            assert only_text(await client.call_tool("list_roots", {})) == f"file://{first}"
            roots[:] = [first, second]
            if client.protocol_version == LEGACY:
                assert len(calls) == 1, "2025-11-25: the roots are cached for the session"
                await client.send_roots_list_changed()
            else:
                assert len(calls) == 2, "2026-07-28: every request carries its own answers"
            result = await client.call_tool("list_roots", {})
            assert only_text(result) == f"file://{first}\nfile://{second}"

    run_async(body)


def test_list_roots_without_the_capability_is_a_tool_error(mode: str) -> None:
    async def body() -> None:
        async with connect(showcase(), mode) as client:
            text = await call_needing(client, "roots", "list_roots", {})
        assert text in (None, "the client does not support `roots`")

    run_async(body)


@pytest.fixture
def shared(tmp_path: Path) -> Path:
    """`<tmp>/shared` (the root: `hello.txt`, `docs/a.md`, `link` -> `../secret.txt`) beside `<tmp>/secret.txt`."""
    root = tmp_path / "shared"
    (root / "docs").mkdir(parents=True)
    (root / "hello.txt").write_text("hello")
    (root / "docs" / "a.md").write_text("# A")
    (tmp_path / "secret.txt").write_text("secret")
    os.symlink(tmp_path / "secret.txt", root / "link")
    return root.resolve()


def filesystem_client(root: Path, mode: str, **callbacks: Any):
    params = stdio(server_binary("FILESYSTEM_BIN"))
    return connect(params, mode, list_roots_callback=roots_answering([root], []), **callbacks)


def test_filesystem_works_inside_the_roots(shared: Path, mode: str) -> None:
    async def body() -> None:
        async with filesystem_client(shared, mode) as client:
            assert only_text(await client.call_tool("read_file", {"path": "hello.txt"})) == "hello"
            assert only_text(await client.call_tool("read_file", {"path": str(shared / "docs/a.md")})) == "# A"
            listing = await client.call_tool("list_directory", {"path": "."})
            assert only_text(listing) == "docs/\nhello.txt\nlink"
            wrote = await client.call_tool("write_file", {"path": "docs/b.md", "content": "# B"})
            assert wrote.is_error is False, wrote.content
            assert only_text(await client.call_tool("read_file", {"path": "docs/../docs/b.md"})) == "# B"

    run_async(body)
    assert (shared / "docs" / "b.md").read_text() == "# B"


@pytest.mark.parametrize(
    "tool, arguments",
    [
        ("read_file", {"path": "../secret.txt"}),
        ("read_file", {"path": "docs/../../secret.txt"}),
        ("read_file", {"path": "link"}),
        ("read_file", {"path": "/etc/hostname"}),
        ("list_directory", {"path": ".."}),
        ("write_file", {"path": "../planted.txt", "content": "x"}),
        ("write_file", {"path": "link", "content": "overwritten"}),
    ],
)
def test_filesystem_refuses_paths_outside_the_roots(
    shared: Path, mode: str, tool: str, arguments: dict[str, str]
) -> None:
    async def body() -> None:
        async with filesystem_client(shared, mode) as client:
            result = await client.call_tool(tool, arguments)
            assert result.is_error is True, result.content
            assert "outside the folders the client shared" in only_text(result), result.content
            assert only_text(await client.call_tool("read_file", {"path": "hello.txt"})) == "hello", "still usable"

    run_async(body)
    assert (shared.parent / "secret.txt").read_text() == "secret"
    assert not (shared.parent / "planted.txt").exists()


def test_filesystem_delete_is_confirmed_and_bounded(shared: Path, mode: str) -> None:
    async def body() -> None:
        callback = elicit_with("accept", {"confirm": True}, [])
        async with filesystem_client(shared, mode, elicitation_callback=callback) as client:
            outside = await client.call_tool("delete_file", {"path": "../secret.txt"})
            assert outside.is_error is True and "outside" in only_text(outside)
            inside = await client.call_tool("delete_file", {"path": "hello.txt"})
            assert inside.is_error is False, inside.content

    run_async(body)
    assert not (shared / "hello.txt").exists()
    assert (shared.parent / "secret.txt").exists()


def test_filesystem_without_roots_is_a_tool_error(mode: str) -> None:
    async def body() -> None:
        async with connect(stdio(server_binary("FILESYSTEM_BIN")), mode) as client:
            text = await call_needing(client, "roots", "read_file", {"path": "hello.txt"})
        assert text in (None, "cannot list the client's roots: the client does not support `roots`")

    run_async(body)


# ----------------------------------------------------------------------------- silence


def test_a_client_that_never_answers_times_out() -> None:
    """2025-11-25 only: in 2026-07-28 the server does not wait for the client (it returns an
    input-required result), so there is nothing to time out; see the cancellation test."""
    started = anyio.Event()

    async def silent(_: ClientRequestContext, __: types.CreateMessageRequestParams) -> types.CreateMessageResult:
        started.set()
        await anyio.sleep(30)
        return answer_text("too late")

    async def body() -> None:
        params = showcase(MCP_CLIENT_TIMEOUT_MS="300")
        async with connect(params, "legacy", sampling_callback=silent) as client:
            with anyio.fail_after(5):
                result = await client.call_tool("summarize", {"text": "x"})
            assert started.is_set()
            assert result.is_error is True
            assert only_text(result) == "the client did not answer within 300ms"
            assert (await client.call_tool("forecast", {"city": "Oslo", "days": 1})).is_error is False

    run_async(body)


def test_cancelling_a_call_that_waits_for_the_user_leaves_the_server_usable(mode: str) -> None:
    asked = anyio.Event()
    withdrawn: list[bool] = []

    async def never(_: ClientRequestContext, __: types.ElicitRequestParams) -> types.ElicitResult:
        asked.set()
        try:
            await anyio.sleep(30)
        except anyio.get_cancelled_exc_class():
            withdrawn.append(True)
            raise
        return types.ElicitResult(action="decline")

    async def body() -> None:
        async with connect(showcase(), mode, elicitation_callback=never) as client:
            with anyio.move_on_after(5) as scope:
                async with anyio.create_task_group() as tg:
                    tg.start_soon(client.call_tool, "plan_trip", {})
                    await asked.wait()
                    tg.cancel_scope.cancel()  # the user gives up: the SDK sends notifications/cancelled
            assert not scope.cancelled_caught, "the elicitation never arrived"
            # The form is withdrawn (2025-11-25: the server cancels its own request when the
            # tool is cancelled; 2026-07-28: the SDK drops the round it was answering).
            with anyio.fail_after(3):
                while not withdrawn:
                    await anyio.sleep(0.01)
            forecast = await client.call_tool("forecast", {"city": "Oslo", "days": 1})
            assert forecast.is_error is False, forecast.content

    run_async(body)
