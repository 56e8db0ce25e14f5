import { randomBytes } from "node:crypto";
import type { ChildExtension } from "../../fixtures/child-service.ts";
import { newApiKey } from "../../fixtures/relayer.ts";

/**
 * The child relayer of car-memory.test.ts, without chains: it holds CAR_ARTIFACTS artifacts of
 * about CAR_ARTIFACT_KIB KiB each for one key (written through the owned store, not HTTP, to keep
 * the set-up short) and adds `key`, `secret` and `cids` to its ready line.
 */
const carExport: ChildExtension = {
  chains: null,
  ready: async ({ ctx }) => {
    const count = Number(process.env.CAR_ARTIFACTS ?? 300);
    const kib = Number(process.env.CAR_ARTIFACT_KIB ?? 1000);
    const key = await newApiKey(ctx, "enterprise", "car-memory");
    const cids: string[] = [];
    for (let i = 0; i < count; i++) {
      // Random text does not compress and makes every artifact distinct.
      const value = {
        n: i,
        data: randomBytes(Math.floor((kib * 1024 * 3) / 4)).toString("base64"),
      };
      cids.push(await ctx.artifacts.putArtifact(value, { apiKeyId: key.id, kind: "upload" }));
    }
    return { key: key.key, secret: key.secret, cids };
  },
};
export default carExport;
