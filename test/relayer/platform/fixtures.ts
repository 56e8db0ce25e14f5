import type { TierName } from "../../../relayer/limits/tiers.ts";
import {
  newApiKey,
  signedRequest as signed,
  startInProcessRelayer,
  type Credentials,
  type InProcessRelayer,
} from "../../fixtures/relayer.ts";

export { createTestDatabase } from "../../fixtures/postgres.ts";

export interface TestService extends InProcessRelayer {
  /** A controllable clock (epoch ms) used by auth and limits. */
  clock: { now: number };
}

/** The platform in process (no chains) on a clock the test moves; `mount` adds probe routes. */
export async function startTestService(
  options: {
    databaseUrl?: string;
    env?: Record<string, string>;
    mount?: (svc: TestService) => void;
  } = {},
): Promise<TestService> {
  const clock = { now: Date.now() };
  const relayer = await startInProcessRelayer({
    label: "platform",
    databaseUrl: options.databaseUrl,
    env: options.env,
    clock: () => clock.now,
  });
  const service: TestService = { ...relayer, clock };
  options.mount?.(service);
  return service;
}

export function newKey(svc: TestService, tier: TierName = "free", label = "test") {
  return newApiKey(svc.ctx, tier, label);
}

/** A signed request through `app.request()` (no network), stamped with the service's clock. */
export function signedRequest(
  svc: TestService,
  credentials: Credentials,
  method: string,
  path: string,
  body?: string,
  extraHeaders: Record<string, string> = {},
  timestamp = String(svc.clock.now),
) {
  return signed(svc.app, credentials, method, path, body, { headers: extraHeaders, timestamp });
}
