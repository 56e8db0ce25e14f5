import { createRoute, z } from "@hono/zod-openapi";
import type { AppContext } from "../context.ts";
import { ApiError, errorSchema, createRouter } from "../http/index.ts";
import { generateArtifactBatch, registryChain } from "./batch.ts";
import { parseCid, type ArtifactStore } from "./store.ts";

const EXAMPLE_CID = "bagaaierazwvqm7u7hpvtfujfft6whzeslex6zp2zdmgqrsw3es5rp44gijda";

/**
 * The artifact store over HTTP: store (`POST /artifacts`), read (`GET /artifacts/{cid}`), and CAR
 * export for pinning on any IPFS service (`GET /artifacts/{cid}/car`, `POST /artifacts/car`).
 * and `POST /zk/generate`: a Groth16 proof over stored artifacts with the root anchored on chain.
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

export function artifactRoutes(
  ctx: Pick<AppContext, "store" | "chains"> & { artifacts: ArtifactStore },
) {
  const app = createRouter();

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
      },
    }),
    async (c) => {
      const value: unknown = c.req.valid("json");
      return c.json({ cid: await ctx.artifacts.putArtifact(value) }, 201);
    },
  );

  app.openapi(
    createRoute({
      method: "get",
      path: "/artifacts/{cid}",
      tags: ["artifacts"],
      summary: "One stored artifact, as its canonical JSON bytes",
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
      const stored = await ctx.artifacts.getArtifact(parseCid(cid).toString());
      if (!stored) throw new ApiError(404, "ARTIFACT_NOT_FOUND", `no stored artifact ${cid}`);
      // JSON.stringify of the decoded canonical JSON gives back the canonical bytes (RFC 8785 §3.2).
      return c.json(stored.value, 200, {
        ETag: `"${stored.cid}"`,
        "Cache-Control": "public, max-age=31536000, immutable",
      });
    },
  );

  app.openapi(
    createRoute({
      method: "get",
      path: "/artifacts/{cid}/car",
      tags: ["artifacts"],
      summary: "One artifact as a CARv1 file (root: the artifact), for pinning on an IPFS service",
      request: { params: cidParamSchema },
      responses: {
        200: {
          description: "CARv1 bytes",
          content: { [CAR_TYPE]: { schema: z.string().openapi({ format: "binary" }) } },
        },
        400: error("INVALID_CID"),
        404: error("ARTIFACT_NOT_FOUND"),
      },
    }),
    async (c) => {
      const { cid } = c.req.valid("param");
      const car = await ctx.artifacts.exportCar([cid]);
      return c.body(car as Uint8Array<ArrayBuffer>, 200, {
        "Content-Type": CAR_TYPE,
        "Content-Disposition": `attachment; filename="${cid}.car"`,
      });
    },
  );

  app.openapi(
    createRoute({
      method: "post",
      path: "/artifacts/car",
      tags: ["artifacts"],
      summary: "Several artifacts as one CARv1 file (roots: the given CIDs, in order)",
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
        400: error("INVALID_CID naming the bad one"),
        404: error("ARTIFACT_NOT_FOUND naming the missing one"),
      },
    }),
    async (c) => {
      const { cids } = c.req.valid("json");
      const car = await ctx.artifacts.exportCar(cids);
      return c.body(car as Uint8Array<ArrayBuffer>, 200, { "Content-Type": CAR_TYPE });
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
        404: error("ARTIFACT_NOT_FOUND naming the CID the relayer does not store"),
        502: error("ANCHOR_FAILED"),
        503: error("PROVER_UNAVAILABLE or REGISTRY_UNAVAILABLE"),
      },
    }),
    async (c) => {
      const body = c.req.valid("json");
      const field = body.artifacts !== undefined ? "artifacts" : "cids";
      const chain = registryChain(ctx.chains?.list() ?? [], body.chain_id);
      const result = await generateArtifactBatch(
        { store: ctx.artifacts, engineStore: ctx.store, chain },
        (body.artifacts ?? body.cids)!,
        field,
      );
      return c.json(result, 200);
    },
  );

  return app;
}
