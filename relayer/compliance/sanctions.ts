import { EventEmitter } from "node:events";
import { watch, type FSWatcher } from "node:fs";
import path from "node:path";
import { OFAC_SDN_LIST } from "../config/index.ts";
import { loadListFile, type LoadedListFile, type SanctionedAddress } from "./lists.ts";
/** List id of the on-chain Chainalysis-compatible oracle (see `oracle.ts`). */
export const CHAINALYSIS_ORACLE_LIST = "chainalysis-oracle";

const LIST_ID = /^[a-z0-9][a-z0-9._-]*$/;

export interface SanctionsFileSpec {
  list: string;
  path: string;
}

/**
 * Parses `VERIFLOW_SANCTIONS_FILES`: comma-separated entries, each `path` (list `ofac-sdn`) or
 * `list-id=path` (e.g. `ofac-sdn=/data/sdn_advanced.xml,eu-fsf=/data/eu.txt`). Relative paths
 * resolve against `baseDir`. Several files may share a list id: their entries are merged.
 */
export function parseSanctionsFiles(
  value: string | undefined,
  baseDir = process.cwd(),
): SanctionsFileSpec[] {
  if (value === undefined || value.trim() === "") return [];
  return value
    .split(",")
    .map((item) => item.trim())
    .filter((item) => item !== "")
    .map((item) => {
      const eq = item.indexOf("=");
      const list = eq > 0 ? item.slice(0, eq).trim() : OFAC_SDN_LIST;
      const file = eq > 0 ? item.slice(eq + 1).trim() : item;
      if (!LIST_ID.test(list) || list === CHAINALYSIS_ORACLE_LIST) {
        throw new Error(
          `VERIFLOW_SANCTIONS_FILES: bad list id "${list}" (lower-case letters, digits, . _ -; "${CHAINALYSIS_ORACLE_LIST}" is reserved)`,
        );
      }
      if (file === "") throw new Error(`VERIFLOW_SANCTIONS_FILES: entry "${item}" has no path`);
      return { list, path: path.resolve(baseDir, file) };
    });
}

export interface ListMatch {
  list: string;
  entry: string;
  address: string;
}

export interface ListFileInfo {
  name: string;
  source: string;
  /** Addresses on the list; null for an oracle, which cannot be enumerated. */
  entries: number | null;
  updated_at: string;
}

export interface ReloadOutcome {
  reloaded: string[];
  /** Files that failed to load: their previous content stays in force. */
  failed: { path: string; error: string }[];
}

interface Logger {
  info(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
}

const silent: Logger = { info: () => {}, error: () => {} };

/**
 * The loaded list files, swapped atomically on reload. A file that fails to reload (a partial
 * write, a bad download) keeps its previous content: a sanctions list must never silently empty.
 */
export class SanctionsLists extends EventEmitter<{ reloaded: [ReloadOutcome] }> {
  readonly specs: readonly SanctionsFileSpec[];
  private files: LoadedListFile[];
  private readonly logger: Logger;
  private stopWatching: (() => void) | undefined;
  private running: Promise<unknown> = Promise.resolve();
  private queued: Promise<ReloadOutcome> | undefined;

  private constructor(
    specs: readonly SanctionsFileSpec[],
    files: LoadedListFile[],
    logger: Logger,
  ) {
    super();
    this.specs = specs;
    this.files = files;
    this.logger = logger;
  }

  /** Loads every configured file; any failure at start is fatal (the error names the file). */
  static async load(
    specs: readonly SanctionsFileSpec[],
    logger: Logger = silent,
  ): Promise<SanctionsLists> {
    const files = await Promise.all(specs.map((s) => loadListFile(s.list, s.path)));
    for (const f of files) {
      logger.info(
        { list: f.list, path: f.path, format: f.format, entries: f.entries.size },
        "sanctions list loaded",
      );
    }
    return new SanctionsLists(specs, files, logger);
  }

  /** List ids with at least one file. */
  listIds(): string[] {
    return [...new Set(this.specs.map((s) => s.list))];
  }

  describe(listIds?: ReadonlySet<string>): ListFileInfo[] {
    return this.files
      .filter((f) => !listIds || listIds.has(f.list))
      .map((f) => ({
        name: f.list,
        source: f.path,
        entries: f.entries.size,
        updated_at: f.updatedAt.toISOString(),
      }));
  }

  /** `address` is any case; returns one match per list file naming it. */
  lookup(address: string, listIds?: ReadonlySet<string>): ListMatch[] {
    const key = address.toLowerCase();
    const matches: ListMatch[] = [];
    for (const f of this.files) {
      if (listIds && !listIds.has(f.list)) continue;
      const hit: SanctionedAddress | undefined = f.entries.get(key);
      if (hit) matches.push({ list: f.list, entry: hit.entry, address: hit.address });
    }
    return matches;
  }

  /**
   * Re-reads every file. Reloads run one at a time; a call made while one runs queues one more
   * (shared by every call made meanwhile), so a change written after a reload began is never missed.
   */
  reload(): Promise<ReloadOutcome> {
    if (this.queued) return this.queued;
    const next = this.running.then(() => {
      this.queued = undefined;
      return this.doReload();
    });
    this.queued = next;
    this.running = next.catch(() => undefined);
    return next;
  }

  private async doReload(): Promise<ReloadOutcome> {
    const results = await Promise.allSettled(this.specs.map((s) => loadListFile(s.list, s.path)));
    const next: LoadedListFile[] = [];
    const outcome: ReloadOutcome = { reloaded: [], failed: [] };
    results.forEach((result, i) => {
      const spec = this.specs[i]!;
      if (result.status === "fulfilled") {
        next.push(result.value);
        outcome.reloaded.push(spec.path);
      } else {
        const previous = this.files.find((f) => f.path === spec.path && f.list === spec.list);
        if (previous) next.push(previous);
        const error = (result.reason as Error).message;
        outcome.failed.push({ path: spec.path, error });
        this.logger.error(
          { list: spec.list, path: spec.path, error },
          "sanctions list reload failed; keeping the previous content",
        );
      }
    });
    this.files = next;
    this.emit("reloaded", outcome);
    this.logger.info(
      { reloaded: outcome.reloaded.length, failed: outcome.failed.length },
      "sanctions lists reloaded",
    );
    return outcome;
  }

  /**
   * Reloads when a file changes (watching its directory, since list updates usually replace the
   * file by a rename) and on SIGHUP (`files`/`signal` turn either off). Returns a function that stops both.
   */
  watch({
    debounceMs = 200,
    files = true,
    signal = true,
  }: { debounceMs?: number; files?: boolean; signal?: boolean } = {}): () => void {
    if (this.stopWatching) return this.stopWatching;
    let timer: NodeJS.Timeout | undefined;
    const schedule = (): void => {
      clearTimeout(timer);
      timer = setTimeout(() => void this.reload(), debounceMs);
    };
    const names = new Map<string, Set<string>>();
    for (const s of this.specs) {
      const dir = path.dirname(s.path);
      if (!names.has(dir)) names.set(dir, new Set());
      names.get(dir)!.add(path.basename(s.path));
    }
    const watchers: FSWatcher[] = [];
    for (const [dir, watched] of files ? names : []) {
      const watcher = watch(dir, (_event, filename) => {
        if (filename === null || watched.has(filename.toString())) schedule();
      });
      watcher.unref(); // watching must not keep a finished process alive
      watcher.on("error", (err) =>
        this.logger.error({ dir, error: err.message }, "sanctions list watch failed"),
      );
      watchers.push(watcher);
    }
    const onHangup = (): void => void this.reload();
    if (signal) process.on("SIGHUP", onHangup);
    this.stopWatching = () => {
      clearTimeout(timer);
      for (const w of watchers) w.close();
      if (signal) process.off("SIGHUP", onHangup);
      this.stopWatching = undefined;
    };
    return this.stopWatching;
  }
}
