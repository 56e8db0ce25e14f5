import type { IncomingMessage } from "node:http";
import type { Http2ServerRequest } from "node:http2";
import type { Context } from "hono";
import { createMiddleware } from "hono/factory";
import { ApiError } from "./errors.ts";
import type { AppEnv } from "./env.ts";

export const MAX_BODY_BYTES = 1024 * 1024;

/** Media types a request body may have (spec: JSON or, for workflows, YAML). */
export const ACCEPTED_CONTENT_TYPES = [
  "application/json",
  "application/yaml",
  "application/x-yaml",
  "text/yaml",
] as const;

const BODY_METHODS = new Set(["POST", "PUT", "PATCH", "DELETE"]);

export function mediaType(contentType: string | undefined): string {
  return (contentType ?? "").split(";")[0]!.trim().toLowerCase();
}

/**
 * Reads the request body once, up to `maxBytes` (413 beyond, whether or not Content-Length was
 * sent), refuses media types other than JSON and YAML (415), and keeps the exact bytes in
 * `rawBody` for the signature check. Later `c.req.json()` / `c.req.text()` read the cached bytes.
 */
export function readBody(maxBytes = MAX_BODY_BYTES) {
  return createMiddleware<AppEnv>(async (c, next) => {
    const hasBody =
      BODY_METHODS.has(c.req.method) &&
      (nodeRequest(c)
        ? c.req.header("transfer-encoding") !== undefined ||
          (c.req.header("content-length") ?? "0") !== "0"
        : c.req.raw.body !== null && c.req.header("content-length") !== "0");
    if (!hasBody) {
      c.set("rawBody", new Uint8Array());
      return next();
    }
    const type = mediaType(c.req.header("content-type"));
    if (!(ACCEPTED_CONTENT_TYPES as readonly string[]).includes(type)) {
      throw new ApiError(
        415,
        "UNSUPPORTED_MEDIA_TYPE",
        `Content-Type ${type ? `"${type}"` : "(none)"} is not accepted; send application/json or application/yaml`,
      );
    }
    const declared = Number(c.req.header("content-length"));
    if (Number.isFinite(declared) && declared > maxBytes) throw tooLarge(maxBytes);

    const bytes = await readAll(c, maxBytes);
    const raw = new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    c.set("rawBody", raw);
    // Hono converts between cached body forms, so json()/text() read these bytes.
    // (The cache holds promises at run time although its type says otherwise.)
    (c.req.bodyCache as Record<string, unknown>).arrayBuffer = Promise.resolve(
      raw.buffer.slice(raw.byteOffset, raw.byteOffset + raw.byteLength),
    );
    return next();
  });
}

/** The Node request under @hono/node-server (absent under `app.request()` and other runtimes). */
function nodeRequest(c: Context): IncomingMessage | Http2ServerRequest | undefined {
  const incoming = (c.env as { incoming?: IncomingMessage | Http2ServerRequest } | undefined)
    ?.incoming;
  return incoming && typeof incoming.on === "function" ? incoming : undefined;
}

/**
 * The whole body, refused beyond `maxBytes`. Under Node it is read from the socket's request
 * directly: cheaper than materialising a web Request and its ReadableStream for every request.
 */
async function readAll(c: Context, maxBytes: number): Promise<Buffer> {
  const incoming = nodeRequest(c);
  if (incoming) {
    return new Promise<Buffer>((resolve, reject) => {
      const chunks: Buffer[] = [];
      let total = 0;
      const onData = (chunk: Buffer) => {
        total += chunk.byteLength;
        if (total > maxBytes) {
          cleanup();
          // Stop reading: the 413 is sent and the connection closed by the server.
          incoming.pause();
          reject(tooLarge(maxBytes));
          return;
        }
        chunks.push(chunk);
      };
      const onEnd = () => {
        cleanup();
        resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, total));
      };
      const onError = (err: Error) => {
        cleanup();
        reject(err);
      };
      const cleanup = () => {
        incoming.off("data", onData);
        incoming.off("end", onEnd);
        incoming.off("error", onError);
      };
      incoming.on("data", onData);
      incoming.on("end", onEnd);
      incoming.on("error", onError);
    });
  }
  const reader = c.req.raw.body!.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > maxBytes) {
      await reader.cancel().catch(() => {});
      throw tooLarge(maxBytes);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks, total);
}

function tooLarge(maxBytes: number): ApiError {
  return new ApiError(
    413,
    "PAYLOAD_TOO_LARGE",
    `the request body exceeds the limit of ${maxBytes} bytes`,
    { limit: maxBytes },
  );
}
