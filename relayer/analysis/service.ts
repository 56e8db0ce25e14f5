import { createHash, createSecretKey, randomBytes, type KeyObject } from "node:crypto";
import type { Logger } from "pino";
import { Counter, Histogram, type Registry } from "prom-client";
import { decryptSecret, encryptSecret } from "../auth/index.ts";
import type { ReportAnalysis } from "../report/index.ts";
import { ApiError, IDEMPOTENCY_TTL_HOURS, idempotencyKeyReused } from "../http/index.ts";
import {
  anchorTarget,
  type AnchorTarget,
  CIRCUIT_BREAKER,
  gatewayAddress,
  OnChainBreaker,
  type TextAnalysisConfig,
  readCredential,
  IntegrationError,
} from "../integrations/index.ts";
import type { RoutingChain } from "../routing/index.ts";
import { Batcher, type Store } from "../store/index.ts";
import { ulid } from "../model/index.ts";
import {
  anchorAuditHead,
  listAudit,
  listLinks,
  verifyAuditChain,
  type AuditEntry,
  type AuditHead,
  type AuditRecord,
  type ChainVerification,
} from "./audit.ts";
import { AnalysisProvider, ProviderError, type ProviderFailure } from "./provider.ts";
import {
  DEFAULT_REDACTION,
  quotedPlaceholders,
  RedactionError,
  restore,
  sumCounts,
  type RedactionOptions,
} from "./redaction.ts";
import { inlineRedactor, RedactionPool, type Redactor } from "./redaction-pool.ts";
import { routeText, type RouteDecision } from "./routing.ts";
import { RulesError } from "./rules.ts";
import {
  analysesOfWorkflow,
  claimIdempotencyKeys,
  findAnalysis,
  pruneAnalyses,
  recordIncident,
  releaseIdempotencyKey,
  storeAnalyses,
  takeTokens,
  type AnalysisRow,
  type BucketDecision,
  type ClaimedKey,
  type FinishedAnalysis,
  type KeyClaim,
  type KeyHolder,
} from "./store.ts";
import { CONTRACT_NAMES } from "../deployments/index.ts";

/**
 * The text-analysis use cases: analyse a text (redact → bias pre-check → route → complete, with
 * fallback → output checks → encrypt → audit), read an analysis back for its owner, list a key's
 * audit records, and the scheduled work on the audit chain (anchor, prune).
 */
export interface AnalysisView {
  analysis_id: string;
  workflow_id: string | null;
  model: string;
  model_version: string;
  /** Why this model: `nda`, `short`, `long`, or `fallback` (then `fallback_reason`). */
  route: RouteDecision["reason"] | "fallback";
  fallback_reason: string | null;
  output: string;
  redactions: Array<{ type: string; count: number }>;
  compliance_checks: AuditRecord["compliance_checks"];
  alerts: Array<{ type: string; detail: string }>;
  audit_id: string;
  created_at: string;
}

export interface AnalysisRequest {
  apiKeyId: string;
  text: string;
  instructions?: string;
  workflowId?: string;
  /** The request's `Idempotency-Key` (checked) and what identifies the request (its hash). */
  idempotency?: { key: string; requestHash: string };
}

export interface TextAnalysisDeps {
  store: Store;
  masterKey: Buffer;
  logger: Logger;
  registry: Registry;
  chains: readonly RoutingChain[];
  clock?: () => number;
  sleep?: (ms: number) => Promise<void>;
  env?: Record<string, string | undefined>;
  /**
   * Where personal data is found and the legal rules run (default: a pool of `redaction_threads`
   * worker threads, small texts on the event loop while no other analysis is in flight but the
   * rules always in a thread, or the event loop when 0 and no rules; tests replace it to prove
   * that a failing one sends nothing).
   */
  redactor?: Redactor;
}

const SYSTEM_PROMPT =
  "You review legal and compliance texts (contracts, NDAs, payment instructions). Bracketed placeholders such as [NAME_1] stand for redacted personal data: keep them as they are.";
const CLM_ADVICE =
  "update the legal rule sets (text_analysis.rules) if the rule is outdated, or send the text to a manual audit";
const BREAKER_CACHE_MS = 1_000;
const STAGE_METRIC = "veriflow_analysis_stage_seconds";
/** The stages of an analysis that `veriflow_analysis_stage_seconds` times, in their order. */
export const ANALYSIS_STAGES = [
  "idempotency",
  "admission",
  "bias_check",
  "completion",
  "output_checks",
  "store",
] as const;
type AnalysisStage = (typeof ANALYSIS_STAGES)[number];
const CREDENTIAL_CACHE_MS = 1_000;
const BUCKET = "text_analysis";
const IDEMPOTENCY_TTL_MS = IDEMPOTENCY_TTL_HOURS * 3_600_000;
/** Beyond the provider's calls: admission, scans, the store's batch, a loaded machine. */
const ANALYSIS_SLACK_MS = 60_000;

export class TextAnalysis {
  readonly config: TextAnalysisConfig;
  readonly target: AnchorTarget;
  readonly breaker: OnChainBreaker;
  private readonly deps: TextAnalysisDeps;
  private readonly provider: AnalysisProvider;
  private readonly redaction: RedactionOptions;
  private readonly redactor: Redactor;
  private readonly clmViolations: Counter<"kind">;
  private readonly ruleTimeouts: Counter<"kind">;
  private readonly stageSeconds: Histogram<"stage">;
  /** The circuit's state as last read from the chain, and the read under way. */
  private breakerState: { open: boolean; at: number } | null = null;
  private breakerRead: Promise<boolean> | null = null;
  private credential: { value: string; at: number } | null = null;
  private readonly reports = new Set<Promise<unknown>>();
  /** The requests arriving together take their tokens in one statement. */
  private readonly tokens: Batcher<null, BucketDecision>;
  /** The Idempotency-Keys of requests arriving together are claimed in one statement. */
  private readonly claims: Batcher<KeyClaim, KeyHolder | null | undefined>;
  /** The analyses finishing together are audited and stored in one transaction. */
  private readonly records: Batcher<FinishedAnalysis, AnalysisRow>;
  /** The chain's head as this process last wrote it (the next write expects it still is). */
  private auditHead: AuditHead | null = null;
  /** The master key imported once: each analysis encrypts two blobs under it. */
  private readonly blobKey: KeyObject;

  constructor(config: TextAnalysisConfig, deps: TextAnalysisDeps) {
    this.config = config;
    this.deps = deps;
    this.blobKey = createSecretKey(deps.masterKey);
    try {
      this.target = anchorTarget(deps.chains, {
        contract: CONTRACT_NAMES.proofRegistry,
        chain: config.audit.chain,
      });
    } catch (err) {
      // Named by the key that chose it (anchorTarget speaks of the integrations' blockchain_anchor).
      throw new Error(
        config.audit.chain
          ? `text_analysis.audit.chain ${config.audit.chain} is not a configured chain with a ProofRegistry (chains: ${deps.chains.map((c) => c.name).join(", ")})`
          : `text_analysis: ${(err as Error).message}`,
        { cause: err },
      );
    }
    this.breaker = new OnChainBreaker(
      deps.store,
      this.target.chain,
      gatewayAddress({ url: config.apiEndpoint, gateway: config.gateway }),
    );
    this.provider = new AnalysisProvider(config, {
      apiKey: () => this.apiKey(),
      sleep: deps.sleep,
    });
    this.redactor =
      deps.redactor ??
      (config.redactionThreads > 0
        ? new RedactionPool(
            config.redactionThreads,
            config.rules ? { rules: config.rules, timeoutMs: config.rulesTimeoutMs } : undefined,
          )
        : inlineRedactor);
    // The configuration refuses rules without threads; a redactor given without them would skip
    // every rule silently.
    if (config.rules && !this.redactor.checksRules)
      throw new Error(
        "text_analysis.rules needs a redactor that checks them (text_analysis.redaction_threads of 1 or more)",
      );
    this.redaction = {
      cryptoAddresses: config.security.redactCryptoAddresses,
      phoneRegions: config.security.phoneRegions ?? DEFAULT_REDACTION.phoneRegions,
    };
    const counter = (name: string, help: string) =>
      (deps.registry.getSingleMetric(name) as Counter<"kind"> | undefined) ??
      new Counter({ name, help, labelNames: ["kind"], registers: [deps.registry] });
    this.clmViolations = counter(
      "veriflow_analysis_clm_violations_total",
      "CLM rule violations found in text-analysis outputs, by document kind",
    );
    this.ruleTimeouts = counter(
      "veriflow_analysis_rule_timeouts_total",
      "Legal-rule checks stopped at text_analysis.rules_timeout, by the rule set running",
    );
    this.stageSeconds =
      (deps.registry.getSingleMetric(STAGE_METRIC) as Histogram<"stage"> | undefined) ??
      new Histogram({
        name: STAGE_METRIC,
        help: "Time of each stage of POST /v1/analysis: idempotency (claiming the Idempotency-Key, or reading the analysis it replays; only with a key), admission (rate limit, input redaction, circuit), bias_check and completion (the provider), output_checks (output scan and its bias score), store (the durable audit record and analysis)",
        labelNames: ["stage"],
        buckets: [0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
        registers: [deps.registry],
      });
    this.tokens = new Batcher(async (items) => {
      const taken = await takeTokens(
        deps.store,
        BUCKET,
        config.rateLimit,
        items.length,
        this.now(),
      );
      return items.map((_, i) => ({
        ok: true,
        value: i < taken.granted ? { granted: 1, retryAfterSeconds: 0 } : { ...taken, granted: 0 },
      }));
    });
    this.claims = new Batcher(async (items) => {
      const now = this.now();
      const holders = await claimIdempotencyKeys(
        deps.store,
        items,
        new Date(now - IDEMPOTENCY_TTL_MS).toISOString(),
        new Date(now - this.abandonedClaimMs).toISOString(),
      );
      return holders.map((value) => ({ ok: true, value }));
    });
    this.records = new Batcher(async (items) => {
      const stored = await storeAnalyses(deps.store, this.auditHead, items);
      this.auditHead = stored.head;
      return stored.rows.map((value) => ({ ok: true, value }));
    });
  }

  /**
   * The provider's API key, read from the vault at most once per CREDENTIAL_CACHE_MS (each analysis
   * makes three calls; a local vault costs a query and a decryption per read). Real time, not the
   * service's clock (tests stop that one): a rotated credential is in use within that time.
   */
  private async apiKey(): Promise<string> {
    const now = performance.now();
    if (this.credential && now - this.credential.at < CREDENTIAL_CACHE_MS)
      return this.credential.value;
    const { store, masterKey, env } = this.deps;
    let value: string;
    try {
      value = await readCredential(store, masterKey, "text_analysis", this.config.auth, env);
    } catch (err) {
      // The relayer's configuration, not the provider: no retry, no fallback, no breaker report.
      if (!(err instanceof IntegrationError)) throw err;
      throw new ApiError(
        503,
        "ANALYSIS_NOT_CONFIGURED",
        `the text-analysis provider's API key is unavailable: ${err.detail}; nothing was sent`,
      );
    }
    this.credential = { value, at: now };
    return value;
  }

  /** Runs one stage of an analysis and records its time, whatever its outcome. */
  private async timed<T>(stage: AnalysisStage, run: () => Promise<T>): Promise<T> {
    const started = performance.now();
    try {
      return await run();
    } finally {
      this.stageSeconds.observe({ stage }, (performance.now() - started) / 1000);
    }
  }

  private now(): number {
    return (this.deps.clock ?? Date.now)();
  }

  async analyze(request: AnalysisRequest): Promise<AnalysisView> {
    const { store, logger } = this.deps;
    if (request.workflowId) {
      const [wf] = await store.query(
        "SELECT 1 FROM workflow_executions WHERE id = $1 AND api_key_id = $2",
        [request.workflowId, request.apiKeyId],
      );
      if (!wf)
        throw new ApiError(
          404,
          "WORKFLOW_NOT_FOUND",
          `no workflow ${request.workflowId} for this API key`,
        );
    }
    if (!request.idempotency) return this.run(request, null);
    const idempotency = request.idempotency;
    const claimed = await this.timed("idempotency", () =>
      this.claim(request.apiKeyId, idempotency),
    );
    if (!("claim" in claimed)) return claimed;
    try {
      return await this.run(request, claimed);
    } catch (err) {
      // Nothing was stored: after a refusal or a failure the key is free again for a retry.
      await releaseIdempotencyKey(store, claimed).catch((releaseErr: unknown) =>
        logger.error(
          { err: releaseErr },
          "releasing an Idempotency-Key failed; it is free once its claim is abandoned",
        ),
      );
      throw err;
    }
  }

  /**
   * How long a claimed key waits for its analysis before another request may take it over: every
   * provider call of one analysis (two scores, a completion and the fallback's) through all of
   * their attempts, the legal rules' limit, and slack. Only a process that stopped mid-analysis
   * leaves a claim that old.
   */
  get abandonedClaimMs(): number {
    return 4 * this.provider.longestCallMs() + this.config.rulesTimeoutMs + ANALYSIS_SLACK_MS;
  }

  /**
   * The key for this request: claimed (it runs), or the stored analysis of the earlier request
   * with the same key and body (replayed, nothing sent), or a 409 for another body or while the
   * earlier request still runs.
   */
  private async claim(
    apiKeyId: string,
    idempotency: NonNullable<AnalysisRequest["idempotency"]>,
  ): Promise<ClaimedKey | AnalysisView> {
    for (let attempt = 0; attempt < 3; attempt++) {
      const claim: ClaimedKey = {
        apiKeyId,
        key: idempotency.key,
        claim: randomBytes(16).toString("base64url"),
      };
      const holder = await this.claims.submit({
        ...claim,
        requestHash: idempotency.requestHash,
        at: new Date(this.now()).toISOString(),
      });
      if (holder === null) return claim;
      if (holder === undefined) continue;
      if (holder.requestHash !== idempotency.requestHash)
        throw idempotencyKeyReused(idempotency.key);
      if (holder.state === "answered") return this.opened(holder.analysis);
      break;
    }
    throw new ApiError(
      409,
      "IDEMPOTENCY_KEY_IN_USE",
      `a request with Idempotency-Key "${idempotency.key}" and this body is still running; retry to receive its analysis once it has finished`,
      { retry_in: 1 },
      { "Retry-After": "1" },
    );
  }

  private async run(request: AnalysisRequest, key: ClaimedKey | null): Promise<AnalysisView> {
    const { store, logger } = this.deps;
    // The shared bucket (a database statement), the redaction (a worker thread) and the circuit's
    // state run at the same time: nothing leaves before all three allowed it, and their refusals
    // keep this order (rate limit, redaction, circuit).
    const [bucket, input, circuit] = await this.timed("admission", () =>
      Promise.allSettled([this.tokens.submit(null), this.redactInput(request), this.circuitOpen()]),
    );
    if (bucket.status === "rejected") throw bucket.reason;
    if (bucket.value.granted === 0)
      throw new ApiError(
        429,
        "RATE_LIMITED",
        `the text-analysis integration allows ${this.config.rateLimit.rpm} requests per minute (burst ${this.config.rateLimit.burst}) across all relayer processes`,
        { retry_in: bucket.value.retryAfterSeconds },
        { "Retry-After": String(bucket.value.retryAfterSeconds) },
      );
    if (input.status === "rejected") throw input.reason;
    if (circuit.status === "rejected") throw circuit.reason;
    if (circuit.value) await this.refuseOpen();
    const { redacted, instructions } = input.value;
    const placeholders = instructions?.placeholders ?? redacted.placeholders;
    const inputSha256 = createHash("sha256").update(request.text, "utf8").digest("hex");

    // The instructions go to the model with the text: they are scored with it, in the same call.
    const scored = instructions ? `${instructions.text}\n\n${redacted.text}` : redacted.text;
    const score = await this.timed("bias_check", () =>
      this.guard(() => this.provider.biasScore(scored)),
    );
    if (score > this.config.biasThreshold) {
      await recordIncident(store, {
        apiKeyId: request.apiKeyId,
        kind: "bias_rejected",
        inputSha256,
        score,
        threshold: this.config.biasThreshold,
        at: new Date(this.now()).toISOString(),
      });
      logger.warn(
        {
          incident: "bias_rejected",
          input_sha256: inputSha256,
          score,
          threshold: this.config.biasThreshold,
        },
        "text-analysis input rejected by the bias pre-check",
      );
      throw new ApiError(
        422,
        "BIAS_REJECTED",
        `the provider's bias score of the input (${score}) is above the threshold ${this.config.biasThreshold}; nothing was sent for analysis`,
      );
    }

    const route = routeText(request.text, this.config.models);
    const messages = [
      { role: "system", content: SYSTEM_PROMPT },
      ...(instructions ? [{ role: "system", content: instructions.text }] : []),
      { role: "user", content: redacted.text },
    ];
    const { completion, model, fallbackReason } = await this.timed("completion", async () => {
      try {
        return {
          completion: await this.guard(() => this.provider.complete(route.model, messages)),
          model: route.model,
          fallbackReason: null,
        };
      } catch (err) {
        if (!(err instanceof ApiError) || err.code !== "ANALYSIS_PROVIDER_UNAVAILABLE") throw err;
        const fallback = this.config.fallbackModel;
        logger.warn(
          { model: route.model, fallback, reason: err.extra.reason },
          "text analysis falls back",
        );
        return {
          completion: await this.guard(() => this.provider.complete(fallback, messages)),
          model: fallback,
          fallbackReason: `${route.model}: ${String(err.extra.reason)}`,
        };
      }
    });

    // Output checks: personal data the model wrote (not a placeholder), the legal rules (both in
    // one job of a worker thread), UBEN. The thread's job and the bias score of the answer (the
    // provider) run at the same time: the score is asked for the provider's own answer, which
    // holds nothing it did not write (a leak fails UBEN whatever the score, so the redacted output
    // needs no score).
    const [scanned, answerScore] = await this.timed("output_checks", () =>
      Promise.allSettled([
        this.scan(() =>
          this.redactor.checkOutput(completion.content, request.text, this.redaction),
        ),
        this.guard(() => this.provider.biasScore(completion.content)),
      ]),
    );
    if (scanned.status === "rejected") throw scanned.reason;
    if (answerScore.status === "rejected") throw answerScore.reason;
    const { leaks, violations } = scanned.value;
    const leakage = leaks.length > 0;
    const output = leakage
      ? await this.scan(() =>
          this.redactor.redact(completion.content, this.redaction, placeholders),
        )
      : { text: completion.content, placeholders };
    const checks: AuditRecord["compliance_checks"] = {
      clm_violations: violations.length,
      uben_compliance:
        answerScore.value <= this.config.biasThreshold && !leakage ? "passed" : "failed",
      pii_leakage: leakage,
    };
    const alerts: AnalysisView["alerts"] = [];
    if (violations.length) {
      for (const v of violations) this.clmViolations.inc({ kind: v.kind });
      alerts.push({
        type: "CLM Rule Violation",
        detail: `${violations.map((v) => `${v.kind}: ${v.rule} /${v.pattern}/`).join("; ")}: ${CLM_ADVICE}`,
      });
    }
    if (leakage)
      alerts.push({
        type: "PII Leakage",
        detail: `the model's output held ${leaks.length} piece(s) of personal data (${[...new Set(leaks.map((l) => l.type))].join(", ")}); they were redacted`,
      });
    // Only the client's own values come back: what the model wrote stays redacted (its
    // placeholders are in output.placeholders alone), whoever's data it was.
    const returned = this.config.security.restorePlaceholders
      ? restore(output.text, placeholders)
      : output.text;

    const id = `an_${ulid(this.now())}`;
    const providerTokens = completion.promptTokens + completion.completionTokens;
    const record: AuditRecord = {
      timestamp: new Date(this.now()).toISOString(),
      model: completion.modelVersion,
      input_sha256: inputSha256,
      output_token_count: completion.completionTokens,
      compliance_checks: checks,
      cost_breakdown: {
        provider_tokens: providerTokens,
        platform_units: completion.costUnits ?? Math.round(providerTokens) / 1000,
      },
    };
    const row = await this.timed("store", () =>
      this.records.submit({
        record,
        row: {
          id,
          api_key_id: request.apiKeyId,
          workflow_id: request.workflowId ?? null,
          model,
          model_version: completion.modelVersion,
          route_reason: route.reason,
          fallback_reason: fallbackReason,
          // What was redacted from all that was sent: the instructions reach the model too.
          redactions: sumCounts(redacted.counts, instructions?.counts ?? []),
          compliance_checks: checks,
          alerts,
          output_blob: encryptSecret(this.blobKey, returned, `${id}:output`),
          input_blob: encryptSecret(this.blobKey, redacted.text, `${id}:input`),
          created_at: record.timestamp,
        },
        ...(key ? { idempotency: key } : {}),
      }),
    );
    return this.view(row, returned);
  }

  async get(id: string, apiKeyId: string): Promise<AnalysisView> {
    const row = await findAnalysis(this.deps.store, id, apiKeyId);
    if (!row) throw new ApiError(404, "ANALYSIS_NOT_FOUND", `no analysis ${id} for this API key`);
    return this.opened(row);
  }

  /** A stored analysis as its owner reads it: the output decrypted. */
  private opened(row: AnalysisRow): AnalysisView {
    return this.view(row, decryptSecret(this.blobKey, row.output_blob, `${row.id}:output`));
  }

  private view(row: AnalysisRow, output: string): AnalysisView {
    return {
      analysis_id: row.id,
      workflow_id: row.workflow_id,
      model: row.model,
      model_version: row.model_version,
      route: row.fallback_reason ? "fallback" : (row.route_reason as RouteDecision["reason"]),
      fallback_reason: row.fallback_reason,
      output,
      redactions: row.redactions,
      compliance_checks: row.compliance_checks,
      alerts: row.alerts,
      audit_id: row.audit_id,
      created_at: row.created_at,
    };
  }

  audit(query: {
    apiKeyId: string;
    from?: string;
    to?: string;
    afterSeq?: number;
    limit: number;
  }): Promise<AuditEntry[]> {
    return listAudit(this.deps.store, query);
  }

  /** The chain's links in a range (no key, no content), with its checkpoint and head. */
  links(range: { fromSeq?: number; toSeq?: number; max: number }) {
    return listLinks(this.deps.store, range);
  }

  /** The analyses an execution's final report lists. */
  async forReport(workflowId: string): Promise<ReportAnalysis[]> {
    return (await analysesOfWorkflow(this.deps.store, workflowId)).map((a) => ({
      analysis_id: a.id,
      audit_id: a.audit_id,
      model: a.model,
      created_at: a.created_at,
      compliance_checks: a.compliance_checks,
    }));
  }

  anchor() {
    return anchorAuditHead(this.deps.store, this.target, this.now());
  }

  /** Epoch ms of the latest anchor of the audit chain's head, or null before the first. */
  async lastAnchorAt(): Promise<number | null> {
    const [row] = await this.deps.store.query<{ at: string | null }>(
      "SELECT max(anchored_at) AS at FROM analysis_audit_anchors",
    );
    return row?.at ? new Date(row.at).getTime() : null;
  }

  /** Starts the redaction threads ahead of the first requests (the serving process does). */
  warm(): void {
    this.redactor.warm();
  }

  /** Waits for breaker reports still on their way to the chain. */
  async settled(): Promise<void> {
    await Promise.allSettled([...this.reports]);
  }

  /**
   * Waits for breaker reports still on their way to the chain; stops the redaction threads and
   * closes the provider's connections.
   */
  async close(): Promise<void> {
    await this.settled();
    this.provider.close();
    await this.redactor.close();
  }

  /**
   * Fail closed: a scan that fails stops the analysis, and nothing of the client's text is sent
   * (an input scan) or returned and stored (an output scan); so does a legal-rule check that does
   * not finish (the output scan's job).
   */
  private async scan<T>(run: () => Promise<T>): Promise<T> {
    try {
      return await run();
    } catch (err) {
      if (err instanceof RulesError) throw this.rulesRefusal(err);
      if (!(err instanceof RedactionError)) throw err;
      this.deps.logger.error(
        { err: err.cause ?? err.message },
        "redaction failed; nothing was sent",
      );
      throw new ApiError(422, "REDACTION_FAILED", err.message);
    }
  }

  /**
   * The operator's rules, not the client's text, are at fault: 503, with the pool's account of the
   * pattern that was running (never the text).
   */
  private rulesRefusal(err: RulesError): ApiError {
    if (err.reason === "timeout") {
      this.ruleTimeouts.inc({ kind: err.at?.kind ?? "unknown" });
      this.deps.logger.error(
        { rule: err.at, timeout_ms: this.config.rulesTimeoutMs },
        "legal-rule check stopped at text_analysis.rules_timeout",
      );
      return new ApiError(503, "ANALYSIS_RULES_TIMEOUT", `${err.message}; nothing was stored`);
    }
    this.deps.logger.error({ rule: err.at, err: err.message }, "legal-rule check failed");
    return new ApiError(503, "ANALYSIS_RULES_FAILED", `${err.message}; nothing was stored`);
  }

  prune(): Promise<number> {
    const now = this.now();
    return pruneAnalyses(
      this.deps.store,
      new Date(now - this.config.audit.retentionMs),
      new Date(now - IDEMPOTENCY_TTL_MS),
    );
  }

  /** The documented verification, against the anchors the registry holds (not the database's). */
  async verify(): Promise<ChainVerification> {
    const { chain, registry } = this.target;
    const anchoredBy = await chain.operator?.getAddress();
    return verifyAuditChain(this.deps.store, {
      registry,
      fromBlock: chain.deployment.contracts[CONTRACT_NAMES.proofRegistry]!.blockNumber,
      ...(anchoredBy ? { anchoredBy } : {}),
    });
  }

  /** Fail closed: a detector failure stops the analysis before anything is sent. */
  private async redactInput(request: AnalysisRequest) {
    const quoted = quotedPlaceholders(request.text, request.instructions ?? "");
    const redacted = await this.scan(() =>
      this.redactor.redact(request.text, this.redaction, quoted),
    );
    const instructions =
      request.instructions === undefined
        ? undefined
        : await this.scan(() =>
            this.redactor.redact(request.instructions!, this.redaction, redacted.placeholders),
          );
    return { redacted, instructions };
  }

  /**
   * Whether the gateway's circuit is OPEN on chain, from a reading at most BREAKER_CACHE_MS old.
   * Past half that age a request still uses the reading and starts the next one, so under steady
   * traffic no request waits for the chain; requests arriving together share one read.
   */
  private async circuitOpen(): Promise<boolean> {
    const age = this.breakerState ? this.now() - this.breakerState.at : Infinity;
    if (age > BREAKER_CACHE_MS / 2) {
      const read = this.readBreaker();
      if (age > BREAKER_CACHE_MS) return read;
      // A failed read ahead leaves the reading to age out; the request past it waits and fails.
      read.catch(() => {});
    }
    return this.breakerState!.open;
  }

  private readBreaker(): Promise<boolean> {
    this.breakerRead ??= (async () => {
      const at = this.now();
      try {
        const open = await this.breaker.isOpen();
        this.breakerState = { open, at };
        return open;
      } finally {
        this.breakerRead = null;
      }
    })();
    return this.breakerRead;
  }

  /** The refusal while the circuit is OPEN, with the seconds until the contract closes it. */
  private async refuseOpen(): Promise<never> {
    const chain = this.target.chain;
    const [resetAt, block] = await Promise.all([
      chain.contract(CIRCUIT_BREAKER).getFunction("resetAt")(
        this.breaker.gateway,
      ) as Promise<bigint>,
      chain.provider.getBlock("latest"),
    ]);
    throw new ApiError(
      503,
      "ANALYSIS_PROVIDER_UNAVAILABLE",
      `the circuit of the text-analysis gateway ${this.breaker.gateway} is OPEN on chain; nothing was sent (it closes after the contract's cooldown)`,
      { retry_in: Math.max(1, Number(resetAt) - (block?.timestamp ?? 0)) },
    );
  }

  /** Runs a provider call; a final failure becomes the client's error (and a breaker report). */
  private async guard<T>(call: () => Promise<T>): Promise<T> {
    try {
      return await call();
    } catch (err) {
      if (!(err instanceof ProviderError)) throw err;
      throw this.toApiError(err.failure);
    }
  }

  private toApiError(failure: ProviderFailure): ApiError {
    const credential = `${this.config.auth.credentialId} (key_vault ${this.config.auth.keyVault})`;
    switch (failure.kind) {
      case "unauthorized":
        return new ApiError(
          502,
          "ANALYSIS_PROVIDER_UNAUTHORIZED",
          `the text-analysis provider refused the API key (401): rotate the credential ${credential}`,
        );
      case "forbidden":
        return new ApiError(
          502,
          "ANALYSIS_PROVIDER_FORBIDDEN",
          `the text-analysis provider refused the request (403): the relayer's source address may not be whitelisted at the provider, or the key ${credential} must be rotated`,
        );
      case "rate_limited":
        return new ApiError(
          429,
          "ANALYSIS_PROVIDER_RATE_LIMITED",
          `the text-analysis provider is rate limiting (429, Retry-After ${failure.retryAfterSeconds} s beyond the retry policy's max_delay)`,
          { retry_in: failure.retryAfterSeconds },
          { "Retry-After": String(failure.retryAfterSeconds) },
        );
      case "bad_response":
        return new ApiError(
          502,
          "ANALYSIS_PROVIDER_BAD_RESPONSE",
          `the text-analysis provider's answer does not follow the protocol: ${failure.reason}`,
        );
      case "unavailable":
        this.breakerState = null;
        {
          const report = this.breaker
            .reportFailure()
            .catch((err: unknown) =>
              this.deps.logger.error({ err }, "circuit breaker report failed"),
            )
            .finally(() => this.reports.delete(report));
          this.reports.add(report);
        }
        return new ApiError(
          503,
          "ANALYSIS_PROVIDER_UNAVAILABLE",
          `the text-analysis provider did not answer after the retry policy (${failure.reason})`,
          { retry_in: Math.ceil(this.config.retry.maxDelayMs / 1000), reason: failure.reason },
        );
    }
  }
}
