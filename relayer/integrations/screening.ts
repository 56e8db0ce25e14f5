import type { Logger } from "pino";
import type { ComplianceScreen, ScreenResult } from "../compliance/index.ts";
import { AgentError } from "../errors/index.ts";
import type { IntegrationClient } from "./client.ts";
import { IntegrationError } from "./errors.ts";
import type { ScreeningResponse } from "../config/index.ts";

/**
 * The third-party screening provider as a compliance source (spec: "A compliance client posts
 * `{address: string}` to a /compliance path with a bearer token and receives JSON"). Every
 * counterparty and recipient the engine screens is also asked here, before anything is signed;
 * `sanctioned: true` flags the address under the integration's name exactly like the on-chain
 * oracle (SANCTIONED_ADDRESS, compliance alert). Each call is an anchored interaction of the
 * execution.
 *
 * One question per address per execution: the provider's answer (sanctioned or not) for an
 * address is reused by the execution's later actions (a router, a bridge or a recipient met again)
 * instead of being asked, paid for and anchored once per action. The memo lives in the process:
 * an execution resumed after a restart asks again. Answers are never shared between executions.
 *
 * Unreachable provider (no response, 5xx after retries, circuit OPEN, 401, a response that fails
 * its schema): with `screening.required: true` (the default: money is at stake) the action stops
 * with SCREENING_UNAVAILABLE and nothing is signed; with `required: false` the screen goes on
 * without it, and the report's `consulted` lists show the provider was not consulted.
 */
export function providerScreen(
  client: IntegrationClient,
  options: { required: boolean; logger: Logger },
): ComplianceScreen {
  const ask = askProvider(client, options);
  // Executions by most recent use, each with its provider answers by address.
  const answers = new Map<string, Map<string, Promise<ScreenResult>>>();
  return (address, chain, required, context) => {
    const executionId = context?.executionId;
    if (!executionId) return ask(address, chain, required, context);
    let byAddress = answers.get(executionId);
    if (byAddress) answers.delete(executionId);
    else byAddress = new Map();
    answers.set(executionId, byAddress); // most recent last
    if (answers.size > MEMO_EXECUTIONS) answers.delete(answers.keys().next().value!);
    const key = address.toLowerCase();
    const known = byAddress.get(key);
    if (known) return known.then((r) => ({ ...r, address }));
    const asked = ask(address, chain, required, context);
    const memo = byAddress;
    memo.set(key, asked);
    // Only a consulted answer is reused: a failure or an answer given without the provider
    // (`required: false`) asks again next time.
    asked.then(
      (r) => {
        if (!r.checked.includes(client.name) && memo.get(key) === asked) memo.delete(key);
      },
      () => {
        if (memo.get(key) === asked) memo.delete(key);
      },
    );
    return asked;
  };
}

/**
 * Executions whose provider answers are kept (least recently screened dropped first). An
 * execution screens a handful of addresses over a few seconds; this bounds memory on a busy relayer.
 */
const MEMO_EXECUTIONS = 1024;

function askProvider(
  client: IntegrationClient,
  options: { required: boolean; logger: Logger },
): ComplianceScreen {
  return async (address, _chain, _required, context) => {
    try {
      const { data } = await client.call<ScreeningResponse>({
        method: "POST",
        path: "/compliance",
        body: { address },
        executionId: context?.executionId,
        actionIndex: context?.actionIndex,
      });
      if (data.address.toLowerCase() !== address.toLowerCase()) {
        throw new IntegrationError(
          "INTEGRATION_SCHEMA_MISMATCH",
          client.name,
          `the provider answered for ${data.address}, not ${address}`,
        );
      }
      return {
        address,
        sanctioned: data.sanctioned,
        sources: data.sanctioned ? [client.name] : [],
        checked: [client.name],
      };
    } catch (err) {
      if (!(err instanceof IntegrationError)) throw err;
      if (options.required) {
        throw new AgentError(
          "SCREENING_UNAVAILABLE",
          `the screening provider ${client.name} could not screen ${address} (${err.code}: ${err.message.split(": ").slice(1).join(": ")}); the screening is required, nothing was sent`,
          { integration: client.name, cause: err.code },
        );
      }
      options.logger.warn(
        { integration: client.name, address, code: err.code },
        "screening provider unavailable; screened without it (screening.required is false)",
      );
      return { address, sanctioned: false, sources: [], checked: [] };
    }
  };
}
