import { expect } from "chai";
import pino from "pino";
import { AgentError } from "../../../relayer/errors/agent.ts";
import { VeriflowError } from "../../../relayer/errors/index.ts";
import { RiskThresholdExceededError } from "../../../relayer/report/risk.ts";
import { ApiError, renderError, renderNotFound } from "../../../relayer/http/errors.ts";
import { createRouter } from "../../../relayer/http/router.ts";
import { IntegrationError } from "../../../relayer/integrations/errors.ts";
import { InsufficientLiquidityError, NoRouteError } from "../../../relayer/routing/errors.ts";

/** A router whose one route throws `error`, with the relayer's error rendering. */
function throwing(error: unknown, logged: unknown[] = []) {
  const app = createRouter();
  app.get("/boom", () => {
    throw error;
  });
  app.notFound(renderNotFound);
  const logger = pino({ level: "error" }, { write: (line: string) => logged.push(line) });
  app.onError(renderError(logger));
  return app;
}

describe("# one error base", function () {
  it("should make every area's error a VeriflowError with the one body", function () {
    const errors: VeriflowError[] = [
      new ApiError(409, "CONFLICT", "already there"),
      new AgentError("OUT_OF_GAS", "ran out", { tx_hash: "0x01" }),
      new InsufficientLiquidityError("pool too thin", null, 30),
      new NoRouteError("no pair"),
      new IntegrationError("INTEGRATION_UNAVAILABLE", "crm", "503 three times", 503),
      new RiskThresholdExceededError("SwapAgent", {
        score: 0.9,
        threshold: 0.7,
        passed: false,
        metrics: { pool_depth: 0.9 },
      }),
    ];
    for (const err of errors) {
      expect(err).to.be.instanceOf(VeriflowError);
      expect(err.toBody()).to.include({ error: err.code, detail: err.detail });
    }
    expect(errors[1]!.toBody()).to.deep.equal({
      error: "OUT_OF_GAS",
      detail: "ran out",
      tx_hash: "0x01",
    });
    expect(errors[2]!.toBody()).to.deep.equal({
      error: "INSUFFICIENT_LIQUIDITY",
      detail: "pool too thin",
      retry_in: 30,
      alternative: null,
    });
    expect(errors[4]!.message).to.equal("INTEGRATION_UNAVAILABLE (crm): 503 three times");
    expect(errors[5]!.toBody()).to.include({
      error: "RISK_THRESHOLD_EXCEEDED",
      agent: "SwapAgent",
    });
    expect(errors[5]!.message).to.equal(errors[5]!.detail);
  });

  it("should answer an ApiError with its own status and headers", async function () {
    const res = await throwing(
      new ApiError(429, "RATE_LIMITED", "slow down", { retry_in: 5 }, { "Retry-After": "5" }),
    ).request("/boom");
    expect(res.status).to.equal(429);
    expect(res.headers.get("Retry-After")).to.equal("5");
    expect(await res.json()).to.deep.equal({
      error: "RATE_LIMITED",
      detail: "slow down",
      retry_in: 5,
    });
  });

  it("should choose the status of a domain error at the edge: 503 for an unavailable dependency, 422 otherwise", async function () {
    const unavailable = await throwing(
      new IntegrationError("INTEGRATION_UNAVAILABLE", "crm", "down"),
    ).request("/boom");
    expect(unavailable.status).to.equal(503);
    expect(await unavailable.json()).to.deep.equal({
      error: "INTEGRATION_UNAVAILABLE",
      detail: "down",
      integration: "crm",
    });
    const noRoute = await throwing(new NoRouteError("no pair")).request("/boom");
    expect(noRoute.status).to.equal(422);
    expect(await noRoute.json()).to.deep.equal({ error: "NO_ROUTE", detail: "no pair" });
    const alternative = { chain: "polygon", exchange: "uniswap" };
    const thin = await throwing(
      new InsufficientLiquidityError("pool too thin", alternative, 30),
    ).request("/boom");
    expect(thin.status).to.equal(422);
    expect(await thin.json()).to.deep.equal({
      error: "INSUFFICIENT_LIQUIDITY",
      detail: "pool too thin",
      retry_in: 30,
      alternative,
    });
  });

  it("should keep a routing error's body when an agent reports it", function () {
    const alternative = { chain: "polygon", exchange: "uniswap" };
    const routing = new InsufficientLiquidityError("pool too thin", alternative, 30);
    const reported = new AgentError(routing.code, routing.detail, routing.extra);
    expect(reported.toBody()).to.deep.equal(routing.toBody());
  });

  it("should answer anything else 500 with the request id only, never its message", async function () {
    const logged: unknown[] = [];
    const res = await throwing(new Error("secret path /etc/veriflow/key"), logged).request("/boom");
    expect(res.status).to.equal(500);
    const body = (await res.json()) as { error: string; detail: string };
    expect(body.error).to.equal("INTERNAL_ERROR");
    expect(body.detail).to.not.include("secret");
    expect(String(logged)).to.include("secret path");
  });

  it("should answer an unknown route 404 in the one shape", async function () {
    const res = await throwing(new Error("unused")).request("/nowhere");
    expect(res.status).to.equal(404);
    expect(await res.json()).to.deep.equal({
      error: "NOT_FOUND",
      detail: "no route for GET /nowhere",
    });
  });
});
