// bench/webhook_sink.mjs — the receiving end of bench/notify.sh: answers
// every webhook 204 at once and notes when it came (microseconds since
// 1970) with the game and ply it is about.  GET /count says how many came,
// GET /dump lists "game_id ply type receipt_us webhook-id" lines, POST
// /reset forgets them.  Usage: node webhook_sink.mjs PORT
import http from "node:http";

const port = Number(process.argv[2]);
let received = [];

function nowMicros() {
  return Math.round((performance.timeOrigin + performance.now()) * 1000);
}

const server = http.createServer((req, res) => {
  if (req.method === "GET" && req.url === "/count") {
    res.end(String(received.length));
    return;
  }
  if (req.method === "GET" && req.url === "/dump") {
    res.end(received.join("\n") + (received.length ? "\n" : ""));
    return;
  }
  if (req.method === "POST" && req.url === "/reset") {
    received = [];
    res.end("ok");
    return;
  }
  const chunks = [];
  req.on("data", (c) => chunks.push(c));
  req.on("end", () => {
    const at = nowMicros();
    let line = `? ? ? ${at} ${req.headers["webhook-id"]}`;
    try {
      const body = JSON.parse(Buffer.concat(chunks).toString("utf8"));
      line = `${body.data.game_id} ${body.data.ply} ${body.type} ${at} ${req.headers["webhook-id"]}`;
    } catch (e) {
      // counted all the same: the driver reports unreadable bodies
    }
    received.push(line);
    res.statusCode = 204;
    res.end();
  });
});
server.keepAliveTimeout = 60000;
server.listen(port, "127.0.0.1");
