"""A small MCP server written with the official Python SDK (mcp==2.3.0), for the Rust client's
interop tests (tests/tests/client_python.rs). Not a pytest module.

    python client_server.py stdio
    python client_server.py http PORT

Over HTTP it keeps events in memory, so a client can resume a dropped SSE stream with
Last-Event-ID (`drop_stream` closes its own stream before answering).
"""

import sys
from itertools import count

import anyio
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.streamable_http import EventMessage, EventStore
from mcp_types import SamplingMessage, TextContent
from pydantic import BaseModel

server = MCPServer("python-interop", instructions="A Python SDK server for the Rust client's tests.")


@server.tool()
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


@server.tool()
async def count_to(steps: int, ctx: Context) -> str:
    """Report progress `steps` times, then answer."""
    for step in range(1, steps + 1):
        await ctx.report_progress(step, steps, f"step {step}")
    return f"counted to {steps}"


@server.tool()
async def sleep(seconds: float) -> str:
    """Sleep, then answer (for cancellation)."""
    await anyio.sleep(seconds)
    return "slept"


@server.tool()
async def ask_model(prompt: str, ctx: Context) -> str:
    """Ask the client's model (sampling)."""
    result = await ctx.session.create_message(
        [SamplingMessage(role="user", content=TextContent(type="text", text=prompt))], max_tokens=50
    )
    return f"model said: {result.content.text}"


class Name(BaseModel):
    name: str


@server.tool()
async def ask_name(ctx: Context) -> str:
    """Ask the user for a name (elicitation)."""
    answer = await ctx.elicit("What is your name?", Name)
    return f"hello {answer.data.name}" if answer.action == "accept" else answer.action


@server.tool()
async def client_roots(ctx: Context) -> str:
    """The client's roots, comma-separated."""
    listed = await ctx.session.list_roots()
    return ",".join(str(root.uri) for root in listed.roots)


@server.tool()
async def drop_stream(ctx: Context) -> str:
    """Close this request's SSE stream, then answer: the client must resume to see it."""
    await ctx.report_progress(1, 2, "before the drop")
    await ctx.close_sse_stream()
    await anyio.sleep(0.3)
    return "answered after the drop"


@server.resource("note://hello", mime_type="text/plain")
def hello() -> str:
    """A greeting."""
    return "hello from python"


@server.prompt()
def greet(name: str) -> str:
    """Ask for a greeting."""
    return f"Say hello to {name}."


class MemoryEvents(EventStore):
    """Every event of every stream, in memory."""

    def __init__(self) -> None:
        self.events: list[tuple[str, str, object]] = []
        self.ids = count(1)

    async def store_event(self, stream_id, message):
        event_id = str(next(self.ids))
        self.events.append((event_id, stream_id, message))
        return event_id

    async def replay_events_after(self, last_event_id, send_callback):
        stream = next((s for e, s, _ in self.events if e == last_event_id), None)
        if stream is None:
            return None
        seen = False
        for event_id, stream_id, message in list(self.events):
            if seen and stream_id == stream and message is not None:
                await send_callback(EventMessage(message, event_id))
            seen = seen or event_id == last_event_id
        return stream


if __name__ == "__main__":
    if sys.argv[1:2] == ["http"]:
        server.run("streamable-http", host="127.0.0.1", port=int(sys.argv[2]), event_store=MemoryEvents(), retry_interval=100)
    else:
        server.run("stdio")
