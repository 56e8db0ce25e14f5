/**
 * The one error base of the relayer. Domain code throws a subclass (AgentError, the routing
 * errors, IntegrationError, RiskThresholdExceededError, ApiError at the HTTP edge) carrying an
 * upper-case `code` (spec "Error body"), a `detail` a client can act on and extra body fields;
 * `toBody()` is the `{error, detail, ...}` every surface shows (HTTP answers, execution records,
 * reports). The HTTP status is chosen at the edge (relayer/http/errors.ts). Never put a secret
 * in `detail` or `extra`.
 */
export class VeriflowError extends Error {
  readonly code: string;
  readonly detail: string;
  /** Extra fields of the error body (`retry_in`, `issues`, ...). */
  readonly extra: Record<string, unknown>;

  constructor(
    code: string,
    detail: string,
    extra: Record<string, unknown> = {},
    /** The Error message when it should differ from `<code>: <detail>`. */
    message?: string,
  ) {
    super(message ?? `${code}: ${detail}`);
    this.name = new.target.name;
    this.code = code;
    this.detail = detail;
    this.extra = extra;
  }

  toBody(): ErrorBody {
    return { error: this.code, detail: this.detail, ...this.extra };
  }
}

export interface ErrorBody {
  error: string;
  detail: string;
  [field: string]: unknown;
}
