import type { Logger } from "pino";
import type { ComplianceScreen } from "../agents/compliance.ts";
import { AgentError } from "../agents/errors.ts";
import type { IntegrationClient } from "./client.ts";
import { IntegrationError } from "./errors.ts";
import type { ScreeningResponse } from "./schemas.ts";

/**
 * The third-party screening provider as a compliance source (spec: "A compliance client posts
 * `{address: string}` to a /compliance path with a bearer token and receives JSON"). Every
 * counterparty and recipient the engine screens is also asked here, before anything is signed;
 * `sanctioned: true` flags the address under the integration's name exactly like the on-chain
 * oracle (SANCTIONED_ADDRESS, compliance alert). Each call is an anchored interaction of the
 * execution.
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
