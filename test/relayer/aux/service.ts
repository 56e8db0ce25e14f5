import { openChains, type ChainSet } from "../../../relayer/chains/index.ts";
import {
  newApiKey,
  signedRequest,
  startInProcessRelayer,
  type Credentials,
  type InProcessRelayer,
} from "../../fixtures/relayer.ts";

/**
 * The whole relayer app (platform context on PGlite, the embedded devnet's ethereum chain) for the
 * aux endpoints' tests and benchmark, with one API key.
 */
export interface AuxService extends InProcessRelayer {
  chains: ChainSet;
  credentials: Credentials;
  /** A signed request through `app.request()`. */
  signed(method: string, path: string, body?: unknown): Promise<Response>;
  /** A request with `Authorization: Bearer <API_KEY>`. */
  bearer(method: string, path: string, body?: unknown): Promise<Response>;
}

export async function startAuxService(env: Record<string, string> = {}): Promise<AuxService> {
  const chains = await openChains({ mode: "embedded", chains: ["ethereum"] });
  const relayer = await startInProcessRelayer({ label: "aux", env, chains });
  const { key, secret } = await newApiKey(relayer.ctx, "enterprise", "aux");
  const credentials = { key, secret };
  const encode = (body: unknown) => (body === undefined ? undefined : JSON.stringify(body));
  return {
    ...relayer,
    chains,
    credentials,
    signed: (method, target, body) =>
      signedRequest(relayer.app, credentials, method, target, encode(body)),
    bearer(method, target, body) {
      const text = encode(body);
      const headers: Record<string, string> = { Authorization: `Bearer ${credentials.key}` };
      if (text !== undefined) headers["Content-Type"] = "application/json";
      return Promise.resolve(relayer.app.request(target, { method, headers, body: text }));
    },
  };
}
