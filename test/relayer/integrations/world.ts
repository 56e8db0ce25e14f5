import { randomBytes } from "node:crypto";
import { writeFile } from "node:fs/promises";
import { expect } from "chai";
import type { JsonRpcApiProvider } from "ethers";
import { openChains, type ChainSet } from "../../../relayer/chains/index.ts";
import {
  IntegrationError,
  Integrations,
  parseIntegrations,
  putCredential,
  signingPublicKey,
  type IntegrationsDeps,
} from "../../../relayer/integrations/index.ts";
import type { RoutingChain } from "../../../relayer/routing/chain.ts";
import type { EngineStore } from "../../../relayer/accounts/index.ts";
import { openTestStore, silentLogger } from "../../fixtures/engine.ts";
import type { StandIn } from "../../fixtures/standins/index.ts";

/**
 * Fixtures of the integration tests: the embedded devnet (ProofRegistry and CircuitBreakerGateway
 * deployed by the Core module on every chain), a migrated PGlite store, a master key, credentials
 * in the local vault, and `Integrations` built from a configuration document.
 */
export const JWT_SECRET = "stand-in-jwt-credential-0123456789";
export const HMAC_KEY = "stand-in-crm-hmac-key-0123456789";

export interface IntegrationWorld {
  chains: ChainSet;
  store: Awaited<ReturnType<typeof openTestStore>>;
  masterKey: Buffer;
  build(doc: unknown, deps?: Partial<IntegrationsDeps>): Integrations;
  publicKey(integration: string): Promise<string>;
  close(): Promise<void>;
}

export async function openIntegrationWorld(): Promise<IntegrationWorld> {
  const chains = await openChains({ mode: "embedded" });
  const store = await openTestStore();
  const masterKey = randomBytes(32);
  await putCredential(store, masterKey, "standin-jwt", JWT_SECRET);
  await putCredential(store, masterKey, "crm-hmac", HMAC_KEY);
  return {
    chains,
    store,
    masterKey,
    build(doc, deps = {}) {
      return new Integrations(parseIntegrations(doc), {
        store,
        chains,
        masterKey,
        logger: silentLogger,
        ...deps,
      });
    },
    publicKey: (integration) => signingPublicKey(store, masterKey, integration),
    async close() {
      await store.close();
      await chains.close();
    },
  };
}

/** An integration entry authenticated with the stand-ins' JWT credential. */
export function entry(
  url: string,
  extra: Record<string, unknown> = {},
  validation: Record<string, unknown> = {},
) {
  return {
    url,
    auth: { type: "jwt_bearer", key_vault: "local", credential_id: "standin-jwt" },
    validation: { schema: "crm.orders", version: "2.4", strict: true, ...validation },
    retry: { attempts: 3, backoff: "exponential", initial_delay: "5ms", max_delay: "50ms" },
    ...extra,
  };
}

/**
 * A CRM-fed payout's integrations (`VERIFLOW_INTEGRATIONS` written to `file`): the CRM's orders
 * (`crm.orders@2.5`, HMAC-signed) and the payment gateway under the critical policy (5 attempts,
 * Fibonacci), through which orders settle and the service fee is taken.
 */
export async function writePayoutIntegrations(
  file: string,
  standins: { crm: StandIn; gateway: StandIn },
): Promise<void> {
  const auth = { type: "jwt_bearer", key_vault: "local", credential_id: "standin-jwt" };
  const delays = { initial_delay: "5ms", max_delay: "20ms" };
  await writeFile(
    file,
    JSON.stringify({
      integrations: {
        crm: {
          url: standins.crm.url,
          auth,
          validation: {
            schema: "crm.orders",
            version: "2.5",
            response_hmac: { key_vault: "local", credential_id: "crm-hmac" },
          },
          retry: { attempts: 2, backoff: "exponential", ...delays },
        },
        payments: {
          url: standins.gateway.url,
          auth,
          validation: { schema: "payments.create", version: "1.0" },
          retry: { attempts: 5, backoff: "fibonacci", ...delays },
        },
      },
      // Orders settle through the payments integration (which also takes the service fee).
      payments: { integration: "payments", service_fee: "1.00", currency: "USDC" },
    }),
  );
}

/**
 * Stores the stand-ins' credentials in a relayer's vault (its database) and gives the stand-ins
 * the relayer's request-signing keys.
 */
export async function trustPayoutStandIns(
  relayer: { store: EngineStore; masterKey: Buffer },
  standins: { crm: StandIn; gateway: StandIn },
): Promise<void> {
  const { store, masterKey } = relayer;
  await putCredential(store, masterKey, "standin-jwt", JWT_SECRET);
  await putCredential(store, masterKey, "crm-hmac", HMAC_KEY);
  standins.crm.setPublicKey(await signingPublicKey(store, masterKey, "crm"));
  standins.gateway.setPublicKey(await signingPublicKey(store, masterKey, "payments"));
}

/** Moves the chain's clock forward and mines a block (the devnet's time helper). */
export async function increaseTime(chain: RoutingChain, seconds: number): Promise<void> {
  const provider = chain.provider as unknown as JsonRpcApiProvider;
  await provider.send("evm_increaseTime", [seconds]);
  await provider.send("evm_mine", []);
}

/** The IntegrationError a call is expected to fail with. */
export async function rejection(p: Promise<unknown>): Promise<IntegrationError> {
  try {
    await p;
  } catch (err) {
    expect(err).to.be.instanceOf(IntegrationError);
    return err as IntegrationError;
  }
  throw new Error("expected a rejection");
}
