import { isUtf8 } from "node:buffer";
import type { IncomingMessage } from "node:http";
import type { Http2ServerRequest } from "node:http2";
import type { Context } from "hono";
import { createMiddleware } from "hono/factory";
import { ApiError } from "./errors.ts";
import type { AppEnv } from "./env.ts";
import { validationFailed } from "./validation.ts";

export const MAX_BODY_BYTES = 1024 * 1024;
/** Deepest nesting of arrays and objects a request body may have (no wire shape needs 8). */
export const MAX_BODY_DEPTH = 32;

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

/** The Content-Type's `charset` parameter, lower-case and unquoted, or null without one. */
function charsetOf(contentType: string | undefined): string | null {
  for (const param of (contentType ?? "").split(";").slice(1)) {
    const eq = param.indexOf("=");
    if (eq < 0 || param.slice(0, eq).trim().toLowerCase() !== "charset") continue;
    return param
      .slice(eq + 1)
      .trim()
      .replace(/^"(.*)"$/, "$1")
      .toLowerCase();
  }
  return null;
}

/**
 * Refuses, before anything else, a URL PostgreSQL cannot store: a NUL character in the path or
 * query, or a malformed percent-encoding (400).
 */
export function checkRequestUrl() {
  return createMiddleware<AppEnv>(async (c, next) => {
    checkUrl(c.req.url);
    return next();
  });
}

/**
 * Reads the request body once, up to `maxBytes` (413 beyond, whether or not Content-Length was
 * sent), refuses media types other than JSON and YAML (415), and keeps the exact bytes in
 * `rawBody` for the signature check. Later `c.req.json()` / `c.req.text()` read the cached bytes.
 * Input PostgreSQL cannot store or that costs unbounded work later is refused here with a 400,
 * before anything is parsed or stored: a NUL character in the body, JSON nested deeper than
 * {@link MAX_BODY_DEPTH}. Authentication calls it once the key in the headers is known, so an
 * unknown caller never costs a body read.
 */
export async function loadBody(c: Context<AppEnv>, maxBytes = MAX_BODY_BYTES): Promise<void> {
  const hasBody =
    BODY_METHODS.has(c.req.method) &&
    (nodeRequest(c)
      ? c.req.header("transfer-encoding") !== undefined ||
        (c.req.header("content-length") ?? "0") !== "0"
      : c.req.raw.body !== null && c.req.header("content-length") !== "0");
  if (!hasBody) {
    c.set("rawBody", new Uint8Array());
    return;
  }
  const type = mediaType(c.req.header("content-type"));
  if (!(ACCEPTED_CONTENT_TYPES as readonly string[]).includes(type)) {
    throw new ApiError(
      415,
      "UNSUPPORTED_MEDIA_TYPE",
      `Content-Type ${type ? `"${type}"` : "(none)"} is not accepted; send application/json or application/yaml`,
    );
  }
  // Bodies are read as UTF-8 whatever they declare: Latin-1 bytes that happen to be UTF-8 would be
  // read as other text than the one sent (and signed, hashed, stored as that).
  const charset = charsetOf(c.req.header("content-type"));
  if (charset !== null && charset !== "utf-8" && charset !== "utf8") {
    throw new ApiError(
      415,
      "UNSUPPORTED_MEDIA_TYPE",
      `charset ${JSON.stringify(charset)} is not accepted: bodies are UTF-8 (send charset=utf-8, or no charset)`,
    );
  }
  const declared = Number(c.req.header("content-length"));
  if (Number.isFinite(declared) && declared > maxBytes) throw tooLarge(maxBytes);

  const bytes = await readAll(c, maxBytes);
  const raw = new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const hazard = bodyHazard(raw, type === "application/json");
  if (hazard) throw validationFailed([{ path: "", message: `the body contains ${hazard}` }]);
  c.set("rawBody", raw);
  // Hono converts between cached body forms, so json()/text() read these bytes.
  // (The cache holds promises at run time although its type says otherwise.)
  (c.req.bodyCache as Record<string, unknown>).arrayBuffer = Promise.resolve(
    raw.buffer.slice(raw.byteOffset, raw.byteOffset + raw.byteLength),
  );
}

/** 400 for a URL whose path or query has a NUL character or a malformed percent-encoding. */
function checkUrl(url: string): void {
  const start = url.indexOf("/", url.indexOf("//") + 2);
  const target = start < 0 ? "" : url.slice(start);
  let decoded: string;
  try {
    decoded = decodeURIComponent(target.replaceAll("+", " "));
  } catch {
    throw validationFailed([{ path: "url", message: "the URL has a malformed percent-encoding" }]);
  }
  if (decoded.includes("\0")) {
    throw validationFailed([{ path: "url", message: "the URL contains a NUL character" }]);
  }
}

/**
 * What makes a body unusable, or null. Scans the bytes once: bytes that are not UTF-8 (decoding
 * would put U+FFFD in their place, so what is stored and hashed is not what was sent), a NUL byte
 * (any media type), and for JSON a `\u0000` escape inside a string (PostgreSQL text and jsonb
 * cannot hold U+0000), the nesting depth, and a key twice in one object (JSON.parse keeps the
 * last, another reader the first; YAML bodies are parsed with unique keys). Every byte that matters
 * here is ASCII, and UTF-8 never puts an ASCII byte inside a multi-byte character, so no decoding
 * is needed but of keys.
 */
export function bodyHazard(bytes: Uint8Array, json: boolean): string | null {
  if (!isUtf8(bytes)) return "bytes that are not UTF-8";
  let inString = false;
  // Per open container, innermost last (their count is the depth): an object's keys so far, or
  // null for an array.
  const containers: Array<Set<string> | null> = [];
  let expectKey = false;
  let keyStart = -1;
  for (let i = 0; i < bytes.length; i++) {
    const b = bytes[i]!;
    if (b === 0x00) return "a NUL character";
    if (!json) continue;
    if (inString) {
      if (b === 0x5c /* \ */) {
        if (
          bytes[i + 1] === 0x75 /* u */ &&
          bytes[i + 2] === 0x30 &&
          bytes[i + 3] === 0x30 &&
          bytes[i + 4] === 0x30 &&
          bytes[i + 5] === 0x30
        ) {
          return "a NUL character (\\u0000)";
        }
        i++; // the escaped character, whatever it is, does not end the string
      } else if (b === 0x22 /* " */) {
        inString = false;
        if (keyStart >= 0) {
          const keys = containers.at(-1);
          const key = jsonKey(bytes.subarray(keyStart, i));
          if (keys?.has(key))
            return `the key ${JSON.stringify(key.slice(0, 64))} twice in one object`;
          keys?.add(key);
          keyStart = -1;
        }
      }
    } else if (b === 0x22) {
      inString = true;
      if (expectKey) keyStart = i + 1;
      expectKey = false;
    } else if (b === 0x5b /* [ */ || b === 0x7b /* { */) {
      if (containers.length >= MAX_BODY_DEPTH)
        return `arrays or objects nested deeper than ${MAX_BODY_DEPTH}`;
      containers.push(b === 0x7b ? new Set() : null);
      expectKey = b === 0x7b;
    } else if (b === 0x5d /* ] */ || b === 0x7d /* } */) {
      containers.pop();
      expectKey = false;
    } else if (b === 0x2c /* , */) {
      expectKey = containers.at(-1) != null;
    }
  }
  return null;
}

/** A key's characters from its bytes between the quotes (escapes read as JSON reads them). */
function jsonKey(raw: Uint8Array): string {
  const text = Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength).toString("utf8");
  if (!text.includes("\\")) return text;
  try {
    return JSON.parse(`"${text}"`) as string;
  } catch {
    // Malformed: JSON.parse of the whole body says so.
    return text;
  }
}

/**
 * The same hazards in a parsed document (YAML, whose escapes `\0`, `\x00`, `\u0000` only show once
 * parsed): a NUL character in a key or a string, nesting deeper than {@link MAX_BODY_DEPTH}.
 */
export function documentHazard(value: unknown, depth = 0): string | null {
  if (typeof value === "string") return value.includes("\0") ? "a NUL character" : null;
  if (value === null || typeof value !== "object") return null;
  if (depth >= MAX_BODY_DEPTH) return `arrays or objects nested deeper than ${MAX_BODY_DEPTH}`;
  for (const [key, item] of Object.entries(value)) {
    if (key.includes("\0")) return "a NUL character";
    const found = documentHazard(item, depth + 1);
    if (found) return found;
  }
  return null;
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
  return readBounded(c.req.raw.body!, maxBytes, () => tooLarge(maxBytes));
}

/**
 * A stream's bytes, read up to `maxBytes`; beyond, the stream is cancelled and `tooLarge()` thrown
 * (a peer's size cannot be trusted until it is read).
 */
export async function readBounded(
  stream: ReadableStream<Uint8Array>,
  maxBytes: number,
  tooLarge: () => Error,
): Promise<Buffer> {
  const reader = stream.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > maxBytes) {
      await reader.cancel().catch(() => {});
      throw tooLarge();
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
