import { parseArgs } from "node:util";
import {
  ApiKeyError,
  checkMasterKey,
  DEFAULT_ROTATION_GRACE_SECONDS,
  createApiKey,
  finishRotation,
  keyFingerprint,
  listApiKeys,
  revokeApiKey,
  rotateApiKey,
  setSignaturePolicy,
  type ApiKeyRecord,
} from "../relayer/auth/keys.ts";
import { ConfigError, loadConfig } from "../relayer/config/index.ts";
import { resolveMasterKey } from "../relayer/config/master-key.ts";
import { TIER_NAMES, type TierName } from "../relayer/config/tiers.ts";
import { openStore } from "../relayer/store/index.ts";
import { migrate } from "../relayer/store/migrate.ts";
import { cancelExecutionsOfKey } from "../relayer/executions/store.ts";

/**
 * API key administration against the relayer's database (same environment as `npm start`):
 *   npm run keys -- create [--tier free|pro|enterprise] [--label TEXT]
 *   npm run keys -- list
 *   npm run keys -- rotate <API_KEY> [--grace 1h]      (previous secret valid for the grace period)
 *   npm run keys -- finish-rotation <API_KEY>          (previous secret stops working now)
 *   npm run keys -- revoke <API_KEY>
 *   npm run keys -- signature <API_KEY> [--require-v2 on|off] [--allow-v1-bodyless on|off]
 * A signing secret is printed exactly once, by create and rotate; it is stored encrypted.
 */
const USAGE = `usage: npm run keys -- <command>
  create [--tier ${TIER_NAMES.join("|")}] [--label TEXT]
  list
  rotate <API_KEY> [--grace DURATION]   e.g. 1h (default), 30m, 24h, 0 (no overlap)
  finish-rotation <API_KEY>
  revoke <API_KEY>
  signature <API_KEY> [--require-v2 on|off] [--allow-v1-bodyless on|off]
                                        which request signatures the key accepts`;

function onOff(name: string, value: string | undefined): boolean | undefined {
  if (value === undefined) return undefined;
  if (value === "on" || value === "off") return value === "on";
  throw new ApiKeyError(`--${name} must be on or off (got ${value})`);
}

function describePolicy(record: ApiKeyRecord): string {
  const { requireV2, allowV1Bodyless } = record.signaturePolicy;
  if (requireV2) return "sig v2 only";
  return allowV1Bodyless ? "sig v1+v2 (v1 bodyless ok)" : "sig v1+v2";
}

export function parseDuration(text: string): number {
  const match = /^(\d+)(s|m|h|d)?$/.exec(text.trim());
  if (!match) throw new ApiKeyError(`--grace must look like 90s, 30m, 24h or 7d (got ${text})`);
  const unit = { s: 1, m: 60, h: 3600, d: 86400 }[match[2] ?? "s"]!;
  return Number(match[1]) * unit;
}

function describe(record: ApiKeyRecord): string {
  const state = record.revokedAt
    ? `revoked ${record.revokedAt.toISOString()}`
    : record.previousExpiresAt && record.previousExpiresAt.getTime() > Date.now()
      ? `rotating (previous secret valid until ${record.previousExpiresAt.toISOString()})`
      : "active";
  return [
    record.key.padEnd(30),
    keyFingerprint(record.key), // what logs show
    record.tier.padEnd(10),
    state.padEnd(24),
    record.createdAt.toISOString(),
    record.source.padEnd(9),
    describePolicy(record).padEnd(26),
    record.label,
  ].join("  ");
}

async function run(argv: string[]): Promise<void> {
  const { positionals, values } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      tier: { type: "string", default: "free" },
      label: { type: "string", default: "" },
      grace: { type: "string", default: `${DEFAULT_ROTATION_GRACE_SECONDS / 3600}h` },
      "require-v2": { type: "string" },
      "allow-v1-bodyless": { type: "string" },
      help: { type: "boolean", short: "h" },
    },
  });
  const [command, key] = positionals;
  if (values.help || !command) {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  const config = loadConfig();
  const master = await resolveMasterKey(config);
  const store = await openStore({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
  try {
    await migrate(store);
    await checkMasterKey(store, master.key);
    const needKey = () => {
      if (!key) throw new ApiKeyError(`${command} needs an API key\n${USAGE}`);
      return key;
    };
    switch (command) {
      case "create": {
        if (!(TIER_NAMES as readonly string[]).includes(values.tier)) {
          throw new ApiKeyError(`--tier must be one of ${TIER_NAMES.join(", ")}`);
        }
        const { record, secret } = await createApiKey(store, master.key, {
          tier: values.tier as TierName,
          label: values.label,
        });
        process.stdout.write(
          `API key:        ${record.key}\ntier:           ${record.tier}\n` +
            `signing secret: ${secret}\n(the secret is shown only now; it is stored encrypted)\n`,
        );
        break;
      }
      case "list": {
        const records = await listApiKeys(store);
        if (records.length === 0) process.stdout.write("no API keys\n");
        for (const record of records) process.stdout.write(`${describe(record)}\n`);
        break;
      }
      case "rotate": {
        const graceSeconds = parseDuration(values.grace);
        const { record, secret } = await rotateApiKey(store, master.key, needKey(), graceSeconds);
        process.stdout.write(
          `API key:            ${record.key}\nnew signing secret: ${secret}\n` +
            (record.previousExpiresAt
              ? `previous secret valid until ${record.previousExpiresAt.toISOString()}\n`
              : "previous secret no longer valid\n") +
            "(the secret is shown only now; it is stored encrypted)\n",
        );
        break;
      }
      case "finish-rotation":
        await finishRotation(store, needKey());
        process.stdout.write(`previous secret of ${key} no longer valid\n`);
        break;
      case "revoke": {
        const record = await revokeApiKey(store, needKey(), cancelExecutionsOfKey);
        process.stdout.write(
          `revoked ${record.key} at ${record.revokedAt!.toISOString()}; ` +
            `${record.executions.cancelled} queued execution(s) cancelled, ` +
            `${record.executions.stopping} running one(s) stopping before their next action\n`,
        );
        break;
      }
      case "signature": {
        const record = await setSignaturePolicy(store, needKey(), {
          requireV2: onOff("require-v2", values["require-v2"]),
          allowV1Bodyless: onOff("allow-v1-bodyless", values["allow-v1-bodyless"]),
        });
        process.stdout.write(
          `${record.key}: ${describePolicy(record)} (takes effect in running relayers within 1 s)\n`,
        );
        break;
      }
      default:
        throw new ApiKeyError(`unknown command ${command}\n${USAGE}`);
    }
  } finally {
    await store.close();
  }
}

run(process.argv.slice(2)).catch((err) => {
  if (err instanceof ApiKeyError || err instanceof ConfigError) {
    process.stderr.write(`${err.message}\n`);
    process.exit(2);
  }
  process.stderr.write(`keys: ${(err as Error).message}\n`);
  process.exit(1);
});
