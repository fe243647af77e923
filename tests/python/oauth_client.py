"""The official Python SDK's OAuth client (`mcp==2.3.0`, `OAuthClientProvider`) against an
OAuth-protected MCP server, for tests/tests/oauth_e2e.rs (not a pytest module: that test runs it).

    python oauth_client.py <server-url> <sign-in-program>

Everything the SDK does is its own: discovery from the server's 401, Dynamic Client Registration,
the authorization code with PKCE and `resource`, refresh. This script gives it what an
application gives it: a redirect handler that runs `<sign-in-program> <authorization-url>` (the
user, in a browser), a callback handler that takes the code from a loopback listener on a free
port of 127.0.0.1, and a token store that remembers what it was given.

It calls the `whoami` tool three times: signed in; once the access token has expired (the SDK
refreshes it); once the access token has expired again after the refresh token was revoked at the
authorization server (the refresh fails, and the SDK must sign in again). Then it prints one JSON
object on stdout: each call's text and the `jti` of the access token it held afterwards, and how
many sign-ins the user went through. Tokens themselves are never printed. Logs go to stderr.
"""

from __future__ import annotations

import base64
import http.server
import json
import logging
import queue
import subprocess
import sys
import threading
import time
from typing import Any
from urllib.parse import parse_qs, urlparse

import anyio
import httpx2
from mcp import Client
from mcp.client.auth import OAuthClientProvider
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client
from mcp.shared.auth import AuthorizationCodeResult, OAuthClientInformationFull, OAuthClientMetadata, OAuthToken

# A sign-in (Chromium, two pages) and the loopback callback each finish well within this.
SIGN_IN_TIMEOUT_S = 120


def jti(access_token: str) -> str:
    """The `jti` claim of a JWT access token, read without verifying (the server verifies)."""
    payload = access_token.split(".")[1]
    return json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))["jti"]


class MemoryStorage:
    """The SDK's `TokenStorage`, in memory; it also keeps when the current access token expires."""

    def __init__(self) -> None:
        self.tokens: OAuthToken | None = None
        self.client_info: OAuthClientInformationFull | None = None
        self.expires_at = 0.0

    async def get_tokens(self) -> OAuthToken | None:
        return self.tokens

    async def set_tokens(self, tokens: OAuthToken) -> None:
        self.tokens = tokens
        # Stamped after the SDK stamps its own expiry, so past this the SDK sees the token expired.
        self.expires_at = time.time() + int(tokens.expires_in or 0)
        logging.info("new access token %s, expires in %s s", jti(tokens.access_token), tokens.expires_in)

    async def get_client_info(self) -> OAuthClientInformationFull | None:
        return self.client_info

    async def set_client_info(self, client_info: OAuthClientInformationFull) -> None:
        self.client_info = client_info


class LoopbackCallback:
    """An HTTP listener on a free port of 127.0.0.1 that hands each redirect's query to the flow."""

    def __init__(self) -> None:
        self.redirects: queue.Queue[dict[str, str]] = queue.Queue()
        redirects = self.redirects

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802 (the standard library's name)
                query = parse_qs(urlparse(self.path).query)
                redirects.put({name: values[0] for name, values in query.items()})
                body = b"Signed in: you can close this window."
                self.send_response(200)
                self.send_header("Content-Type", "text/plain")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 (the standard library's name)
                # The request line carries the code: say only that it came.
                logging.info("the loopback callback received a redirect")

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    @property
    def redirect_uri(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/callback"

    async def wait(self) -> AuthorizationCodeResult:
        query = await anyio.to_thread.run_sync(lambda: self.redirects.get(timeout=SIGN_IN_TIMEOUT_S))
        if "code" not in query:
            raise RuntimeError(f"the authorization server redirected without a code: {query}")
        return AuthorizationCodeResult(code=query["code"], state=query.get("state"), iss=query.get("iss"))


async def wait_until_expired(storage: MemoryStorage) -> None:
    """Sleeps until the access token the SDK holds has expired, by the expiry it was issued with."""
    await anyio.sleep(max(0.0, storage.expires_at - time.time()) + 0.2)


async def revoke_refresh_token(auth: OAuthClientProvider, storage: MemoryStorage) -> None:
    """Revokes the refresh token at the authorization server (RFC 7009), as a user or an
    administrator withdrawing the grant would: the endpoint is the one the SDK discovered."""
    metadata = auth.context.oauth_metadata
    assert metadata is not None and metadata.revocation_endpoint is not None, "no revocation endpoint discovered"
    assert storage.tokens is not None and storage.tokens.refresh_token, "no refresh token to revoke"
    assert storage.client_info is not None
    async with httpx2.AsyncClient() as http:
        response = await http.post(
            str(metadata.revocation_endpoint),
            data={
                "token": storage.tokens.refresh_token,
                "token_type_hint": "refresh_token",
                "client_id": storage.client_info.client_id,
            },
        )
    response.raise_for_status()
    logging.info("revoked the refresh token")


async def main(server_url: str, sign_in_program: str) -> dict[str, Any]:
    storage = MemoryStorage()
    callback = LoopbackCallback()
    sign_ins = 0

    async def open_in_browser(authorization_url: str) -> None:
        nonlocal sign_ins
        sign_ins += 1
        logging.info("sign-in %d", sign_ins)
        await anyio.to_thread.run_sync(
            lambda: subprocess.run(
                [sign_in_program, authorization_url], stdout=sys.stderr, check=True, timeout=SIGN_IN_TIMEOUT_S
            )
        )

    auth = OAuthClientProvider(
        server_url=server_url,
        client_metadata=OAuthClientMetadata(
            client_name="mcp-runtime e2e: the Python SDK",
            redirect_uris=[callback.redirect_uri],
            grant_types=["authorization_code", "refresh_token"],
            response_types=["code"],
            token_endpoint_auth_method="none",
        ),
        storage=storage,
        redirect_handler=open_in_browser,
        callback_handler=callback.wait,
    )

    calls: list[dict[str, Any]] = []

    async def whoami(phase: str) -> None:
        result = await client.call_tool("whoami", {})
        text = "".join(getattr(block, "text", "") for block in result.content)
        assert storage.tokens is not None
        calls.append({"phase": phase, "text": text, "is_error": result.is_error, "jti": jti(storage.tokens.access_token)})
        logging.info("%s: %s", phase, text)

    async with create_mcp_http_client(auth=auth) as http, Client(streamable_http_client(server_url, http_client=http)) as client:
        await whoami("signed in")
        await wait_until_expired(storage)
        await whoami("refreshed")
        await revoke_refresh_token(auth, storage)
        await wait_until_expired(storage)
        await whoami("signed in again")

    callback.server.shutdown()
    return {"calls": calls, "sign_ins": sign_ins}


if __name__ == "__main__":
    logging.basicConfig(stream=sys.stderr, level=logging.INFO, format="oauth_client.py: %(name)s: %(message)s")
    logging.getLogger("httpx2").setLevel(logging.WARNING)
    report = anyio.run(main, *sys.argv[1:3])
    print(json.dumps(report))
