import type { Registry } from "prom-client";
import type { ComplianceScreen } from "../agents/index.ts";
import { JOB_NAMES, type Queue } from "../queue/index.ts";
import type { RoutingChain } from "../routing/index.ts";
import {
  anchorDueBatch,
  anchorImmediate,
  anchorTarget,
  listInteractions,
  pendingImmediate,
  resumeBatches,
  type AnchorTarget,
  type InteractionView,
} from "./anchor.ts";
import { gatewayAddress, OnChainBreaker } from "./breaker.ts";
import { IntegrationClient, type ClientDeps } from "./client.ts";
import type { IntegrationsConfig } from "../config/index.ts";
import { IntegrationHealth } from "./health.ts";
import { providerScreen } from "./screening.ts";
import { settleServiceFee, type PaymentReceiptView } from "./payments.ts";
import {
  fetchPayableOrders,
  settleOrders,
  settlementKey,
  type FetchedOrders,
  type PayableOrder,
  type SettledOrder,
  type UnsettledOrder,
} from "./orders.ts";
import type { RecipientsFrom } from "../model/index.ts";

export { IntegrationClient } from "./client.ts";
// All of orders.ts is the area's surface: the orders a multisend pays and their settlement.
export * from "./orders.ts";
export { IntegrationError } from "./errors.ts";
export {
  loadIntegrationsFile,
  parseIntegrations,
  IntegrationsConfigError,
} from "../config/index.ts";
export type { IntegrationsConfig, IntegrationConfig } from "../config/index.ts";
export { verifyInteractionOnChain } from "./verify.ts";
export { listInteractions, type InteractionView } from "./anchor.ts";
export { putCredential, signingPublicKey } from "./vault.ts";
export { IntegrationHealth, DISABLE_AFTER_UNAUTHORIZED } from "./health.ts";
export type { IntegrationAlertView, NodeState } from "./health.ts";

/** What every client is given (`ClientDeps`), plus the chains its targets resolve against. */
export interface IntegrationsDeps extends Pick<
  ClientDeps,
  "store" | "masterKey" | "logger" | "clock" | "fetch" | "sleep" | "env"
> {
  chains: { list(): readonly RoutingChain[] };
  /** The process's metrics registry (alerts, disabled nodes). */
  metrics?: Registry;
}

/**
 * The configured integrations of one process: a client per named system (each with its anchor
 * target and on-chain breaker resolved against the chains), the screening provider as a compliance
 * source, the batch anchoring job and the interactions of an execution for its report.
 */
export class Integrations {
  readonly config: IntegrationsConfig;
  private readonly deps: IntegrationsDeps;
  private readonly clients = new Map<string, IntegrationClient>();
  private readonly targets = new Map<string, AnchorTarget>();
  /** Node states and alerts, shared through the database. */
  readonly health: IntegrationHealth;

  constructor(config: IntegrationsConfig, deps: IntegrationsDeps) {
    this.config = config;
    this.deps = deps;
    this.health = new IntegrationHealth(deps.store, deps.logger, deps.metrics);
    const chains = deps.chains.list();
    for (const [name, cfg] of Object.entries(config.integrations)) {
      const target = anchorTarget(chains, cfg.validation.anchor);
      this.targets.set(name, target);
      const clientDeps: ClientDeps = {
        store: deps.store,
        masterKey: deps.masterKey,
        logger: deps.logger,
        target,
        breaker: new OnChainBreaker(deps.store, target.chain, gatewayAddress(cfg)),
        health: this.health,
        clock: deps.clock,
        fetch: deps.fetch,
        sleep: deps.sleep,
        env: deps.env,
        ...(cfg.fallback ? { fallback: () => this.client(cfg.fallback!) } : {}),
      };
      this.clients.set(name, new IntegrationClient(cfg, clientDeps));
    }
  }

  client(name: string): IntegrationClient {
    const client = this.clients.get(name);
    if (!client) throw new Error(`integration ${name} is not configured`);
    return client;
  }

  /** The screening provider as a compliance source, or null when none is configured. */
  screen(): ComplianceScreen | null {
    const screening = this.config.screening;
    if (!screening) return null;
    return providerScreen(this.client(screening.integration), {
      required: screening.required,
      logger: this.deps.logger,
    });
  }

  /**
   * Anchors what is due: pending immediate interactions an interrupted call left (older than
   * `graceSeconds`, default 120: a live call anchors its own), built batches a restart left, and each batched integration's next batch once its oldest interaction is
   * `interval` old (`force`: now). Returns the batch ids anchored.
   */
  async anchorDue(options: { force?: boolean; graceSeconds?: number } = {}): Promise<number[]> {
    const now = (this.deps.clock ?? Date.now)();
    const anchored: number[] = [];
    for (const p of await pendingImmediate(this.deps.store, {
      graceSeconds: options.graceSeconds ?? 120,
    })) {
      const target = [...this.targets.values()].find(
        (t) =>
          t.chain.chainId === p.chain_id && t.address.toLowerCase() === p.registry.toLowerCase(),
      );
      if (target) await anchorImmediate(this.deps.store, target, p.id);
    }
    const seen = new Set<number>();
    for (const target of this.targets.values()) {
      if (seen.has(target.chain.chainId)) continue;
      seen.add(target.chain.chainId);
      anchored.push(...(await resumeBatches(this.deps.store, target)));
    }
    for (const [name, cfg] of Object.entries(this.config.integrations)) {
      if (cfg.validation.anchor.intervalMs === 0) continue;
      const id = await anchorDueBatch(this.deps.store, this.targets.get(name)!, name, {
        nowMs: now,
        intervalMs: cfg.validation.anchor.intervalMs,
        force: options.force,
      });
      if (id !== null) anchored.push(id);
    }
    return anchored;
  }

  /**
   * The service fee of a completed execution (`payments` configured): settled through the payment
   * gateway, then an ERC-7641 receipt issued to the key's relayer-managed account, exactly once.
   * Null when no payments are configured.
   */
  async settle(input: {
    executionId: string;
    apiKeyId: string;
  }): Promise<PaymentReceiptView | null> {
    const payments = this.config.payments;
    if (!payments) return null;
    const [account] = await this.deps.store.query<{ address: string }>(
      "SELECT address FROM engine_accounts WHERE api_key_id = $1",
      [input.apiKeyId],
    );
    if (!account) throw new Error(`no relayer-managed account for API key ${input.apiKeyId}`);
    return settleServiceFee(
      {
        store: this.deps.store,
        client: this.client(payments.integration),
        chains: this.deps.chains,
      },
      {
        executionId: input.executionId,
        recipient: account.address,
        amount: payments.serviceFee,
        currency: payments.currency,
      },
    );
  }

  /**
   * The orders a `recipients_from` names, fetched for an execution's multisend (signed, with
   * `X-Blockchain-Proof: true`, HMAC and pinned schema checked, the interaction anchored).
   */
  fetchOrders(
    spec: RecipientsFrom,
    context: { executionId: string; actionIndex: number; asset: string },
  ): Promise<FetchedOrders> {
    return fetchPayableOrders(this.client(spec.integration), spec, context);
  }

  /**
   * Settles orders an execution paid on chain with the payment gateway (`payments.integration`),
   * each exactly once; without a payments integration every order is listed unsettled.
   */
  async settleOrders(
    input: { executionId: string; orders: PayableOrder[]; currency: string },
    hooks: { onAnswered?: (orderId: string) => void } = {},
  ): Promise<{ settled: SettledOrder[]; unsettled: UnsettledOrder[] }> {
    const payments = this.config.payments;
    if (!payments) {
      return {
        settled: [],
        unsettled: input.orders.map((o) => ({
          order_id: o.id,
          settlement_key: settlementKey(input.executionId, o.id),
          error: "no payments integration is configured (payments.integration)",
        })),
      };
    }
    return settleOrders(
      { store: this.deps.store, client: this.client(payments.integration) },
      input,
      hooks,
    );
  }

  /** The response text and hash of an interaction exactly as received (what was anchored). */
  async interactionResponse(id: number): Promise<{ response: string; response_hash: string }> {
    const [row] = await this.deps.store.query<{ response: string; response_hash: string }>(
      "SELECT response, response_hash FROM integration_interactions WHERE id = $1",
      [id],
    );
    if (!row) throw new Error(`no interaction ${id}`);
    return row;
  }

  /**
   * The interactions of an execution for its final report: pending immediate ones are anchored
   * first (a run interrupted between a call and its anchor); batched ones not yet due are listed
   * `pending` with their hashes (their root and proof come later from the interactions endpoint).
   */
  async forReport(executionId: string): Promise<InteractionView[]> {
    for (const p of await pendingImmediate(this.deps.store, { executionId })) {
      const target = [...this.targets.values()].find((t) => t.chain.chainId === p.chain_id);
      if (target) await anchorImmediate(this.deps.store, target, p.id);
    }
    return listInteractions(this.deps.store, { executionId });
  }
}

/**
 * The anchoring job: pg-boss cron every minute (in whichever process runs the schedule) anchors
 * batches that came due and anything a restart left pending. The composition root starts it.
 */
export async function startIntegrationJobs(
  queue: Pick<Queue, "work" | "schedule">,
  integrations: Integrations,
): Promise<void> {
  await queue.work(JOB_NAMES.integrationsAnchor, async () => ({
    batches: await integrations.anchorDue(),
  }));
  await queue.schedule(JOB_NAMES.integrationsAnchor, "* * * * *", {});
}

export { anchorTarget } from "./anchor.ts";
export type { AnchorTarget } from "./anchor.ts";
export { CIRCUIT_BREAKER, OnChainBreaker, gatewayAddress } from "./breaker.ts";
export type { MonitorConfig, RetryPolicy, TextAnalysisConfig } from "../config/index.ts";
export { interactionSchema } from "./interaction-schema.ts";
export { AttemptFailure, isRetryable, parseRetryAfter, retryDelays } from "./retry.ts";
export { exchange, type Exchange } from "./exchange.ts";
export { MONITORED_COLLECTIONS } from "../config/index.ts";
export { readCredential } from "./vault.ts";
