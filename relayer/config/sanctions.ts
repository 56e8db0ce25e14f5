import path from "node:path";

/** List id of the OFAC SDN files (the default for a file configured without an id). */
export const OFAC_SDN_LIST = "ofac-sdn";

/**
 * The sanctions list snapshot the project ships (relayer/compliance/snapshots/, whose README.md
 * has its provenance). The embedded development relayer loads it when no list is configured, so a first run accepts the
 * spec's examples (they declare `jurisdictions: ["US"]`, which requires `ofac-sdn`); production
 * never falls back to it (a stale list there must be an operator's explicit choice).
 */
export interface SanctionsSnapshot {
  list: string;
  path: string;
  /** SHA-256 of the published file: the copy cannot drift from it unnoticed. */
  sha256: string;
  addresses: number;
  /** Where and when it was taken: a file's mtime after a clone says nothing about the list's age. */
  source: string;
  retrievedOn: string;
}

export const SHIPPED_OFAC_SNAPSHOT: SanctionsSnapshot = {
  list: OFAC_SDN_LIST,
  path: path.resolve(import.meta.dirname, "../compliance/snapshots/ofac-sanctioned-eth.txt"),
  sha256: "57bbfa6912d8342b926ad1b67548f0a869b9ae1a134c8c9ce361df8ed160be73",
  addresses: 147,
  source:
    "OFAC SDN 'Digital Currency Address - ETH' via 0xB10C/ofac-sanctioned-digital-currency-addresses@0650c71",
  retrievedOn: "2026-11-21",
};

/** The snapshot in `VERIFLOW_SANCTIONS_FILES` syntax. */
export function snapshotFilesSpec(snapshot: SanctionsSnapshot): string {
  return `${snapshot.list}=${snapshot.path}`;
}

/** One line for the start banner. */
export function describeSnapshot(snapshot: SanctionsSnapshot): string {
  return (
    `sanctions list ${snapshot.list}: the shipped snapshot of ${snapshot.retrievedOn} ` +
    `(${snapshot.addresses} addresses, ${snapshot.source}); ` +
    `set VERIFLOW_SANCTIONS_FILES for current lists`
  );
}
