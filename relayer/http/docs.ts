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
</head>
<body>
  <div id="swagger-ui"></div>
  <script src="/docs/swagger-ui-bundle.js"></script>
  <script src="/docs/swagger-ui-standalone-preset.js"></script>
  <script src="/docs/init.js"></script>
</body>
</html>`;

const INIT = `window.ui = SwaggerUIBundle({
  url: "/openapi.json",
  dom_id: "#swagger-ui",
  presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset],
  layout: "StandaloneLayout",
});`;

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
