// Drives the example servers through the official MCP Inspector CLI, over stdio and Streamable
// HTTP, and checks what it prints. Node launches stdio servers on a socket pair (libuv), as
// Claude Desktop and VS Code do, where the other stdio tests use pipes.
//
//   CALCULATOR_BIN=... NOTES_BIN=... HTTP_SERVER_BIN=... node tests/inspector/check.mjs
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import net from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { test } from "node:test";

const INSPECTOR = "@modelcontextprotocol/inspector@2.12.0";
const [calculator, notes, httpServer] = ["CALCULATOR_BIN", "NOTES_BIN", "HTTP_SERVER_BIN"].map((name) => {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set (absolute path of the compiled server binary)`);
  return value;
});

/** Runs the Inspector CLI against `target` (a command or a URL) and returns its parsed output. */
function inspector(target, args, expectedStatus = 0) {
  const run = spawnSync("npx", ["-y", INSPECTOR, "--cli", ...target, ...args], {
    encoding: "utf8",
    timeout: 120_000,
  });
  const shown = `inspector ${[...target, ...args].join(" ")}\nstdout: ${run.stdout}\nstderr: ${run.stderr}`;
  assert.equal(run.status, expectedStatus, shown);
  return JSON.parse(run.stdout);
}

const text = (result) => result.content.map((block) => block.text).join("");

test("calculator over stdio: tools, portable schemas, results and tool errors", () => {
  const listed = inspector([calculator], ["--method", "tools/list", "--strict"]);
  const add = listed.tools.find((tool) => tool.name === "add");
  assert.ok(add, JSON.stringify(listed));
  assert.equal(add.inputSchema.type, "object");
  assert.deepEqual(add.inputSchema.required, ["a", "b"]);
  assert.equal(add.annotations.readOnlyHint, true);

  const sum = inspector([calculator], ["--method", "tools/call", "--tool-name", "add", "--tool-arg", "a=2", "b=3"]);
  assert.equal(text(sum), "5");
  assert.notEqual(sum.isError, true);

  // The CLI exits 5 when a tool reports an error; the result names the bad argument.
  const refused = inspector(
    [calculator],
    ["--method", "tools/call", "--tool-name", "add", "--tool-arg", "a=x", "b=3"],
    5,
  );
  assert.equal(refused.isError, true);
  assert.match(text(refused), /`a`/);

  inspector([calculator], ["--method", "logging/setLevel", "--log-level", "debug"]);
});

test("notes over stdio: resources, templates and prompts", () => {
  const dir = mkdtempSync(path.join(tmpdir(), "mcp-inspector-"));
  try {
    const server = [notes, path.join(dir, "notes")]; // created with two sample notes
    const listed = inspector(server, ["--method", "resources/list"]);
    assert.deepEqual(listed.resources.map((r) => r.uri).sort(), [
      "notes://groceries",
      "notes://index",
      "notes://welcome",
    ]);
    const templates = inspector(server, ["--method", "resources/templates/list"]);
    assert.deepEqual(templates.resourceTemplates.map((t) => t.uriTemplate), ["notes://{name}"]);

    const read = inspector(server, ["--method", "resources/read", "--uri", "notes://welcome"]);
    assert.equal(read.contents[0].mimeType, "text/markdown");
    assert.match(read.contents[0].text, /^# Welcome/);

    const prompts = inspector(server, ["--method", "prompts/list"]);
    assert.ok(prompts.prompts.some((p) => p.name === "summarize_note"), JSON.stringify(prompts));
    const prompt = inspector(server, [
      "--method", "prompts/get", "--prompt-name", "summarize_note", "--prompt-args", "name=groceries",
    ]);
    assert.ok(prompt.messages.length > 0);
    assert.match(JSON.stringify(prompt.messages), /coffee/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("http-server over Streamable HTTP", async () => {
  const port = await freePort();
  const server = spawn(httpServer, [], { env: { ...process.env, PORT: String(port) }, stdio: "inherit" });
  try {
    await listening(port);
    const url = `http://127.0.0.1:${port}/mcp`;
    const listed = inspector([url], ["--method", "tools/list"]);
    assert.ok(listed.tools.some((tool) => tool.name === "add"), JSON.stringify(listed));
    const sum = inspector([url], ["--method", "tools/call", "--tool-name", "add", "--tool-arg", "a=40", "b=2"]);
    assert.equal(text(sum), "42");
  } finally {
    server.kill("SIGTERM");
  }
});

function freePort() {
  return new Promise((resolve, reject) => {
    const probe = net.createServer().listen(0, "127.0.0.1", () => {
      const { port } = probe.address();
      probe.close(() => resolve(port));
    });
    probe.on("error", reject);
  });
}

async function listening(port) {
  for (let attempt = 0; attempt < 100; attempt++) {
    const open = await new Promise((resolve) => {
      const socket = net.connect(port, "127.0.0.1", () => resolve(socket.end() && true));
      socket.on("error", () => resolve(false));
    });
    if (open) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`nothing listens on port ${port}`);
}
