import { z } from "zod";
import { chainReliabilityOverridesSchema } from "./reliability.ts";

/** Per devnet chain name: overrides of its reliability settings (relayer/chains/reliability.ts). */
const devnetReliabilitySchema = z
  .record(z.enum(["ethereum", "arbitrum", "polygon"]), chainReliabilityOverridesSchema)
  .optional();

/**
 * Where the relayer's chains come from. One zod schema per wire shape: the platform's config embeds
 * `chainsConfigSchema`; `openChains` accepts its output.
 *
 * - `embedded` (default): the three devnet chains in process, deployed at start.
 * - `rpc`: the JSON-RPC devnet of `npm run devnet` and the committed `deployments/`.
 * - `file`: a chains file (JSON, schema `chainsFileSchema`) describing real networks.
 */
export const chainsConfigSchema = z.discriminatedUnion("mode", [
  z.object({
    mode: z.literal("embedded"),
    /** Which devnet chains to start (default: all three). */
    chains: z
      .array(z.enum(["ethereum", "arbitrum", "polygon"]))
      .min(1)
      .optional(),
    reliability: devnetReliabilitySchema,
  }),
  z.object({
    mode: z.literal("rpc"),
    /** RPC URL per devnet chain name; defaults to 127.0.0.1 ports 8545/8546/8547. */
    rpcUrls: z.record(z.string(), z.url()).optional(),
    /** Directory of `deployments/<chainId>/` (default: the repository's `deployments/`). */
    deploymentsDir: z.string().min(1).optional(),
    /** Operator private key; defaults to the documented devnet operator (Hardhat account #1). */
    operatorPrivateKey: z
      .string()
      .regex(/^0x[0-9a-fA-F]{64}$/, "not a 32-byte hex private key")
      .optional(),
    reliability: devnetReliabilitySchema,
  }),
  z.object({
    mode: z.literal("file"),
    /** Path of the chains file (see docs/devnet.md, "Chains file"). */
    file: z.string().min(1),
  }),
]);

export type ChainsConfig = z.infer<typeof chainsConfigSchema>;

/**
 * Reference to an operator key, never the key itself: an environment variable holding a hex private
 * key, or an encrypted JSON keystore (ethers / geth format) whose password is in an environment variable.
 */
export const operatorKeyRefSchema = z.union([
  z.object({ env: z.string().min(1) }).strict(),
  z.object({ keystore: z.string().min(1), passwordEnv: z.string().min(1) }).strict(),
]);

export const chainsFileSchema = z.object({
  chains: z
    .array(
      z.object({
        name: z.string().regex(/^[a-z][a-z0-9-]*$/, "lower-case chain name"),
        chainId: z.number().int().positive(),
        rpcUrl: z.url(),
        operatorKey: operatorKeyRefSchema,
        /** Directory holding `<chainId>/deployment.json`; relative to the chains file. */
        deploymentsDir: z.string().min(1),
        /** Poll interval of the provider in ms (block time scale of the network). */
        pollingIntervalMs: z.number().int().positive().default(1000),
        /** Confirmation depth, stuck timeout and fee cap (defaults: NETWORK_RELIABILITY). */
        reliability: chainReliabilityOverridesSchema.optional(),
      }),
    )
    .min(1)
    .refine(
      (chains) => new Set(chains.map((c) => c.name)).size === chains.length,
      "duplicate chain name",
    )
    .refine(
      (chains) => new Set(chains.map((c) => c.chainId)).size === chains.length,
      "duplicate chainId",
    ),
});

export type ChainsFile = z.infer<typeof chainsFileSchema>;
