/**
 * Secrets that configuration files name by environment variable (a chains file's `operatorKey.env`,
 * an integration's `key_vault: env`). They are read where they are used and never copied into
 * `Config`, which is logged at start; the process environment is read only under relayer/config/.
 */
export function environmentVariable(name: string): string | undefined {
  return process.env[name];
}
