import { readFile } from "node:fs/promises";
import { Hono } from "hono";
import type { ChainHandle } from "../chains/index.ts";
import { DEVNET_CHAINS } from "../devnet/index.ts";
import type { AppContext } from "../context/index.ts";
import { ApiError } from "../http/index.ts";
import { auditPageChain, type AuditPageConfig } from "./browser.ts";
import { AUDIT_BUNDLE_FILE, readAuditKeys } from "./node.ts";
import { auditPageHtml } from "./page/html.ts";

/**
 * `GET /audit`: the browser auditor, with this relayer's chains' deployments embedded. Public,
 * like /docs. The page proposes the devnet's RPC URLs for devnet chains and none otherwise: the
 * relayer's own RPC URLs may carry a provider's key, and an auditor brings its own access.
 * An auditor who does not want to trust the relayer for the trust anchors builds the same page
 * from the repository (`npm run build:audit-page`).
 */
export function auditPageRoutes(ctx: Pick<AppContext, "chains">) {
  const app = new Hono();
  let page: Promise<string> | undefined;
  app.get("/audit", async (c) => {
    page ??= renderPage(ctx).catch((err: unknown) => {
      page = undefined;
      throw err;
    });
    return c.html(await page, 200, {
      "Cache-Control": "no-cache",
      "X-Content-Type-Options": "nosniff",
    });
  });
  return app;
}

function proposedRpcUrl(chain: ChainHandle): string {
  const devnet = DEVNET_CHAINS[chain.name as keyof typeof DEVNET_CHAINS];
  return chain.devnet && devnet?.chainId === chain.chainId
    ? `http://127.0.0.1:${devnet.defaultPort}`
    : "";
}

async function renderPage(ctx: Pick<AppContext, "chains">): Promise<string> {
  let bundle: string;
  try {
    bundle = await readFile(AUDIT_BUNDLE_FILE, "utf8");
  } catch {
    throw new ApiError(
      503,
      "AUDIT_PAGE_NOT_BUILT",
      "the browser auditor is not built on this relayer: run `npm run build:audit-page`",
    );
  }
  const config: AuditPageConfig = {
    source:
      "the deployments of the relayer that served this page, this relayer's verification key and verifier",
    chains: (ctx.chains?.list() ?? []).map((c) => auditPageChain(c, proposedRpcUrl(c))),
    keys: await readAuditKeys(),
  };
  return auditPageHtml(bundle, config);
}
