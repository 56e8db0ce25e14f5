/**
 * The thinnest relayer bench:analysis measures beside the real one: a Node HTTP server that takes
 * `POST /v1/analysis {text}` and makes the direct path's three provider calls (moderation of the
 * text, the completion, moderation of the answer) over kept-alive node:http connections, then
 * answers. No signature, rate limit, storage, redaction, encryption or audit: what forwarding alone
 * costs a Node process on this machine, the part of the relayer's overhead no implementation of it
 * avoids. Arguments: the provider's base URL, its bearer key, the completion model. Prints
 * `{"ready": url, "pid": n}` once it listens; stops on SIGTERM.
 */
import { Agent, createServer, request } from "node:http";
import type { AddressInfo } from "node:net";

const [providerUrl, apiKey, model] = process.argv.slice(2);
if (!providerUrl || !apiKey || !model)
  throw new Error("usage: analysis-passthrough.ts <provider url> <api key> <model>");
const agent = new Agent({ keepAlive: true });
const headers = { "Content-Type": "application/json", Authorization: `Bearer ${apiKey}` };

function post(path: string, payload: unknown): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = request(`${providerUrl}${path}`, { method: "POST", agent, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
      res.on("error", reject);
    });
    req.on("error", reject);
    req.end(JSON.stringify(payload));
  });
}

async function forward(body: string): Promise<string> {
  const { text } = JSON.parse(body) as { text: string };
  await post("/moderations", { input: text });
  const answer = JSON.parse(
    await post("/chat/completions", { model, messages: [{ role: "user", content: text }] }),
  ) as { choices: Array<{ message: { content: string } }> };
  const output = answer.choices[0]!.message.content;
  await post("/moderations", { input: output });
  return JSON.stringify({ model, output });
}

const server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on("data", (c: Buffer) => chunks.push(c));
  req.on("end", () => {
    forward(Buffer.concat(chunks).toString("utf8")).then(
      (answer) => {
        res.writeHead(200, { "Content-Type": "application/json" });
        res.end(answer);
      },
      (err: unknown) => {
        res.writeHead(502, { "Content-Type": "application/json" });
        res.end(JSON.stringify({ error: "PROVIDER_FAILED", detail: String(err) }));
      },
    );
  });
});
server.listen(0, "127.0.0.1", () => {
  const { port } = server.address() as AddressInfo;
  process.stdout.write(
    `${JSON.stringify({ ready: `http://127.0.0.1:${port}`, pid: process.pid })}\n`,
  );
});
process.once("SIGTERM", () => {
  agent.destroy();
  server.close(() => process.exit(0));
  server.closeAllConnections();
});
