"""Interop: resources, templates, subscriptions, prompts and completion of the notes server
(NOTES_BIN), through the official Python SDK client, in modes "legacy" and "auto".

Each test gets its own notes folder (the server's first argument) under pytest's tmp_path.
"""

from __future__ import annotations

from pathlib import Path

import anyio
import pytest
from interop_support import (
    INVALID_PARAMS,
    MODES,
    NOTIFY_GRACE_S,
    RESOURCE_NOT_FOUND,
    Recorder,
    connect,
    only_text,
    resource_text,
    run_async,
    server_binary,
    stdio,
    wait_until,
)
from mcp import Client, MCPError, StdioServerParameters, types
from mcp.client.subscriptions import ResourcesListChanged, ResourceUpdated, ServerEvent, Subscription

# `subscribe_resource` is marked deprecated for 2026-07-28 servers; ours speak 2025-11-25.
pytestmark = pytest.mark.filterwarnings("ignore::mcp.shared.exceptions.MCPDeprecationWarning")

TODO = "# Todo\n\n- write tests\n"
IDEAS = "# Ideas\n\nAn MCP server for notes.\n"


@pytest.fixture(params=MODES)
def mode(request: pytest.FixtureRequest) -> str:
    return request.param


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    """A notes folder holding `todo` and `ideas`."""
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "todo.md").write_text(TODO)
    (notes / "ideas.md").write_text(IDEAS)
    return notes


def notes_server(folder: Path) -> StdioServerParameters:
    return stdio(server_binary("NOTES_BIN"), str(folder))


def test_missing_folder_is_created_with_samples_inside_it(tmp_path: Path, mode: str) -> None:
    folder = tmp_path / "fresh" / "notes"

    async def body() -> None:
        async with connect(notes_server(folder), mode) as client:
            listed = await client.list_resources()
        assert [r.uri for r in listed.resources] == ["notes://index", "notes://groceries", "notes://welcome"]

    run_async(body)
    assert sorted(p.name for p in folder.iterdir()) == ["groceries.md", "welcome.md"]
    assert sorted(p.name for p in (tmp_path / "fresh").iterdir()) == ["notes"], "nothing written beside the folder"


def test_lists_resources_and_templates(folder: Path, mode: str) -> None:
    async def body() -> None:
        async with connect(notes_server(folder), mode) as client:
            caps = client.server_capabilities
            assert caps.resources is not None and caps.resources.subscribe and caps.resources.list_changed
            assert caps.prompts is not None and caps.completions is not None
            resources = (await client.list_resources()).resources
            templates = (await client.list_resource_templates()).resource_templates
        assert [(r.uri, r.name) for r in resources] == [
            ("notes://index", "index"),
            ("notes://ideas", "ideas"),
            ("notes://todo", "todo"),
        ]
        assert resources[0].description == "The list of notes, one Markdown link per line."
        assert all(r.mime_type == "text/markdown" for r in resources), resources
        assert [t.uri_template for t in templates] == ["notes://{name}"]
        assert templates[0].name == "note" and templates[0].description == "A note, by name."

    run_async(body)


def test_reads_static_and_templated_resources(folder: Path, mode: str) -> None:
    async def body() -> None:
        async with connect(notes_server(folder), mode) as client:
            index = await client.read_resource("notes://index")
            todo = await client.read_resource("notes://todo")
        assert resource_text(index) == "# Notes\n\n- [ideas](notes://ideas)\n- [todo](notes://todo)\n"
        assert resource_text(todo) == TODO
        assert todo.contents[0].uri == "notes://todo" and todo.contents[0].mime_type == "text/markdown"

    run_async(body)


@pytest.mark.parametrize("uri", ["notes://nothing", "elsewhere://todo"])
def test_unknown_uri_is_resource_not_found(folder: Path, mode: str, uri: str) -> None:
    async def body() -> None:
        async with connect(notes_server(folder), mode) as client:
            with pytest.raises(MCPError) as excinfo:
                await client.read_resource(uri)
            # -32002 until 2025-11-25; 2026-07-28 (which "auto" negotiates) uses -32602.
            expected = RESOURCE_NOT_FOUND if client.protocol_version == "2025-11-25" else INVALID_PARAMS
            assert excinfo.value.code == expected, (client.protocol_version, excinfo.value.message)
            assert excinfo.value.message == "Resource not found"
            assert excinfo.value.data == {"uri": uri}
            assert resource_text(await client.read_resource("notes://todo")) == TODO, "still usable"

    run_async(body)


def test_names_cannot_leave_the_folder(folder: Path, mode: str) -> None:
    async def body() -> None:
        async with connect(notes_server(folder), mode) as client:
            with pytest.raises(MCPError):
                await client.read_resource("notes://..%2Ftodo")
            result = await client.call_tool("add_note", {"name": "../escape", "text": "x"})
            assert result.is_error is True
            assert "not a note name" in only_text(result)
            result = await client.call_tool("add_note", {"name": "a/b", "text": "x"})
            assert result.is_error is True

    run_async(body)
    assert not (folder.parent / "escape.md").exists()
    assert sorted(p.name for p in folder.iterdir()) == ["ideas.md", "todo.md"]


def test_subscribers_hear_about_updates_and_new_notes(folder: Path, mode: str) -> None:
    """2025-11-25: `resources/subscribe` and notifications; 2026-07-28: `subscriptions/listen`."""

    async def legacy(client: Client, got: Recorder) -> None:
        await client.subscribe_resource("notes://plans")
        result = await client.call_tool("add_note", {"name": "plans", "text": "# Plans\n"})
        assert only_text(result) == "created notes://plans"
        assert await wait_until(lambda: "notes://plans" in got.updated() and got.list_changed() > 0), got.notifications
        assert got.updated() == ["notes://plans"], "only the subscribed URI is announced"

        # Replacing a note's text: an update for the subscriber, but the list is the same.
        changes = got.list_changed()
        await client.call_tool("add_note", {"name": "plans", "text": "# Plans, v2\n"})
        assert await wait_until(lambda: got.updated().count("notes://plans") == 2), got.notifications
        assert got.list_changed() == changes

        await client.unsubscribe_resource("notes://plans")
        await client.call_tool("add_note", {"name": "plans", "text": "# Plans, v3\n"})
        await client.send_ping()
        await anyio.sleep(0.3)
        assert got.updated().count("notes://plans") == 2, "no update after unsubscribing"

    async def modern(client: Client) -> None:
        async def next_events(sub: Subscription, wanted: set[ServerEvent]) -> set[ServerEvent]:
            seen: set[ServerEvent] = set()
            with anyio.move_on_after(NOTIFY_GRACE_S):
                async for event in sub:
                    seen.add(event)
                    if wanted <= seen:
                        break
            return seen

        filters = {"resources_list_changed": True, "resource_subscriptions": ["notes://plans"]}
        async with client.listen(**filters) as sub:
            result = await client.call_tool("add_note", {"name": "plans", "text": "# Plans\n"})
            assert only_text(result) == "created notes://plans"
            wanted = {ResourceUpdated("notes://plans"), ResourcesListChanged()}
            assert await next_events(sub, wanted) >= wanted
            await client.call_tool("add_note", {"name": "ideas", "text": "changed"})  # not subscribed
            await client.call_tool("add_note", {"name": "plans", "text": "# Plans, v2\n"})
            # The new note changes the list, which may be announced before or after the update.
            seen = await next_events(sub, {ResourceUpdated("notes://plans")})
            assert ResourceUpdated("notes://plans") in seen, seen
            assert seen <= {ResourceUpdated("notes://plans"), ResourcesListChanged()}, "no update for `ideas`"
        await client.call_tool("add_note", {"name": "plans", "text": "# Plans, v3\n"})

    async def body() -> None:
        got = Recorder()
        async with connect(notes_server(folder), mode, message_handler=got) as client:
            if client.protocol_version == "2025-11-25":
                await legacy(client, got)
            else:
                await modern(client)
            assert "notes://plans" in [r.uri for r in (await client.list_resources()).resources]
            assert resource_text(await client.read_resource("notes://plans")) == "# Plans, v3\n"

    run_async(body)
    assert (folder / "plans.md").read_text() == "# Plans, v3\n"


def test_prompts_are_listed_and_rendered_with_the_note_embedded(folder: Path, mode: str) -> None:
    async def body() -> None:
        async with connect(notes_server(folder), mode) as client:
            prompts = (await client.list_prompts()).prompts
            assert [p.name for p in prompts] == ["summarize_note"]
            assert prompts[0].description == "Summarize a note."
            arguments = prompts[0].arguments or []
            assert [(a.name, a.required, a.description) for a in arguments] == [
                ("name", True, "The note to summarize")
            ]

            rendered = await client.get_prompt("summarize_note", {"name": "ideas"})
            assert [m.role for m in rendered.messages] == ["user", "user"]
            first, second = (m.content for m in rendered.messages)
            assert isinstance(first, types.TextContent) and "ideas" in first.text
            assert isinstance(second, types.EmbeddedResource), second
            assert isinstance(second.resource, types.TextResourceContents)
            assert (second.resource.uri, second.resource.text) == ("notes://ideas", IDEAS)

            with pytest.raises(MCPError) as excinfo:
                await client.get_prompt("summarize_note", {})
            assert excinfo.value.code == INVALID_PARAMS
            assert "name" in excinfo.value.message
            with pytest.raises(MCPError) as excinfo:
                await client.get_prompt("no_such_prompt", {})
            assert excinfo.value.code == INVALID_PARAMS
            with pytest.raises(MCPError) as excinfo:
                await client.get_prompt("summarize_note", {"name": "missing"})
            assert "no note `missing`" in excinfo.value.message

    run_async(body)


def test_completion_for_the_prompt_argument_and_the_template_variable(folder: Path, mode: str) -> None:
    async def body() -> None:
        async with connect(notes_server(folder), mode) as client:
            prompt = types.PromptReference(type="ref/prompt", name="summarize_note")
            template = types.ResourceTemplateReference(type="ref/resource", uri="notes://{name}")
            by_prompt = await client.complete(prompt, {"name": "name", "value": "t"})
            by_template = await client.complete(template, {"name": "name", "value": "I"})
            everything = await client.complete(template, {"name": "name", "value": ""})
            nothing = await client.complete(prompt, {"name": "name", "value": "zzz"})
            await client.call_tool("add_note", {"name": "travel", "text": "x"})
            after_adding = await client.complete(prompt, {"name": "name", "value": "t"})
        assert by_prompt.completion.values == ["todo"]
        assert by_template.completion.values == ["ideas"], "matching ignores case"
        assert everything.completion.values == ["ideas", "todo"]
        assert nothing.completion.values == []
        assert after_adding.completion.values == ["todo", "travel"]

    run_async(body)
