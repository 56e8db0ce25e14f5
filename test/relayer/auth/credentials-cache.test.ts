import { randomBytes } from "node:crypto";
import { expect } from "chai";
import { CredentialsCache, createApiKey, revokeApiKey } from "../../../relayer/auth/keys.ts";
import { openStore, type Store } from "../../../relayer/store/index.ts";
import { migrate } from "../../../relayer/store/migrate.ts";
import { cancelExecutionsOfKey } from "../../../relayer/executions/store.ts";

describe("# credentials cache", function () {
  this.timeout(60_000);
  const masterKey = randomBytes(32);
  let store: Store;
  /** The same store, counting the credential lookups and able to hold their answers back. */
  let lookups = 0;
  let hold: Promise<void> | null = null;
  let counting: Store;

  before(async () => {
    store = await openStore({ dataDir: "memory://" });
    await migrate(store);
    await createApiKey(store, masterKey, { key: "vfk_cache_test", tier: "free" });
    counting = {
      ...store,
      query: async <T>(sql: string, params?: unknown[]) => {
        if (!sql.includes("FROM api_keys WHERE key")) return store.query<T>(sql, params);
        lookups++;
        const held = hold;
        const rows = await store.query<T>(sql, params);
        if (held) await held;
        return rows;
      },
    };
  });
  after(async () => {
    await store?.close();
  });

  it("should load a key once for concurrent lookups that miss, and reuse it within the TTL", async () => {
    const cache = new CredentialsCache(counting, masterKey, 1_000);
    lookups = 0;
    const now = Date.now();
    const found = await Promise.all(
      Array.from({ length: 8 }, () => cache.get("vfk_cache_test", now)),
    );
    expect(lookups).to.equal(1);
    expect(found.map((c) => c?.key)).to.deep.equal(Array(8).fill("vfk_cache_test"));
    await cache.get("vfk_cache_test", now + 999);
    expect(lookups).to.equal(1);
    await cache.get("vfk_cache_test", now + 1_000);
    expect(lookups).to.equal(2);
  });

  it("should remember an unknown key for the TTL (one lookup per key and second), yet see a key created here at once", async () => {
    const cache = new CredentialsCache(counting, masterKey, 1_000);
    lookups = 0;
    const now = Date.now();
    expect(await cache.get("vfk_not_yet", now)).to.equal(null);
    expect(await cache.get("vfk_not_yet", now + 500)).to.equal(null);
    expect(lookups).to.equal(1);
    await createApiKey(store, masterKey, { key: "vfk_not_yet", tier: "free" });
    expect((await cache.get("vfk_not_yet", now + 600))?.key).to.equal("vfk_not_yet");
    expect(lookups).to.equal(2);
  });

  it("should not cache a load in flight when the key is revoked in this process meanwhile", async () => {
    const cache = new CredentialsCache(counting, masterKey, 60_000);
    lookups = 0;
    let release!: () => void;
    hold = new Promise((resolve) => (release = resolve));
    const before = cache.get("vfk_cache_test", Date.now());
    while (lookups === 0) await new Promise((resolve) => setImmediate(resolve));
    hold = null;
    // The revocation forgets the key everywhere, the load in flight included.
    await revokeApiKey(store, "vfk_cache_test", cancelExecutionsOfKey);
    release();
    expect((await before)?.revoked).to.equal(false);
    const after = await cache.get("vfk_cache_test", Date.now());
    expect(lookups).to.equal(2);
    expect(after?.revoked).to.equal(true);
  });
});
