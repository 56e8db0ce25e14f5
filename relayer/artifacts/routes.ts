import { createRoute, z } from "@hono/zod-openapi";
import type { AppContext } from "../context/index.ts";
import type { Context } from "hono";
import { ApiError, errorSchema, createRouter, type AppEnv } from "../http/index.ts";
import { chargeZkProof } from "../limits/index.ts";
import { generateArtifactBatch, registryChain } from "./batch.ts";
import type { Artifacts } from "./service.ts";
import type { CarExport } from "./store.ts";

const EXAMPLE_CID = "bagaaierazwvqm7u7hpvtfujfft6whzeslex6zp2zdmgqrsw3es5rp44gijda";

/**
 * The artifact store over HTTP, scoped to the caller's key: store (`POST /artifacts`, within the
 * key's quota), read (`GET /artifacts/{cid}`: own or published, else 404), delete, publish and
 * withdraw, the quota's usage, and CAR export for pinning on any IPFS service (`GET
 * /artifacts/{cid}/car`, `POST /artifacts/car`: streamed, capped); and `POST /zk/generate`: a
 * Groth16 proof over readable artifacts with the root anchored on chain, within the key's proving
 * quota.
 */

const error = (description: string) => ({
  description,
  content: { "application/json": { schema: errorSchema } },
});
const CAR_TYPE = "application/vnd.ipld.car; version=1";

export const cidParamSchema = z.object({
  cid: z.string().openapi({ param: { name: "cid", in: "path" }, example: "bagaaiera…" }),
});
export const storedArtifactSchema = z
  .object({
    cid: z.string().openapi({ example: EXAMPLE_CID }),
  })
  .openapi("StoredArtifact");
export const carExportRequestSchema = z
  .object({ cids: z.array(z.string()).min(1).max(1000) })
  .openapi("CarExportRequest");

export const publishedSchema = z
  .object({
    cid: z.string(),
    published: z.boolean(),
    published_at: z
      .string()
      .nullable()
      .openapi({ description: "When it was first published (null: private to its owners)" }),
  })
  .openapi("ArtifactPublication");

export const artifactQuotaSchema = z
  .object({
    usage: z.object({ count: z.number().int(), bytes: z.number().int() }),
    limits: z.object({ count: z.number().int(), bytes: z.number().int() }),
    retention_days: z.number(),
    car_max_bytes: z.number().int(),
    zk_proofs_per_day: z.number().int(),
  })
  .openapi("ArtifactQuota");

export const zkGenerateRequestSchema = z
  .object({
    artifacts: z
      .array(z.string())
      .optional()
      .openapi({ description: "CIDs of stored artifacts (at most 32)" }),
    cids: z
      .array(z.string())
      .optional()
      .openapi({ description: "Alias of `artifacts` (the spec's sample body)" }),
    chain_id: z.number().int().positive().optional().openapi({
      description:
        "Chain whose ProofRegistry anchors the root (default: the first chain that has one)",
    }),
  })
  .refine((v) => v.artifacts !== undefined || v.cids !== undefined, {
    message: "give `artifacts` (or `cids`): the CIDs of the stored artifacts to prove",
  })
  .refine(
    (v) =>
      v.artifacts === undefined ||
      v.cids === undefined ||
      JSON.stringify(v.artifacts) === JSON.stringify(v.cids),
    { message: "`artifacts` and `cids` name the same list; give one of them" },
  )
  .openapi("ZkGenerateRequest");

const inclusionSchema = z.object({
  index: z.number().int(),
  leaf: z.string(),
  siblings: z.array(z.string()),
});

export const zkGenerateResultSchema = z
  .object({
    root: z
      .string()
      .openapi({ description: "Poseidon Merkle root, as the bytes32 anchored on chain" }),
    count: z.number().int(),
    proof: z.unknown().openapi({ description: "snarkjs Groth16 proof object" }),
    public_signals: z.array(z.string()).openapi({ description: "[root, count], decimal" }),
    verified_on_chain: z.boolean().nullable(),
    anchor_tx: z.object({
      chain_id: z.number().int(),
      chain: z.string(),
      registry: z.string(),
      hash: z.string(),
      block_number: z.number().int(),
      batch_id: z.number().int(),
      uri: z.string(),
    }),
    inclusion: z
      .record(z.string(), inclusionSchema)
      .openapi({ description: "per CID: leaf index, leaf, siblings up to the root" }),
    manifest: z.string().openapi({ description: "CID of the stored batch manifest" }),
  })
  .openapi("ZkGenerateResult");

/**
 * The streamed CAR, with its exact length (known before the first byte). Built by the context, so
 * the headers the middleware set before the route ran (the rate limit's) are in it.
 */
const carResponse = (c: Context<AppEnv>, car: CarExport, name?: string) =>
  c.body(car.stream, 200, {
    "Content-Type": CAR_TYPE,
    "Content-Length": String(car.bytes),
    ...(name ? { "Content-Disposition": `attachment; filename="${name}.car"` } : {}),
  });

export function artifactRoutes(
  ctx: Pick<AppContext, "store" | "chains" | "limits" | "clock"> & { artifacts: Artifacts },
) {
  const app = createRouter();

  app.openapi(
    createRoute({
      method: "get",
      path: "/artifacts/quota",
      tags: ["artifacts"],
      summary:
        "This key's artifact quota: uploads held (count, bytes) against its tier's limits, the retention and the export cap",
      responses: {
        200: {
          description: "usage and limits",
          content: { "application/json": { schema: artifactQuotaSchema } },
        },
      },
    }),
    async (c) => {
      const apiKey = c.get("apiKey");
      const limits = ctx.limits[apiKey.tier];
      return c.json(
        {
          usage: await ctx.artifacts.usage(apiKey.id),
          limits: { count: limits.artifactCount, bytes: limits.artifactBytes },
          retention_days: ctx.artifacts.retentionDays,
          car_max_bytes: ctx.artifacts.settings.carMaxBytes,
          zk_proofs_per_day: limits.zkProofsPerDay,
        },
        200,
      );
    },
  );

  app.openapi(
    createRoute({
      method: "post",
      path: "/artifacts",
      tags: ["artifacts"],
      summary:
        "Store a JSON artifact; answers its CID (CIDv1, json codec, sha2-256 of the RFC 8785 canonical JSON)",
      request: {
        body: {
          required: true,
          content: {
            "application/json": {
              schema: z.unknown().openapi("ArtifactValue"),
              // The spec's DeFi transaction artifact (any JSON value is accepted).
              example: {
                tx_hashes: ["0x5c504ed432cb51138bcf09aa5e8a410dd4a1e204ef84bfed1be16dfba1b22060"],
                gas_metrics: { "42161": { used: 184312, saved: 0.12 } },
                operations: [{ protocol: "uniswap", action: "swap", liquidation_price: null }],
                risk_scores: { slippage_bps: 12 },
                liquidation_protection: true,
              },
            },
          },
        },
      },
      responses: {
        201: {
          description: "stored (idempotent)",
          content: { "application/json": { schema: storedArtifactSchema } },
        },
        400: error("INVALID_ARTIFACT: not JSON (big integers must be decimal strings)"),
        403: error(
          "ARTIFACT_QUOTA_EXCEEDED: the key's tier quota (count or bytes) is used; `usage`, `limits`, `artifact_bytes`, `retention_days`",
        ),
      },
    }),
    async (c) => {
      const value: unknown = c.req.valid("json");
      const apiKey = c.get("apiKey");
      const limits = ctx.limits[apiKey.tier];
      const cid = await ctx.artifacts.putArtifact(
        value,
        { apiKeyId: apiKey.id, kind: "upload" },
        limits,
      );
      return c.json({ cid }, 201);
    },
  );

  app.openapi(
    createRoute({
      method: "get",
      path: "/artifacts/{cid}",
      tags: ["artifacts"],
      summary:
        "One stored artifact, as its canonical JSON bytes: the caller's own or one its owner published (else 404)",
      request: { params: cidParamSchema },
      responses: {
        200: {
          description: "the artifact",
          content: { "application/json": { schema: z.unknown() } },
        },
        400: error("INVALID_CID"),
        404: error("ARTIFACT_NOT_FOUND"),
      },
    }),
    async (c) => {
      const { cid } = c.req.valid("param");
      const stored = await ctx.artifacts.read(cid, c.get("apiKey").id);
      if (!stored)
        throw new ApiError(404, "ARTIFACT_NOT_FOUND", `no stored artifact ${cid}`, { cid });
      // JSON.stringify of the decoded canonical JSON gives back the canonical bytes (RFC 8785 §3.2).
      // Content never changes under a CID, but only a published one may sit in a shared cache.
      return c.json(stored.value, 200, {
        ETag: `"${stored.cid}"`,
        "Cache-Control": `${stored.published ? "public" : "private"}, max-age=31536000, immutable`,
      });
    },
  );

  app.openapi(
    createRoute({
      method: "delete",
      path: "/artifacts/{cid}",
      tags: ["artifacts"],
      summary:
        "Drop this key's copy of an upload or batch manifest (frees quota; the block goes when no key holds it)",
      request: { params: cidParamSchema },
      responses: {
        204: { description: "dropped" },
        400: error("INVALID_CID"),
        404: error("ARTIFACT_NOT_FOUND: the key holds no such artifact"),
        409: error("ARTIFACT_RETAINED: a final report is kept with its execution"),
      },
    }),
    async (c) => {
      const { cid } = c.req.valid("param");
      await ctx.artifacts.remove(cid, c.get("apiKey").id);
      return c.body(null, 204);
    },
  );

  for (const [method, published] of [
    ["post", true],
    ["delete", false],
  ] as const) {
    app.openapi(
      createRoute({
        method,
        path: "/artifacts/{cid}/publish",
        tags: ["artifacts"],
        summary: published
          ? "Publish one of this key's artifacts: every key may then read it and export it as a CAR (no body)"
          : "Withdraw a publication: the artifact is private to its owners again",
        request: { params: cidParamSchema },
        responses: {
          200: {
            description: published ? "published" : "private again",
            content: { "application/json": { schema: publishedSchema } },
          },
          400: error("INVALID_CID"),
          404: error("ARTIFACT_NOT_FOUND: the key owns no such artifact"),
        },
      }),
      async (c) => {
        const { cid } = c.req.valid("param");
        const at = await ctx.artifacts.publish(cid, c.get("apiKey").id, published);
        return c.json(
          { cid, published: at !== null, published_at: at?.toISOString() ?? null },
          200,
        );
      },
    );
  }

  app.openapi(
    createRoute({
      method: "get",
      path: "/artifacts/{cid}/car",
      tags: ["artifacts"],
      summary:
        "One readable artifact as a CARv1 file (root: the artifact), for pinning on an IPFS service",
      request: { params: cidParamSchema },
      responses: {
        200: {
          description: "CARv1 bytes",
          content: { [CAR_TYPE]: { schema: z.string().openapi({ format: "binary" }) } },
        },
        400: error("INVALID_CID or CAR_TOO_LARGE"),
        404: error("ARTIFACT_NOT_FOUND"),
      },
    }),
    async (c) => {
      const { cid } = c.req.valid("param");
      const car = await ctx.artifacts.exportCar([cid], c.get("apiKey").id, "cid");
      return carResponse(c, car, cid);
    },
  );

  app.openapi(
    createRoute({
      method: "post",
      path: "/artifacts/car",
      tags: ["artifacts"],
      summary:
        "Several readable artifacts as one CARv1 file (roots: the given CIDs, in order), streamed; at most the export cap (`car_max_bytes` of GET /artifacts/quota)",
      request: {
        body: {
          required: true,
          content: {
            "application/json": {
              schema: carExportRequestSchema,
              example: { cids: [EXAMPLE_CID] },
            },
          },
        },
      },
      responses: {
        200: {
          description: "CARv1 bytes",
          content: { [CAR_TYPE]: { schema: z.string().openapi({ format: "binary" }) } },
        },
        400: error(
          "INVALID_CID naming the bad one, or CAR_TOO_LARGE (`size`, `limit`): split the CIDs over several exports",
        ),
        404: error("ARTIFACT_NOT_FOUND naming the first one the key may not read"),
      },
    }),
    async (c) => {
      const { cids } = c.req.valid("json");
      return carResponse(c, await ctx.artifacts.exportCar(cids, c.get("apiKey").id));
    },
  );

  app.openapi(
    createRoute({
      method: "post",
      path: "/zk/generate",
      tags: ["artifacts"],
      summary:
        "Prove a batch of stored artifacts (Poseidon Merkle root, Groth16) and anchor the root on chain",
      request: {
        body: {
          required: true,
          content: {
            "application/json": {
              schema: zkGenerateRequestSchema,
              examples: {
                artifacts: {
                  summary: "CIDs of stored artifacts",
                  value: { artifacts: [EXAMPLE_CID] },
                },
                spec: {
                  summary: "The spec's sample body (`cids`)",
                  value: { cids: [EXAMPLE_CID] },
                },
              },
            },
          },
        },
      },
      responses: {
        200: {
          description: "proof, anchor and inclusion paths",
          content: { "application/json": { schema: zkGenerateResultSchema } },
        },
        400: error("VALIDATION_FAILED, INVALID_CID or INVALID_ARTIFACTS, naming the bad entry"),
        404: error("ARTIFACT_NOT_FOUND naming the CID the key may not read"),
        429: error(
          "ZK_QUOTA_EXCEEDED: the key's proofs for the UTC day are used; `limit`, `resets_at`, `retry_in` and Retry-After",
        ),
        502: error("ANCHOR_FAILED"),
        503: error("PROVER_UNAVAILABLE or REGISTRY_UNAVAILABLE"),
      },
    }),
    async (c) => {
      const body = c.req.valid("json");
      const field = body.artifacts !== undefined ? "artifacts" : "cids";
      const chain = registryChain(ctx.chains?.list() ?? [], body.chain_id);
      const apiKey = c.get("apiKey");
      const result = await generateArtifactBatch(
        {
          artifacts: ctx.artifacts,
          engineStore: ctx.store,
          chain,
          apiKeyId: apiKey.id,
          chargeProof: async () => {
            await chargeZkProof(
              ctx.store,
              apiKey,
              ctx.limits[apiKey.tier].zkProofsPerDay,
              ctx.clock(),
            );
          },
        },
        (body.artifacts ?? body.cids)!,
        field,
      );
      return c.json(result, 200);
    },
  );

  return app;
}
