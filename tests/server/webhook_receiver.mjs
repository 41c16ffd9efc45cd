// webhook_receiver.mjs — a webhook endpoint for korpd's integration tests
// (tests/server/test_notify.py): an HTTP server on 127.0.0.1 that checks the
// signature of every delivery with the Standard Webhooks reference library
// (npm `standardwebhooks`, pinned in package.json), answers as the test
// tells it to, and records everything it receives.
//
//   node webhook_receiver.mjs PORT_FILE
//
// listens on a free loopback port below 32768 and writes that port number to PORT_FILE
// once it accepts connections.  Routes:
//
//   POST /_control   {"path": "/hook/a",              which deliveries this applies to
//                     "secrets": ["whsec_..."],        each one is checked on its own
//                     "responses": [{...}, ...],       answers for the next requests, in order
//                     "default": {...},                the answer once those are used up
//                     "clock_offset_seconds": N}       see below
//                    every member but "path" is optional; a member given replaces the
//                    old value.  An answer is {"status": 200, "retry_after": "2",
//                    "hang": true, "delay_ms": 0, "location": "http://..."}: "hang" keeps the request open
//                    without answering until the client goes away or a later
//                    /_control for the path sets "release": true; "location" adds a
//                    Location header (for redirects).
//   GET  /_received[?path=/hook/a]   {"received": [record, ...]} in arrival order
//   anything else    a delivery: recorded, then answered as configured (200 by default)
//
// A record: {"seq", "path", "method", "headers" (lower-case names), "body" (text),
// "received_at" (Unix time in seconds, fractional), "verified" (true when the body and
// headers verify with at least one registered secret), "verified_by" (for each
// registered secret, whether it alone verifies them), "error" (the library's message
// when none does), "json" (the parsed body or null), "answered_status" (null while
// hanging or when the client left first), "client_left" (true if the client closed the
// connection before an answer).
//
// The library refuses a webhook-timestamp more than 5 minutes from its own clock.  A
// test that moves korpd's test clock may set clock_offset_seconds: a delivery that fails
// only for its timestamp is then checked again as if this receiver's clock were shifted
// by that offset, and the record says so ("verified_with_offset": true).

import { createServer } from "node:http";
import { createRequire } from "node:module";
import { writeFileSync, renameSync } from "node:fs";

// createRequire: found from this file's folder upwards (the repository's
// node_modules, installed by `npm ci`) or through NODE_PATH.
const require = createRequire(import.meta.url);
const { Webhook } = require("standardwebhooks");

const portFile = process.argv[2];
if (!portFile) {
  process.stderr.write("usage: node webhook_receiver.mjs PORT_FILE\n");
  process.exit(2);
}

const configs = new Map();     // path -> {secrets, responses, default, clockOffset, hanging}
const records = [];

function configFor(path) {
  let c = configs.get(path);
  if (!c) {
    c = { secrets: [], responses: [], default: { status: 200 }, clockOffset: 0, hanging: [] };
    configs.set(path, c);
  }
  return c;
}

function verifyOne(secret, body, headers, clockOffset) {
  const wh = new Webhook(secret);
  try {
    wh.verify(body, headers);
    return { ok: true, offset: false, error: null };
  } catch (e) {
    const message = String(e && e.message ? e.message : e);
    if (clockOffset && /timestamp/i.test(message)) {
      const realNow = Date.now;
      Date.now = () => realNow() + clockOffset * 1000;
      try {
        wh.verify(body, headers);
        return { ok: true, offset: true, error: null };
      } catch (e2) {
        return { ok: false, offset: false, error: String(e2 && e2.message ? e2.message : e2) };
      } finally {
        Date.now = realNow;
      }
    }
    return { ok: false, offset: false, error: message };
  }
}

function readBody(req) {
  return new Promise((resolve, reject) => {
    const chunks = [];
    req.on("data", (chunk) => chunks.push(chunk));
    req.on("end", () => resolve(Buffer.concat(chunks)));
    req.on("error", reject);
  });
}

function sendJson(res, status, obj) {
  const text = JSON.stringify(obj);
  res.writeHead(status, { "Content-Type": "application/json",
                          "Content-Length": Buffer.byteLength(text) });
  res.end(text);
}

function answer(res, record, spec) {
  if (record.client_left) {
    return;
  }
  const headers = { "Content-Type": "text/plain" };
  if (spec.retry_after !== undefined && spec.retry_after !== null) {
    headers["Retry-After"] = String(spec.retry_after);
  }
  if (spec.location) {
    headers["Location"] = String(spec.location);
  }
  const status = spec.status || 200;
  record.answered_status = status;
  res.writeHead(status, headers);
  res.end(`${status}\n`);
}

async function control(req, res) {
  let msg;
  try {
    msg = JSON.parse((await readBody(req)).toString("utf8"));
  } catch (e) {
    return sendJson(res, 400, { error: "bad JSON" });
  }
  if (typeof msg.path !== "string" || !msg.path.startsWith("/")) {
    return sendJson(res, 400, { error: "path required" });
  }
  const c = configFor(msg.path);
  if (Array.isArray(msg.secrets)) {
    for (const s of msg.secrets) {
      new Webhook(s);              // throws (400 below) on a secret the library cannot read
    }
    c.secrets = msg.secrets.slice();
  }
  if (Array.isArray(msg.responses)) c.responses = msg.responses.slice();
  if (msg.default && typeof msg.default === "object") c.default = msg.default;
  if (typeof msg.clock_offset_seconds === "number") c.clockOffset = msg.clock_offset_seconds;
  if (msg.release) {
    const waiting = c.hanging.splice(0);
    for (const h of waiting) answer(h.res, h.record, { status: 200 });
  }
  return sendJson(res, 200, { path: msg.path, secrets: c.secrets.length,
                              responses: c.responses.length, default: c.default });
}

async function delivery(req, res, path) {
  const raw = await readBody(req);
  const body = raw.toString("utf8");
  const c = configFor(path);
  const record = {
    seq: records.length + 1,
    path,
    method: req.method,
    headers: Object.fromEntries(Object.entries(req.headers)),
    body,
    received_at: Date.now() / 1000,
    verified: false,
    verified_with_offset: false,
    verified_by: [],
    error: null,
    json: null,
    answered_status: null,
    client_left: false,
  };
  try {
    record.json = JSON.parse(body);
  } catch (e) {
    record.json = null;
  }
  if (c.secrets.length === 0) {
    record.error = "no secret registered for this path";
  }
  for (const secret of c.secrets) {
    const r = verifyOne(secret, body, req.headers, c.clockOffset);
    record.verified_by.push(r.ok);
    if (r.ok) {
      record.verified = true;
      if (r.offset) record.verified_with_offset = true;
    } else if (!record.error) {
      record.error = r.error;
    }
  }
  if (record.verified) record.error = null;
  records.push(record);
  // The connection closing before an answer: korpd timed out, or was killed.
  res.on("close", () => {
    if (record.answered_status === null) record.client_left = true;
  });

  const spec = c.responses.length > 0 ? c.responses.shift() : c.default;
  if (spec.hang) {
    c.hanging.push({ res, record });
    return;
  }
  if (spec.delay_ms) {
    setTimeout(() => answer(res, record, spec), spec.delay_ms);
  } else {
    answer(res, record, spec);
  }
}

const server = createServer((req, res) => {
  const url = new URL(req.url, "http://127.0.0.1");
  const handle = async () => {
    if (url.pathname === "/_control" && req.method === "POST") {
      return control(req, res);
    }
    if (url.pathname === "/_received" && req.method === "GET") {
      const only = url.searchParams.get("path");
      const list = only === null ? records : records.filter((r) => r.path === only);
      return sendJson(res, 200, { received: list });
    }
    return delivery(req, res, url.pathname);
  };
  handle().catch((e) => {
    process.stderr.write(`webhook_receiver: ${e && e.stack ? e.stack : e}\n`);
    if (!res.headersSent) sendJson(res, 400, { error: String(e && e.message ? e.message : e) });
  });
});
// korpd's own timeout must decide when a hanging delivery ends, not ours.
server.requestTimeout = 0;
server.headersTimeout = 60000;
server.keepAliveTimeout = 5000;

// A port below 32768, under the kernel's range for outgoing connections (a client's
// socket may take a port there): the first free one from a point that depends on the
// process, trying each port of the range at most once.
const PORT_FIRST = 20000, PORT_COUNT = 32768 - PORT_FIRST;
const portStart = (process.pid * 7919) % PORT_COUNT;
let portTries = 0;
function listenNext() {
  if (portTries === PORT_COUNT) {
    process.stderr.write("webhook_receiver: no free port below 32768\n");
    process.exit(1);
  }
  const port = PORT_FIRST + ((portStart + portTries++) % PORT_COUNT);
  server.listen(port, "127.0.0.1");
}
server.on("error", (e) => {
  if (e.code !== "EADDRINUSE" && e.code !== "EACCES") throw e;
  listenNext();
});
server.on("listening", () => {
  const { port } = server.address();
  writeFileSync(`${portFile}.tmp`, `${port}\n`);
  renameSync(`${portFile}.tmp`, portFile);
  process.stderr.write(`webhook_receiver: listening on 127.0.0.1:${port}\n`);
});
listenNext();

for (const sig of ["SIGTERM", "SIGINT"]) {
  process.on(sig, () => process.exit(0));
}
