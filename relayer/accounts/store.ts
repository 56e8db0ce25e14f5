/** The storage calls the engine makes (the platform's `Store`, `relayer/store/index.ts`). */
export interface EngineStore {
  query<T = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<T[]>;
  transaction<T>(fn: (tx: EngineStore) => Promise<T>): Promise<T>;
}
