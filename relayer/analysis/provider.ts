import { Agent as HttpAgent } from "node:http";
import { Agent as HttpsAgent } from "node:https";
import { z } from "zod";
import {
  type RetryPolicy,
  type TextAnalysisConfig,
  AttemptFailure,
  exchange,
  IntegrationError,
  isRetryable,
  parseRetryAfter,
  retryDelays,
} from "../integrations/index.ts";

/**
 * The text-analysis provider's protocol, OpenAI-compatible so real gateways and providers fit
 * (docs/analysis.md "Provider protocol"):
 *
 * - `POST {api_endpoint}/chat/completions` `{model, messages}` → `choices[0].message.content`,
 *   `usage.prompt_tokens`, `usage.completion_tokens`, optional `model` (the version that answered)
 *   and `cost_units` (the provider's billing units);
 * - `POST {api_endpoint}/moderations` `{input}` → `results[0].category_scores.bias` in [0, 1].
 *
 * Requests carry `Authorization: Bearer <key>` over one keep-alive connection pool; an answer is
 * read up to 1 MiB. Each call follows the retry policy: failures
 * matching its conditions (`status >= 500`, `network_error`, `timeout`) are retried with its
 * backoff; a 429 is retried after its `Retry-After` when that fits within `max_delay`.
 */
const completionSchema = z.object({
  // Stored as the audit record's `model`: a name, not any text the provider may send.
  model: z
    .string()
    .regex(/^[\x21-\x7e]{1,128}$/, "must be a model name (1-128 printable ASCII characters)")
    .optional(),
  choices: z
    .array(z.object({ message: z.object({ content: z.string() }) }))
    .min(1, "must hold at least one choice"),
  usage: z
    .object({
      prompt_tokens: z.number().int().nonnegative(),
      completion_tokens: z.number().int().nonnegative(),
    })
    // Their sum is the audit record's provider_tokens, an integer: past 2^53 it is not one exactly.
    .refine((u) => Number.isSafeInteger(u.prompt_tokens + u.completion_tokens), {
      message: "must add up to a safe integer (prompt_tokens + completion_tokens)",
    }),
  cost_units: z.number().nonnegative().optional(),
});

const moderationSchema = z.object({
  results: z
    .array(z.object({ category_scores: z.object({ bias: z.number().min(0).max(1) }) }))
    .min(1),
});

/** The longest wait passed on to a client (a day): a provider's longer one is passed on as this. */
export const MAX_RETRY_AFTER_SECONDS = 86_400;

export interface Completion {
  content: string;
  /** The dated version that answered (the request's when the provider does not say). */
  modelVersion: string;
  promptTokens: number;
  completionTokens: number;
  costUnits: number | null;
}

/** Why a provider call failed for good; the use case turns each into the client's error. */
export type ProviderFailure =
  | { kind: "unauthorized"; status: 401 }
  | { kind: "forbidden"; status: 403 }
  | { kind: "rate_limited"; status: 429; retryAfterSeconds: number }
  /** 5xx, timeout or dropped connection after the retry policy. */
  | { kind: "unavailable"; reason: string }
  | { kind: "bad_response"; reason: string };

export class ProviderError extends Error {
  readonly failure: ProviderFailure;
  constructor(failure: ProviderFailure) {
    super(`text-analysis provider: ${failure.kind}`);
    this.name = "ProviderError";
    this.failure = failure;
  }
}

export interface ProviderDeps {
  /** The bearer key, read per call so a rotated credential is used at once. */
  apiKey: () => Promise<string>;
  sleep?: (ms: number) => Promise<void>;
}

const defaultSleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

export class AnalysisProvider {
  private readonly endpoint: string;
  private readonly policy: RetryPolicy;
  private readonly timeoutMs: number;
  private readonly deps: ProviderDeps;
  private readonly agent: HttpAgent | HttpsAgent;

  constructor(
    config: Pick<TextAnalysisConfig, "apiEndpoint" | "retry" | "timeoutMs">,
    deps: ProviderDeps,
  ) {
    this.endpoint = config.apiEndpoint;
    this.policy = config.retry;
    this.timeoutMs = config.timeoutMs;
    this.deps = deps;
    this.agent = this.endpoint.startsWith("https:")
      ? new HttpsAgent({ keepAlive: true })
      : new HttpAgent({ keepAlive: true });
  }

  /**
   * The longest one call may take through the retry policy: every attempt to its timeout, and
   * the longest wait between attempts (a provider's Retry-After is honoured only up to it).
   */
  longestCallMs(): number {
    return (
      this.policy.attempts * this.timeoutMs + (this.policy.attempts - 1) * this.policy.maxDelayMs
    );
  }

  /** Closes the pooled connections. */
  close(): void {
    this.agent.destroy();
  }

  async complete(model: string, messages: Array<{ role: string; content: string }>) {
    const body = await this.call("/chat/completions", { model, messages }, completionSchema);
    const completion: Completion = {
      // A lone surrogate (JSON can escape one) has no UTF-8 form: the output checked, returned,
      // stored and read back is the same text only with U+FFFD in its place.
      content: body.choices[0]!.message.content.replace(/\p{Cs}/gu, "\ufffd"),
      modelVersion: body.model ?? model,
      promptTokens: body.usage.prompt_tokens,
      completionTokens: body.usage.completion_tokens,
      costUnits: body.cost_units ?? null,
    };
    return completion;
  }

  /** The provider's bias score of `input` in [0, 1]. */
  async biasScore(input: string): Promise<number> {
    const body = await this.call("/moderations", { input }, moderationSchema);
    return body.results[0]!.category_scores.bias;
  }

  private async call<T>(path: string, payload: unknown, schema: z.ZodType<T>): Promise<T> {
    const delays = retryDelays(this.policy);
    const sleep = this.deps.sleep ?? defaultSleep;
    for (let attempt = 0; ; attempt++) {
      const outcome = await this.attempt(path, payload);
      if (outcome.ok) {
        const parsed = schema.safeParse(outcome.body);
        if (!parsed.success)
          throw new ProviderError({
            kind: "bad_response",
            reason: `${path}: ${parsed.error.issues.map((i) => `${i.path.join(".")} ${i.message}`).join("; ")}`,
          });
        return parsed.data;
      }
      const failure = outcome.failure;
      const delay = delays[attempt];
      if (failure.status === 401) throw new ProviderError({ kind: "unauthorized", status: 401 });
      if (failure.status === 403) throw new ProviderError({ kind: "forbidden", status: 403 });
      if (failure.status === 429) {
        const wait = (outcome.retryAfterSeconds ?? 1) * 1000;
        if (delay === undefined || wait > this.policy.maxDelayMs)
          throw new ProviderError({
            kind: "rate_limited",
            status: 429,
            // Passed on as the client's Retry-After, a whole number of seconds: `0` or a date gone
            // by would send it back at once to a provider that just refused, and a 400-digit
            // value reads as Infinity.
            retryAfterSeconds: Math.min(
              MAX_RETRY_AFTER_SECONDS,
              Math.max(1, outcome.retryAfterSeconds ?? 1),
            ),
          });
        await sleep(Math.max(wait, delay));
        continue;
      }
      if (delay === undefined || !isRetryable(this.policy, failure)) {
        if (failure.kind === "status" && failure.status !== null && failure.status < 500)
          throw new ProviderError({ kind: "bad_response", reason: failure.message });
        throw new ProviderError({ kind: "unavailable", reason: failure.message });
      }
      await sleep(delay);
    }
  }

  private async attempt(
    path: string,
    payload: unknown,
  ): Promise<
    { ok: true; body: unknown } | { ok: false; failure: AttemptFailure; retryAfterSeconds?: number }
  > {
    // Read before the exchange: a key the vault cannot give is no failure of the provider's.
    const apiKey = await this.deps.apiKey();
    let answer;
    try {
      answer = await exchange("text_analysis", this.agent, new URL(this.endpoint + path), {
        method: "POST",
        headers: {
          "Content-Type": "application/json",
          Authorization: `Bearer ${apiKey}`,
        },
        body: JSON.stringify(payload),
        timeoutMs: this.timeoutMs,
        what: path,
      });
    } catch (err) {
      if (err instanceof AttemptFailure) return { ok: false, failure: err };
      // A refused TLS handshake or an oversized answer: the provider's, and not worth a retry.
      if (err instanceof IntegrationError)
        throw new ProviderError(
          err.code === "INTEGRATION_RESPONSE_TOO_LARGE"
            ? { kind: "bad_response", reason: err.message }
            : { kind: "unavailable", reason: err.message },
        );
      throw err;
    }
    if (answer.status < 200 || answer.status >= 300) {
      // Seconds or an HTTP date (RFC 9110 10.2.3), read against the real clock the date is on.
      const retryAfterMs = parseRetryAfter(answer.retryAfter, Date.now());
      return {
        ok: false,
        failure: new AttemptFailure("status", answer.status, `${path}: HTTP ${answer.status}`),
        ...(retryAfterMs !== null ? { retryAfterSeconds: Math.ceil(retryAfterMs / 1000) } : {}),
      };
    }
    try {
      return { ok: true, body: JSON.parse(answer.text) };
    } catch {
      return {
        ok: false,
        failure: new AttemptFailure("status", 502, `${path}: the answer is not JSON`),
      };
    }
  }
}
