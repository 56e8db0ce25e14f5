import { StandardMerkleTree } from "@openzeppelin/merkle-tree";
import { randomUUID } from "node:crypto";
import {
  Contract,
  keccak256,
  toUtf8Bytes,
  TypedDataEncoder,
  type EventLog,
  type Log,
  type LogDescription,
  type Signer,
  type TypedDataDomain,
} from "ethers";
import type { EngineStore } from "../accounts/index.ts";
import type { RoutingChain } from "../routing/index.ts";
import { TxJournal, type SentTx, type TxSlot } from "../transactions/index.ts";
import { CONTRACT_NAMES } from "../deployments/index.ts";

/**
 * Proof records of external interactions (spec "Proof record"): `endpointHash = keccak256(endpoint
 * text)`, `responseHash = keccak256(response text)`. Every interaction that received a response is
 * stored, then anchored in the chain's ProofRegistry exactly once:
 *
 * - immediate (`blockchain_anchor.interval: immediate`, the default): `logAPIInteraction(endpoint,
 *   response, sig)` from the operator (LOGGER_ROLE), `sig` the operator's EIP-712 signature
 *   (SIGNER_ROLE) of `APIInteraction(endpointHash, responseHash)` under the registry's domain (its
 *   chain id and address); the record is keyed by the `requestId` of its APILogged event. The
 *   endpoint text carries the interaction's id as its URL fragment, so two interactions with the same
 *   request in one block still get distinct request ids;
 * - batched (`interval: 1h` …): an integration's pending interactions are anchored together once
 *   the oldest is `interval` old, as one `anchorBatch(root, count, uri)` of the StandardMerkleTree
 *   of `[endpointHash, responseHash, observedAt]`; each interaction keeps its leaf proof.
 *
 * Both go through the engine's transaction journal (one nonce sequence for the operator; a
 * journalled transaction is resumed after a restart, never signed twice), and an interaction is
 * assigned to a batch once (in the database transaction that builds the batch).
 */
export const PROOF_REGISTRY = CONTRACT_NAMES.proofRegistry;
const LEAF_TYPES = ["bytes32", "bytes32", "uint256"];
/** Gas observations of these transactions are kept apart from the engine's (routing estimates). */
const GAS_UNITS = -1;

export interface AnchorTarget {
  chain: RoutingChain;
  registry: Contract;
  address: string;
}

/** The registry an integration anchors in: its chain (named, or the first with a ProofRegistry). */
export function anchorTarget(
  chains: readonly RoutingChain[],
  anchor: { contract: string; chain?: string },
): AnchorTarget {
  const candidates = chains.filter((c) => c.deployment.contracts[PROOF_REGISTRY]);
  const chain = anchor.chain ? chains.find((c) => c.name === anchor.chain) : candidates[0];
  if (!chain) {
    throw new Error(
      anchor.chain
        ? `blockchain_anchor.chain ${anchor.chain} is not a configured chain`
        : "no configured chain has a ProofRegistry to anchor interactions",
    );
  }
  const deployed = chain.deployment.contracts[PROOF_REGISTRY];
  if (!deployed) throw new Error(`chain ${chain.name} has no ProofRegistry`);
  const address = anchor.contract === PROOF_REGISTRY ? deployed.address : anchor.contract;
  if (address.toLowerCase() !== deployed.address.toLowerCase()) {
    throw new Error(
      `blockchain_anchor.contract ${address} is not the ProofRegistry of ${chain.name} (${deployed.address})`,
    );
  }
  return { chain, registry: chain.contract(PROOF_REGISTRY), address: deployed.address };
}

export function textHash(text: string): string {
  return keccak256(toUtf8Bytes(text));
}

/** EIP-712 type of a signed proof record (ProofRegistry.INTERACTION_TYPEHASH). */
export const INTERACTION_TYPES = {
  APIInteraction: [
    { name: "endpointHash", type: "bytes32" },
    { name: "responseHash", type: "bytes32" },
  ],
};

/** The EIP-712 domain of the ProofRegistry at `registry` on `chainId`. */
export function interactionDomain(chainId: number | bigint, registry: string): TypedDataDomain {
  return { name: "ProofRegistry", version: "2", chainId, verifyingContract: registry };
}

/** The digest the SIGNER_ROLE key signs (ProofRegistry.interactionDigest). */
export function interactionDigest(
  domain: TypedDataDomain,
  endpointHash: string,
  responseHash: string,
): string {
  return TypedDataEncoder.hash(domain, INTERACTION_TYPES, { endpointHash, responseHash });
}

/** A fresh interaction id, carried in the endpoint text (see {@link endpointWithId}). */
export function newInteractionId(): string {
  return randomUUID();
}

/**
 * The endpoint text with the interaction's id as the URL's fragment
 * (`GET https://crm/v2/orders#veriflow-interaction=<uuid>`): a fragment is never sent to the server,
 * and it makes the record's `requestId = keccak256(endpoint text, block time)` unique per interaction.
 */
export function endpointWithId(url: URL, interactionId: string): string {
  const tagged = new URL(url);
  tagged.hash = `veriflow-interaction=${interactionId}`;
  return tagged.toString();
}

export interface InteractionInput {
  integration: string;
  executionId?: string | null;
  actionIndex?: number | null;
  method: string;
  endpoint: string;
  response: string;
  httpStatus: number;
  /** Unix seconds. */
  observedAt: number;
  mode: "immediate" | "batch";
  target: AnchorTarget;
}

export async function recordInteraction(
  store: EngineStore,
  input: InteractionInput,
): Promise<number> {
  const [row] = await store.query<{ id: string }>(
    `INSERT INTO integration_interactions
       (integration, execution_id, action_index, method, endpoint, response, endpoint_hash, response_hash,
        http_status, observed_at, mode, chain_id, registry)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13) RETURNING id`,
    [
      input.integration,
      input.executionId ?? null,
      input.actionIndex ?? null,
      input.method,
      input.endpoint,
      input.response,
      textHash(input.endpoint),
      textHash(input.response),
      input.httpStatus,
      input.observedAt,
      input.mode,
      input.target.chain.chainId,
      input.target.address,
    ],
  );
  return Number(row!.id);
}

export interface InteractionRow {
  id: string;
  integration: string;
  execution_id: string | null;
  action_index: number | null;
  method: string;
  endpoint: string;
  endpoint_hash: string;
  response_hash: string;
  http_status: number;
  observed_at: string;
  mode: "immediate" | "batch";
  chain_id: number;
  registry: string;
  anchor_state: "pending" | "anchored";
  request_id: string | null;
  signature: string | null;
  tx_hash: string | null;
  block_number: string | null;
  batch_id: string | null;
  leaf_index: number | null;
  leaf_proof: string[] | string | null;
}

const COLUMNS = `id, integration, execution_id, action_index, method, endpoint, endpoint_hash, response_hash,
  http_status, observed_at, mode, chain_id, registry, anchor_state, request_id, signature, tx_hash,
  block_number, batch_id, leaf_index, leaf_proof`;

function operator(chain: RoutingChain): Signer {
  if (!chain.operator) throw new Error(`no operator key on ${chain.name} to anchor interactions`);
  return chain.operator;
}

/**
 * Anchors one immediate interaction with logAPIInteraction (idempotent: an anchored row is left as
 * is; a journalled transaction is resumed). Returns the row as anchored.
 */
export async function anchorImmediate(
  store: EngineStore,
  target: AnchorTarget,
  id: number,
): Promise<InteractionRow> {
  const [row] = await store.query<InteractionRow & { response: string }>(
    `SELECT ${COLUMNS}, response FROM integration_interactions WHERE id = $1`,
    [id],
  );
  if (!row) throw new Error(`no interaction ${id}`);
  if (row.anchor_state === "anchored" || row.mode !== "immediate") return row;
  const { chain, address } = target;
  const sig = await operator(chain).signTypedData(
    interactionDomain(chain.chainId, address),
    INTERACTION_TYPES,
    { endpointHash: row.endpoint_hash, responseHash: row.response_hash },
  );
  // The endpoint text is unique per interaction (its id in the fragment), so a log cannot collide
  // with another one; a reverted log is a fault to surface, not to retry.
  const slot = { executionId: `api_${id}`, actionIndex: 0, slot: "log" };
  const { sent, event: logged } = await callRegistry(
    new TxJournal(store),
    target,
    slot,
    ["logAPIInteraction", [row.endpoint, row.response, sig]],
    "APILogged",
  );
  if (!logged) throw new Error(`logAPIInteraction ${sent.hash} emitted no APILogged`);
  await store.query(
    `UPDATE integration_interactions
        SET anchor_state = 'anchored', request_id = $2, signature = $3, tx_hash = $4, block_number = $5, anchored_at = now()
      WHERE id = $1`,
    [
      id,
      logged.args.getValue("requestId"),
      logged.args.getValue("sig"),
      sent.hash,
      sent.receipt.blockNumber,
    ],
  );
  const [done] = await store.query<InteractionRow>(
    `SELECT ${COLUMNS} FROM integration_interactions WHERE id = $1`,
    [id],
  );
  return done!;
}

/**
 * Sends (or resumes, from the journal) the operator's registry call under `slot` and reads the
 * event `event` it emitted (undefined when none); a reverted call throws.
 */
async function callRegistry(
  journal: TxJournal,
  target: AnchorTarget,
  slot: TxSlot,
  [fn, args]: [string, unknown[]],
  event: string,
): Promise<{ sent: SentTx; event: LogDescription | null | undefined }> {
  const { chain, registry, address } = target;
  const data = registry.interface.encodeFunctionData(fn, args);
  const sent = await journal.sendCall(
    chain,
    operator(chain),
    slot,
    "attest",
    { to: address, data },
    { units: GAS_UNITS },
  );
  if (sent.status !== "confirmed") throw new Error(`${fn} ${sent.hash} reverted on ${chain.name}`);
  const found = sent.receipt.logs.map((l) => parse(registry, l)).find((e) => e?.name === event);
  return { sent, event: found };
}

function parse(registry: Contract, log: Log) {
  try {
    return registry.interface.parseLog(log);
  } catch {
    return null;
  }
}

/**
 * Builds the next batch of `integration` when due (its oldest pending interaction is at least
 * `intervalMs` old at `nowMs`, or `force`), then anchors it. Returns the batch id, or null when
 * nothing was due. Interactions are assigned to the batch in the transaction that builds it.
 */
export async function anchorDueBatch(
  store: EngineStore,
  target: AnchorTarget,
  integration: string,
  options: { nowMs: number; intervalMs: number; force?: boolean },
): Promise<number | null> {
  const built = await store.transaction(async (tx) => {
    const rows = await tx.query<{
      id: string;
      endpoint_hash: string;
      response_hash: string;
      observed_at: string;
    }>(
      `SELECT id, endpoint_hash, response_hash, observed_at FROM integration_interactions
        WHERE integration = $1 AND mode = 'batch' AND batch_id IS NULL AND chain_id = $2
        ORDER BY id FOR UPDATE`,
      [integration, target.chain.chainId],
    );
    if (rows.length === 0) return null;
    const oldestMs = Math.min(...rows.map((r) => Number(r.observed_at))) * 1000;
    if (!options.force && oldestMs + options.intervalMs > options.nowMs) return null;
    const values = rows.map((r) => [r.endpoint_hash, r.response_hash, BigInt(r.observed_at)]);
    const tree = StandardMerkleTree.of(values, LEAF_TYPES);
    const [batch] = await tx.query<{ id: string }>(
      `INSERT INTO integration_batches (integration, chain_id, registry, root, count, uri)
       VALUES ($1, $2, $3, $4, $5, $6) RETURNING id`,
      [
        integration,
        target.chain.chainId,
        target.address,
        tree.root,
        rows.length,
        `veriflow:integration-batch/${integration}/${tree.root}`,
      ],
    );
    for (const [i, r] of rows.entries()) {
      await tx.query(
        "UPDATE integration_interactions SET batch_id = $2, leaf_index = $3, leaf_proof = $4::jsonb WHERE id = $1",
        [r.id, batch!.id, i, JSON.stringify(tree.getProof(i))],
      );
    }
    return Number(batch!.id);
  });
  if (built === null) return null;
  await sendBatch(store, target, built);
  return built;
}

/** Sends (or resumes) every built batch not yet anchored on `target`'s chain (after a restart). */
export async function resumeBatches(store: EngineStore, target: AnchorTarget): Promise<number[]> {
  const rows = await store.query<{ id: string }>(
    "SELECT id FROM integration_batches WHERE state = 'built' AND chain_id = $1 ORDER BY id",
    [target.chain.chainId],
  );
  for (const r of rows) await sendBatch(store, target, Number(r.id));
  return rows.map((r) => Number(r.id));
}

async function sendBatch(store: EngineStore, target: AnchorTarget, batchId: number): Promise<void> {
  const [batch] = await store.query<{ root: string; count: number; uri: string; state: string }>(
    "SELECT root, count, uri, state FROM integration_batches WHERE id = $1",
    [batchId],
  );
  if (!batch || batch.state === "anchored") return;
  const { chain, registry } = target;
  const journal = new TxJournal(store);
  const slot = { executionId: `ib_${batchId}`, actionIndex: 0, slot: "anchor" };
  if (!(await journal.find(slot))) {
    const existing = (await registry.getFunction("batchOf")(batch.root)) as { batchId: bigint };
    if (existing.batchId !== 0n) {
      // Anchored outside this batch's journal (never by this relayer twice): record that anchor.
      const [log] = (await registry.queryFilter(
        registry.filters.BatchAnchored!(existing.batchId),
        chain.deployment.contracts[PROOF_REGISTRY]!.blockNumber,
      )) as EventLog[];
      return markBatch(store, batchId, {
        hash: log!.transactionHash,
        blockNumber: log!.blockNumber,
        onchainId: existing.batchId,
      });
    }
  }
  const { sent, event } = await callRegistry(
    journal,
    target,
    slot,
    ["anchorBatch", [batch.root, batch.count, batch.uri]],
    "BatchAnchored",
  );
  const anchored = {
    hash: sent.hash,
    blockNumber: sent.receipt.blockNumber,
    onchainId: (event?.args.getValue("batchId") as bigint | undefined) ?? 0n,
  };
  await markBatch(store, batchId, anchored);
}

async function markBatch(
  store: EngineStore,
  batchId: number,
  a: { hash: string; blockNumber: number; onchainId: bigint },
): Promise<void> {
  await store.transaction(async (tx) => {
    await tx.query(
      `UPDATE integration_batches SET state = 'anchored', tx_hash = $2, block_number = $3, onchain_id = $4, anchored_at = now()
        WHERE id = $1`,
      [batchId, a.hash, a.blockNumber, a.onchainId.toString()],
    );
    await tx.query(
      `UPDATE integration_interactions SET anchor_state = 'anchored', tx_hash = $2, block_number = $3, anchored_at = now()
        WHERE batch_id = $1`,
      [batchId, a.hash, a.blockNumber],
    );
  });
}

/** An interaction as reported (final report `api_interactions`, the interactions endpoint). */
export interface InteractionView extends Pick<
  InteractionRow,
  | "integration"
  | "action_index"
  | "method"
  | "endpoint"
  | "endpoint_hash"
  | "response_hash"
  | "http_status"
  | "chain_id"
  | "registry"
  | "mode"
  | "request_id"
  | "signature"
  | "tx_hash"
> {
  id: number;
  observed_at: number;
  status: InteractionRow["anchor_state"];
  batch: { root: string; leaf_index: number; proof: string[]; batch_id: number | null } | null;
  block_number: number | null;
}

export async function listInteractions(
  store: EngineStore,
  where: { executionId: string } | { ids: number[] },
): Promise<InteractionView[]> {
  const rows = await store.query<
    InteractionRow & { root: string | null; onchain_id: string | null }
  >(
    `SELECT ${COLUMNS.split(",")
      .map((c) => `i.${c.trim()}`)
      .join(", ")}, b.root, b.onchain_id
       FROM integration_interactions i LEFT JOIN integration_batches b ON b.id = i.batch_id
      WHERE ${"executionId" in where ? "i.execution_id = $1" : "i.id = ANY($1)"} ORDER BY i.id`,
    ["executionId" in where ? where.executionId : where.ids],
  );
  return rows.map((r) => ({
    id: Number(r.id),
    integration: r.integration,
    action_index: r.action_index,
    method: r.method,
    endpoint: r.endpoint,
    endpoint_hash: r.endpoint_hash,
    response_hash: r.response_hash,
    http_status: r.http_status,
    observed_at: Number(r.observed_at),
    chain_id: r.chain_id,
    registry: r.registry,
    mode: r.mode,
    status: r.anchor_state,
    request_id: r.request_id,
    signature: r.signature,
    batch:
      r.mode === "batch" && r.root
        ? {
            root: r.root,
            leaf_index: r.leaf_index ?? 0,
            proof:
              (typeof r.leaf_proof === "string" ? JSON.parse(r.leaf_proof) : r.leaf_proof) ?? [],
            batch_id: r.onchain_id === null ? null : Number(r.onchain_id),
          }
        : null,
    tx_hash: r.tx_hash,
    block_number: r.block_number === null ? null : Number(r.block_number),
  }));
}

/**
 * Immediate interactions still pending: of one execution (its report), or, for the anchoring job,
 * those older than `graceSeconds` (a call anchors its own interaction right after recording it;
 * the job only takes over what a crash left behind).
 */
export async function pendingImmediate(
  store: EngineStore,
  filter: { executionId: string } | { graceSeconds: number },
): Promise<Array<{ id: number; chain_id: number; registry: string }>> {
  const byExecution = "executionId" in filter;
  const rows = await store.query<{ id: string; chain_id: number; registry: string }>(
    `SELECT id, chain_id, registry FROM integration_interactions
      WHERE mode = 'immediate' AND anchor_state = 'pending'
        AND ${byExecution ? "execution_id = $1" : "created_at < now() - make_interval(secs => $1)"}
      ORDER BY id`,
    [byExecution ? filter.executionId : filter.graceSeconds],
  );
  return rows.map((r) => ({ id: Number(r.id), chain_id: r.chain_id, registry: r.registry }));
}
