import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import path from "node:path";
import { Hono } from "hono";

const require = createRequire(import.meta.url);
// swagger-ui-dist ships the built UI; served from node_modules, no CDN.
const SWAGGER_DIR = path.dirname(require.resolve("swagger-ui-dist/package.json"));
const ASSETS: Record<string, string> = {
  "swagger-ui.css": "text/css; charset=utf-8",
  "swagger-ui-bundle.js": "text/javascript; charset=utf-8",
  "swagger-ui-standalone-preset.js": "text/javascript; charset=utf-8",
  "favicon-32x32.png": "image/png",
};

const PAGE = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>Veriflow relayer API</title>
  <link rel="stylesheet" href="/docs/swagger-ui.css">
  <link rel="icon" type="image/png" href="/docs/favicon-32x32.png">
  <style>
    #signing { font-family: sans-serif; padding: 12px 20px; background: #f4f6f8; border-bottom: 1px solid #d8dde3; }
    #signing input { margin: 0 8px; padding: 4px; width: 22em; }
  </style>
</head>
<body>
  <form id="signing" autocomplete="off">
    <strong>Sign requests</strong>
    <label>API key <input id="api-key" name="api-key" placeholder="vfk_…"></label>
    <label>Signing secret <input id="signing-secret" name="signing-secret" type="password"></label>
    <button type="submit">Use</button>
    <span id="signing-state">requests are sent unsigned</span>
  </form>
  <div id="swagger-ui"></div>
  <script src="/docs/swagger-ui-bundle.js"></script>
  <script src="/docs/swagger-ui-standalone-preset.js"></script>
  <script src="/docs/init.js"></script>
</body>
</html>`;

/**
 * Signs each "Try it out" request in the browser with signature version 2 (WebCrypto
 * HMAC-SHA256 over the method, path, query, timestamp and the SHA-256 of the exact body sent; see
 * relayer/auth/hmac.ts), with the key and secret entered once in the form. They stay in this
 * page's memory only: nothing is stored or sent to the relayer but the signature headers.
 */
const INIT = `(() => {
  const encoder = new TextEncoder();
  let credentials = null;
  document.getElementById("signing").addEventListener("submit", async (event) => {
    event.preventDefault();
    const apiKey = document.getElementById("api-key").value.trim();
    const secret = document.getElementById("signing-secret").value;
    const state = document.getElementById("signing-state");
    if (!apiKey || !secret) {
      credentials = null;
      state.textContent = "requests are sent unsigned";
      return;
    }
    const key = await crypto.subtle.importKey(
      "raw", encoder.encode(secret), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
    credentials = { apiKey, key };
    document.getElementById("signing-secret").value = "";
    state.textContent = "signing requests as " + apiKey;
  });
  let lastStamp = 0;
  const hex = (buffer) =>
    Array.from(new Uint8Array(buffer), (b) => b.toString(16).padStart(2, "0")).join("");
  window.ui = SwaggerUIBundle({
    url: "/openapi.json",
    dom_id: "#swagger-ui",
    presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset],
    layout: "StandaloneLayout",
    requestInterceptor: async (request) => {
      if (!credentials || new URL(request.url, location.href).pathname === "/openapi.json") {
        return request;
      }
      if (request.body != null && typeof request.body !== "string") {
        request.body = JSON.stringify(request.body);
      }
      // Never the same stamp twice: two identical requests in one millisecond would be one
      // signature, and the relayer refuses the second as a replay.
      lastStamp = Math.max(Date.now(), lastStamp + 1);
      const timestamp = String(lastStamp);
      const url = new URL(request.url, location.href);
      const bodyHash = hex(await crypto.subtle.digest("SHA-256", encoder.encode(request.body ?? "")));
      const payload = ["VERIFLOW-HMAC-SHA256-2", String(request.method).toUpperCase(),
        url.pathname, url.search.slice(1), timestamp, bodyHash].join("\\n");
      const mac = await crypto.subtle.sign("HMAC", credentials.key, encoder.encode(payload));
      request.headers["X-SVC-Key"] = credentials.apiKey;
      request.headers["X-SVC-Timestamp"] = timestamp;
      request.headers["X-SVC-Signature-Version"] = "2";
      request.headers["X-SVC-Signature"] = hex(mac);
      return request;
    },
  });
})();`;

/** Interactive API docs at /docs (Swagger UI over /openapi.json). */
export function docsRoutes() {
  const app = new Hono();
  const cache = new Map<string, Buffer>();
  app.get("/docs", (c) => c.html(PAGE));
  app.get("/docs/init.js", (c) => c.body(INIT, 200, { "Content-Type": "text/javascript" }));
  app.get("/docs/:asset", async (c) => {
    const asset = c.req.param("asset");
    const type = ASSETS[asset];
    if (!type) return c.notFound();
    let bytes = cache.get(asset);
    if (!bytes) {
      bytes = await readFile(path.join(SWAGGER_DIR, asset));
      cache.set(asset, bytes);
    }
    return c.body(new Uint8Array(bytes), 200, {
      "Content-Type": type,
      "Cache-Control": "public, max-age=86400",
    });
  });
  return app;
}
