import { expect } from "chai";
import { createHash } from "node:crypto";
import { readFile } from "node:fs/promises";
import { SHIPPED_OFAC_SNAPSHOT } from "../../../relayer/config/sanctions.ts";
import { loadListFile } from "../../../relayer/compliance/lists.ts";
import { loadConfig } from "../../../relayer/config/index.ts";

describe("# shipped sanctions snapshot", function () {
  it("should be the published file byte for byte, with the address count it declares", async function () {
    const bytes = await readFile(SHIPPED_OFAC_SNAPSHOT.path);
    expect(createHash("sha256").update(bytes).digest("hex")).to.equal(SHIPPED_OFAC_SNAPSHOT.sha256);
    const loaded = await loadListFile(SHIPPED_OFAC_SNAPSHOT.list, SHIPPED_OFAC_SNAPSHOT.path);
    expect(loaded.entries.size).to.equal(SHIPPED_OFAC_SNAPSHOT.addresses);
    // Tornado Cash's router, a well-known SDN entry, is on it.
    expect(loaded.entries.has("0xd90e2f925da726b50c4ed8d0fb90ad053324f31b")).to.equal(true);
  });

  it("should be the default only for the embedded development relayer without configured lists", function () {
    const base = { DATA_DIR: "/tmp/vf-snapshot-config" };
    expect(loadConfig({ ...base }).sanctionsSnapshot).to.equal(SHIPPED_OFAC_SNAPSHOT);
    expect(loadConfig({ ...base, NODE_ENV: "development" }).sanctionsSnapshot).to.equal(
      SHIPPED_OFAC_SNAPSHOT,
    );
    // Production fails closed: no list unless the operator names one.
    expect(
      loadConfig({ ...base, NODE_ENV: "production", VERIFLOW_MASTER_KEY: "11".repeat(32) })
        .sanctionsSnapshot,
    ).to.equal(null);
    expect(loadConfig({ ...base, NODE_ENV: "test" }).sanctionsSnapshot).to.equal(null);
    // Real chains are not the devnet: their lists must be explicit too.
    expect(loadConfig({ ...base, VERIFLOW_CHAINS: "rpc" }).sanctionsSnapshot).to.equal(null);
    expect(loadConfig({ ...base, VERIFLOW_CHAINS: "./chains.json" }).sanctionsSnapshot).to.equal(
      null,
    );
    // Configured lists replace it (never merged with a stale snapshot).
    expect(
      loadConfig({ ...base, VERIFLOW_SANCTIONS_FILES: "ofac-sdn=/lists/sdn.xml" })
        .sanctionsSnapshot,
    ).to.equal(null);
  });
});
