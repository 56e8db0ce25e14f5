import { createRoute, z } from "@hono/zod-openapi";
import type { AppContext } from "../context/index.ts";
import { ApiError, createRouter, HMAC_SECURITY } from "../http/index.ts";
import {
  accountBalances,
  DEVNET_GRANT,
  ensureFundedAccount,
  grantOnChain,
  DEVNET_FAUCET,
  type SecretCipher,
} from "./index.ts";

const chainBalancesSchema = z
  .object({
    chain: z.string().openapi({ example: "arbitrum" }),
    chain_id: z.number().int().openapi({ example: 31338 }),
    balances: z.record(z.string(), z.string()).openapi({
      description: "Asset symbol → decimal balance",
      example: { ETH: "10", USDC: "100000" },
    }),
  })
  .openapi("ChainBalances");

const accountSchema = z
  .object({
    address: z.string().openapi({ example: "0x52908400098527886E0F7030069857D2E4169EE7" }),
    created_at: z.string(),
    funded_at: z.string().nullable(),
    chains: z.array(chainBalancesSchema),
  })
  .openapi("Account");

const faucetRequestSchema = z
  .object({
    chains: z
      .array(z.string())
      .min(1)
      .max(16)
      .optional()
      .openapi({ description: "Default: every chain." }),
    assets: z
      .record(z.string(), z.string().regex(/^(0|[1-9]\d*)(\.\d+)?$/, "a decimal amount"))
      .optional()
      .openapi({
        description: "Asset → decimal amount; default the standard grant.",
        example: { USDC: "5000" },
      }),
  })
  .strict()
  .openapi("FaucetRequest");

const faucetResultSchema = z
  .object({
    address: z.string(),
    granted: z.record(z.string(), z.record(z.string(), z.string())).openapi({
      description: "Chain → asset → amount sent",
    }),
  })
  .openapi("FaucetResult");

const errorSchema = z.object({ error: z.string(), detail: z.string() }).openapi("AccountError");

/** `GET /v1/account` and the devnet-only `POST /v1/account/faucet`. */
export function accountRoutes(
  ctx: Pick<AppContext, "store" | "chains"> & { cipher: SecretCipher },
) {
  const app = createRouter();

  const fundedAccount = (apiKeyId: string, chains: NonNullable<AppContext["chains"]>) =>
    ensureFundedAccount(ctx.store, ctx.cipher, apiKeyId, chains.list(), DEVNET_FAUCET);

  const requireChains = () => {
    if (!ctx.chains)
      throw new ApiError(503, "CHAINS_UNAVAILABLE", "the relayer runs without chains");
    return ctx.chains;
  };

  app.openapi(
    createRoute({
      method: "get",
      path: "/v1/account",
      summary:
        "The API key's relayer-managed account: its address (same on every chain) and balances",
      security: HMAC_SECURITY,
      responses: {
        200: {
          description: "The account",
          content: { "application/json": { schema: accountSchema } },
        },
        503: { description: "No chains", content: { "application/json": { schema: errorSchema } } },
      },
    }),
    async (c) => {
      const chains = requireChains();
      const account = await fundedAccount(c.get("apiKey").id, chains);
      const balances = await accountBalances(chains.list(), account.address);
      return c.json(
        {
          address: account.address,
          created_at: account.createdAt.toISOString(),
          funded_at: account.fundedAt?.toISOString() ?? null,
          chains: balances.map((b) => ({
            chain: b.chain,
            chain_id: b.chainId,
            balances: b.balances,
          })),
        },
        200,
      );
    },
  );

  app.openapi(
    createRoute({
      method: "post",
      path: "/v1/account/faucet",
      summary: "Devnet only: top the account up with test assets",
      security: HMAC_SECURITY,
      request: {
        body: {
          required: false,
          content: {
            "application/json": {
              schema: faucetRequestSchema,
              example: { chains: ["ethereum", "arbitrum"], assets: { USDC: "5000" } },
            },
          },
        },
      },
      responses: {
        200: {
          description: "What was sent",
          content: { "application/json": { schema: faucetResultSchema } },
        },
        400: {
          description: "Unknown chain or asset",
          content: { "application/json": { schema: errorSchema } },
        },
        403: {
          description: "Not a devnet",
          content: { "application/json": { schema: errorSchema } },
        },
      },
    }),
    async (c) => {
      const chains = requireChains();
      const raw = c.get("rawBody");
      const body =
        raw && raw.length > 0
          ? faucetRequestSchema.safeParse(JSON.parse(new TextDecoder().decode(raw)))
          : null;
      if (body && !body.success) {
        throw new ApiError(
          400,
          "VALIDATION_FAILED",
          body.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; "),
        );
      }
      const request = body?.data ?? {};
      const targets = (request.chains ?? chains.list().map((ch) => ch.name)).map((name) => {
        if (!chains.has(name)) throw new ApiError(400, "UNKNOWN_CHAIN", `no chain named ${name}`);
        return chains.byName(name);
      });
      if (!targets.every((t) => t.devnet)) {
        throw new ApiError(
          403,
          "FAUCET_DEVNET_ONLY",
          "the faucet only exists on the devnet; deposit to the account address instead",
        );
      }
      const grant = request.assets ?? DEVNET_GRANT;
      for (const [asset, amount] of Object.entries(grant)) {
        const known = asset === "ETH" || targets.some((t) => asset in t.deployment.tokens);
        if (!known) throw new ApiError(400, "UNKNOWN_ASSET", `no asset ${asset} on the devnet`);
        if (Number(amount) > Number(DEVNET_GRANT[asset] ?? 0) * 10) {
          throw new ApiError(
            400,
            "FAUCET_LIMIT",
            `at most ${Number(DEVNET_GRANT[asset] ?? 0) * 10} ${asset} per request`,
          );
        }
      }
      const account = await fundedAccount(c.get("apiKey").id, chains);
      const granted: Record<string, Record<string, string>> = {};
      for (const chain of targets)
        granted[chain.name] = await grantOnChain(chain, DEVNET_FAUCET, account.address, grant);
      return c.json({ address: account.address, granted }, 200);
    },
  );

  return app;
}
