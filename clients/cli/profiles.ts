import { chmod, mkdir, readFile, rename, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";

/**
 * Where the CLI finds the relayer and its credentials, first match wins per field: flags
 * (`--url`, `--key`; never the secret), the environment (`VERIFLOW_URL`, `VERIFLOW_API_KEY`,
 * `VERIFLOW_SIGNING_SECRET`), then the profile file written by `veriflow login` (mode 0600;
 * `$VERIFLOW_CONFIG`, else `$XDG_CONFIG_HOME/veriflow/profiles.json`, else
 * `~/.config/veriflow/profiles.json`). The secret is never taken from arguments, so it stays
 * out of shell history and `ps`.
 */
export interface Profile {
  url: string;
  apiKey: string;
  signingSecret: string;
}

type ProfileFile = { profiles: Record<string, Profile> };

export function profilePath(env: NodeJS.ProcessEnv): string {
  if (env.VERIFLOW_CONFIG) return path.resolve(env.VERIFLOW_CONFIG);
  const base = env.XDG_CONFIG_HOME || path.join(os.homedir(), ".config");
  return path.join(base, "veriflow", "profiles.json");
}

async function readProfiles(file: string): Promise<ProfileFile> {
  try {
    return JSON.parse(await readFile(file, "utf8")) as ProfileFile;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return { profiles: {} };
    throw new Error(`cannot read the profile file ${file}: ${(err as Error).message}`, {
      cause: err,
    });
  }
}

/** Writes the profile (0600 from the first byte: the file is created with that mode, then renamed). */
export async function saveProfile(file: string, name: string, profile: Profile): Promise<void> {
  const all = await readProfiles(file);
  all.profiles[name] = profile;
  await mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
  const temp = `${file}.${process.pid}.tmp`;
  await writeFile(temp, `${JSON.stringify(all, null, 2)}\n`, { mode: 0o600 });
  await chmod(temp, 0o600);
  await rename(temp, file);
}

export class ProfileError extends Error {}

export async function resolveProfile(
  flags: { url?: string; key?: string; profile?: string },
  env: NodeJS.ProcessEnv,
): Promise<Profile> {
  const name = flags.profile ?? env.VERIFLOW_PROFILE ?? "default";
  const stored = (await readProfiles(profilePath(env))).profiles[name];
  const url = flags.url ?? env.VERIFLOW_URL ?? stored?.url;
  const apiKey = flags.key ?? env.VERIFLOW_API_KEY ?? stored?.apiKey;
  const signingSecret = env.VERIFLOW_SIGNING_SECRET ?? stored?.signingSecret;
  const missing = [
    !url && "the relayer URL (--url or VERIFLOW_URL)",
    !apiKey && "the API key (--key or VERIFLOW_API_KEY)",
    !signingSecret && "the signing secret (VERIFLOW_SIGNING_SECRET)",
  ].filter(Boolean);
  if (missing.length > 0) {
    throw new ProfileError(
      `missing ${missing.join(", ")}: run \`veriflow login --url URL --key KEY\` (profile "${name}")`,
    );
  }
  return { url: url!, apiKey: apiKey!, signingSecret: signingSecret! };
}
