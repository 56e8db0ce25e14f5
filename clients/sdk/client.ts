import createClient, { type Client } from "openapi-fetch";
import {
  apiErrorOf,
  ExecutionFailedError,
  retryAfterSeconds,
  type KnownErrorCode,
} from "./errors.ts";
import type { components, paths } from "./openapi.ts";
import { signingClock, signRequest, type Credentials } from "./signing.ts";

export type Schemas = components["schemas"];
export type Execution = Schemas["Execution"];
export type ExecutionState = Execution["state"];
export type WorkflowSubmission = Schemas["WorkflowSubmission"];
export type SubmissionResult = Schemas["SubmissionResult"];

export interface RetryPolicy {
  /** Further attempts after the first (default 3). */
  maxRetries: number;
  /** A `Retry-After` longer than this is not waited for: the error goes to the caller (default 60 s). */
  maxDelayMs: number;
  /** First backoff when no `Retry-After` is given, doubled per attempt (default 500 ms). */
  baseDelayMs: number;
}

export interface VeriflowClientOptions extends Credentials {
  baseUrl: string;
  retry?: Partial<RetryPolicy>;
  /** Called before each wait for a retry (the CLI shows it). */
  onRetry?: (info: {
    attempt: number;
    delayMs: number;
    status: number | null;
    code?: string;
  }) => void;
  fetch?: typeof fetch;
}

const DEFAULT_RETRY: RetryPolicy = { maxRetries: 3, maxDelayMs: 60_000, baseDelayMs: 500 };
const FINAL_STATES: ReadonlySet<ExecutionState> = new Set(["completed", "failed", "cancelled"]);

function sleep(ms: number, signal?: AbortSignal | null): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/**
 * A retry changes nothing on the relayer when the request was refused before it ran (429: the
 * rate and concurrency limits store nothing), when it only reads, or when it carries an
 * Idempotency-Key (the relayer replays the first response).
 */
function safeToRepeat(request: Request, status: number | null): boolean {
  if (status === 429) return true;
  return (
    request.method === "GET" || request.method === "HEAD" || request.headers.has("Idempotency-Key")
  );
}

/**
 * 502s that are the relayer's own account of a provider refusing it: they last until an operator
 * rotates a credential or whitelists an address, so repeating them only spends the provider's calls.
 */
const NEEDS_OPERATOR: ReadonlySet<string> = new Set<KnownErrorCode>([
  "ANALYSIS_PROVIDER_UNAUTHORIZED",
  "ANALYSIS_PROVIDER_FORBIDDEN",
]);

/**
 * fetch that signs every attempt and retries what is safe: 429 after `Retry-After`; network
 * errors, 502 (not one an operator must mend) and 504, 503 carrying `Retry-After`, and a 409 with
 * `Retry-After` to a request with an Idempotency-Key (its first attempt still runs), with
 * backoff. Bounded in attempts and wait.
 */
function signingFetch(options: VeriflowClientOptions, policy: RetryPolicy) {
  const base = options.fetch ?? globalThis.fetch;
  const stamp = signingClock();
  return async (request: Request): Promise<Response> => {
    for (let attempt = 0; ; attempt++) {
      const signed = await signRequest(request, options, stamp());
      let response: Response | null = null;
      let failure: unknown = null;
      try {
        response = await base(signed);
      } catch (err) {
        if (request.signal?.aborted) throw err;
        failure = err;
      }
      const status = response?.status ?? null;
      const retryAfter = response ? retryAfterSeconds(response.headers.get("Retry-After")) : null;
      const code =
        response && !response.ok
          ? (
              (await response
                .clone()
                .json()
                .catch(() => ({}))) as { error?: string }
            ).error
          : undefined;
      const retryable =
        status === null ||
        status === 429 ||
        (status === 502 && !NEEDS_OPERATOR.has(code ?? "")) ||
        status === 504 ||
        (status === 503 && retryAfter !== null) ||
        (status === 409 && retryAfter !== null && request.headers.has("Idempotency-Key"));
      if (!retryable || attempt >= policy.maxRetries || !safeToRepeat(request, status)) {
        if (response) return response;
        throw failure;
      }
      const delayMs =
        retryAfter !== null ? retryAfter * 1000 : policy.baseDelayMs * 2 ** Math.min(attempt, 6);
      if (delayMs > policy.maxDelayMs) {
        if (response) return response;
        throw failure;
      }
      options.onRetry?.({ attempt: attempt + 1, delayMs, status, code });
      await sleep(delayMs, request.signal);
    }
  };
}

/** YAML text goes out as given (openapi-fetch would JSON-encode it). */
const sendAsIs = (body: unknown) => body as string;

export interface WaitOptions {
  signal?: AbortSignal;
  /** Between status reads (default 1 s). */
  intervalMs?: number;
}

/** What a submission may be: the JSON form, or YAML text (sent as application/yaml). */
export type WorkflowInput = WorkflowSubmission | { yaml: string };

/**
 * The Veriflow relayer's client: every request signed, errors thrown as `VeriflowApiError`
 * with the relayer's code, submissions made idempotent, and executions followed to their report.
 * `api` is the typed openapi-fetch client for any endpoint the helpers do not cover.
 */
export class VeriflowClient {
  readonly api: Client<paths>;

  constructor(options: VeriflowClientOptions) {
    const policy = { ...DEFAULT_RETRY, ...options.retry };
    this.api = createClient<paths>({
      baseUrl: options.baseUrl.replace(/\/+$/, ""),
      fetch: signingFetch(options, policy),
    });
  }

  /** Unwraps an openapi-fetch result: the data, or the relayer's error thrown. */
  private async unwrap<T>(
    result: Promise<{ data?: T; error?: unknown; response: Response }>,
  ): Promise<T> {
    const { data, error, response } = await result;
    if (!response.ok) throw apiErrorOf(response, error);
    return data as T;
  }

  /**
   * POST /v1/workflows. Sends an Idempotency-Key (a new one unless given), so a retry after a
   * lost response cannot create a second execution.
   */
  submit(
    workflow: WorkflowInput,
    options: { idempotencyKey?: string; signal?: AbortSignal } = {},
  ): Promise<SubmissionResult> {
    const headers = { "Idempotency-Key": options.idempotencyKey ?? crypto.randomUUID() };
    if ("yaml" in workflow) {
      return this.unwrap(
        this.api.POST("/v1/workflows", {
          body: workflow.yaml as never,
          bodySerializer: sendAsIs,
          headers: { ...headers, "Content-Type": "application/yaml" },
          signal: options.signal,
        }),
      );
    }
    return this.unwrap(
      this.api.POST("/v1/workflows", { body: workflow, headers, signal: options.signal }),
    );
  }

  /** Runs a deployed configuration by name (latest version unless `version`). */
  run(name: string, options: { version?: number; idempotencyKey?: string } = {}) {
    return this.unwrap(
      this.api.POST("/v1/workflows", {
        body: { deployment: name, ...(options.version ? { version: options.version } : {}) },
        headers: { "Idempotency-Key": options.idempotencyKey ?? crypto.randomUUID() },
      }),
    );
  }

  deploy(workflow: WorkflowInput, options: { idempotencyKey?: string } = {}) {
    const headers = { "Idempotency-Key": options.idempotencyKey ?? crypto.randomUUID() };
    if ("yaml" in workflow) {
      return this.unwrap(
        this.api.POST("/workflows/deploy", {
          body: workflow.yaml as never,
          bodySerializer: sendAsIs,
          headers: { ...headers, "Content-Type": "application/yaml" },
        }),
      );
    }
    return this.unwrap(this.api.POST("/workflows/deploy", { body: workflow, headers }));
  }

  status(id: string, signal?: AbortSignal): Promise<Execution> {
    return this.unwrap(this.api.GET("/v1/workflows/{id}", { params: { path: { id } }, signal }));
  }

  list(query: { state?: ExecutionState; limit?: number; cursor?: string } = {}) {
    return this.unwrap(this.api.GET("/v1/workflows", { params: { query } }));
  }

  cancel(id: string) {
    return this.unwrap(this.api.POST("/v1/workflows/{id}/cancel", { params: { path: { id } } }));
  }

  schedules() {
    return this.unwrap(this.api.GET("/v1/schedules"));
  }

  pauseSchedule(id: string) {
    return this.unwrap(this.api.POST("/v1/schedules/{id}/pause", { params: { path: { id } } }));
  }

  resumeSchedule(id: string) {
    return this.unwrap(this.api.POST("/v1/schedules/{id}/resume", { params: { path: { id } } }));
  }

  deleteSchedule(id: string) {
    return this.unwrap(this.api.DELETE("/v1/schedules/{id}", { params: { path: { id } } }));
  }

  simulate(body: Schemas["SimulateRequest"]) {
    return this.unwrap(this.api.POST("/tx/simulate", { body }));
  }

  compliance(address: string, jurisdictions?: string[]) {
    return this.unwrap(
      this.api.GET("/compliance/check", {
        params: {
          query: { address, ...(jurisdictions ? { jurisdictions: jurisdictions.join(",") } : {}) },
        },
      }),
    );
  }

  /**
   * POST /v1/analysis: a text analysed by the configured provider (redacted, audited). Sends an
   * Idempotency-Key (a new one unless given), so a retry after a lost response answers the
   * analysis that ran instead of paying the provider for a second one, and a retry that arrives
   * while the first attempt still runs waits for it (409 with Retry-After).
   */
  analyze(
    body: Schemas["AnalysisRequest"],
    options: { idempotencyKey?: string; signal?: AbortSignal } = {},
  ) {
    const headers = { "Idempotency-Key": options.idempotencyKey ?? crypto.randomUUID() };
    return this.unwrap(this.api.POST("/v1/analysis", { body, headers, signal: options.signal }));
  }

  /**
   * Every text-analysis audit record of this key (`GET /v1/analysis/audit`, page after page), and
   * then every link of the audit chain from its checkpoint (`GET /v1/analysis/audit/links`): what
   * the key's auditor checks against the registry's anchors (docs/analysis.md "Audit records").
   * Records first: a record appended meanwhile is then covered by the links read after it.
   */
  async analysisAuditTrail(): Promise<{
    records: Schemas["AnalysisAuditRecord"][];
    links: Schemas["AnalysisAuditLinks"]["links"];
    checkpoint: Schemas["AnalysisAuditLinks"]["checkpoint"];
  }> {
    const records: Schemas["AnalysisAuditRecord"][] = [];
    for (let cursor: string | null | undefined; ;) {
      const page = await this.unwrap(
        this.api.GET("/v1/analysis/audit", {
          params: { query: { limit: 500, ...(cursor ? { cursor } : {}) } },
        }),
      );
      records.push(...page.records);
      cursor = page.next_cursor;
      if (!cursor) break;
    }
    const first = await this.unwrap(this.api.GET("/v1/analysis/audit/links", {}));
    const links = [...first.links];
    for (let from = first.next_from_seq; from !== null;) {
      const page = await this.unwrap(
        this.api.GET("/v1/analysis/audit/links", { params: { query: { from_seq: from } } }),
      );
      links.push(...page.links);
      from = page.next_from_seq;
    }
    return { records, links, checkpoint: first.checkpoint };
  }

  account() {
    return this.unwrap(this.api.GET("/v1/account"));
  }

  faucet() {
    return this.unwrap(this.api.POST("/v1/account/faucet", { body: {} }));
  }

  /** Webhook endpoints of this key; `secret` (Standard Webhooks) is returned only by `create`. */
  readonly webhooks = {
    create: (body: Schemas["WebhookCreate"]) =>
      this.unwrap(this.api.POST("/v1/webhooks", { body })),
    list: () => this.unwrap(this.api.GET("/v1/webhooks")),
    delete: (id: string) =>
      this.unwrap(this.api.DELETE("/v1/webhooks/{id}", { params: { path: { id } } })),
    deliveries: (id: string, limit?: number) =>
      this.unwrap(
        this.api.GET("/v1/webhooks/{id}/deliveries", {
          params: { path: { id }, query: limit ? { limit } : {} },
        }),
      ),
    redeliver: (id: string, messageId?: string) =>
      this.unwrap(
        this.api.POST("/v1/webhooks/{id}/redeliver", {
          params: { path: { id } },
          body: messageId ? { message_id: messageId } : {},
        }),
      ),
  };

  /**
   * Yields the execution each time it changes (state, stage, a step, the report), ending with
   * its final state. Stops with the signal's reason when aborted.
   */
  async *watch(id: string, options: WaitOptions = {}): AsyncGenerator<Execution> {
    let previous = "";
    for (;;) {
      const execution = await this.status(id, options.signal);
      const seen = JSON.stringify([
        execution.state,
        execution.stage,
        execution.steps,
        execution.compliance_alerts,
        execution.report?.cid ?? null,
      ]);
      if (seen !== previous) {
        previous = seen;
        yield execution;
      }
      if (FINAL_STATES.has(execution.state)) return;
      await sleep(options.intervalMs ?? 1_000, options.signal);
    }
  }

  /** The completed execution with its report; throws ExecutionFailedError when it failed or was cancelled. */
  async waitForReport(id: string, options: WaitOptions = {}): Promise<Execution> {
    let last: Execution | undefined;
    for await (const execution of this.watch(id, options)) last = execution;
    if (!last) throw new Error(`no status for ${id}`);
    if (last.state !== "completed") {
      throw new ExecutionFailedError(
        id,
        last.state as "failed" | "cancelled",
        (last.error ?? null) as { error?: string; detail?: string } | null,
      );
    }
    return last;
  }
}
