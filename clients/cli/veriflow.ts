#!/usr/bin/env node
/**
 * `veriflow`: the relayer from the command line, built on the SDK (clients/sdk). `veriflow help`
 * lists the commands; profiles.ts says where the URL, key and secret come from.
 */
import { spawn } from "node:child_process";
import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { createInterface } from "node:readline";
import { parseArgs } from "node:util";
import {
  ExecutionFailedError,
  VeriflowApiError,
  VeriflowClient,
  type Execution,
  type ExecutionState,
  type Schemas,
  type WorkflowInput,
} from "../sdk/index.ts";
import { profilePath, ProfileError, resolveProfile, saveProfile } from "./profiles.ts";
import { outcomeOf, plainRenderer, terminalRenderer } from "./watch.ts";

const HELP = `veriflow <command> [options]

  login --url URL --key KEY        save a profile (the secret is read from a prompt or stdin)
  submit FILE [--watch] [--idempotency-key K]   submit a workflow (JSON or YAML)
  status ID [--watch]              an execution's state, steps and report
  list [--state S] [--limit N]     this key's executions, newest first
  cancel ID                        cancel a queued or running execution
  report ID [--out FILE]           the signed final report
  deploy FILE                      store a named, versioned workflow configuration
  run NAME [--version N] [--watch] run a deployed configuration
  schedules list | pause ID | resume ID | delete ID
  webhooks add URL [--events E,E] [--description D]   register an endpoint (its secret is shown once)
  webhooks list | delete ID | deliveries ID [--limit N] | redeliver ID [--message MSG_ID]
  simulate FILE                    dry-run a transaction ({chain_id, tx_data, block_count?})
  compliance ADDRESS [--jurisdictions US,EU]
  analysis FILE [--instructions T] [--workflow ID] [--idempotency-key K]
                                   analyse a text file (text-analysis provider); a retry with
                                   the same key answers the analysis that ran
  audit REPORT [--chains FILE] [--receipt FILE] [--cid CID]
                                   audit a report from the chains alone (runs veriflow-audit);
                                   REPORT: a JSON or CAR file, or the signed report's CID
  account                          the key's relayer-managed account and balances
  faucet                           devnet: top the account up with test assets

Options everywhere: --json (machine-readable output), --profile NAME, --url URL, --key KEY,
--max-wait SECONDS (longest Retry-After waited out on 429 or 503 before giving up; default 60).
Environment: VERIFLOW_URL, VERIFLOW_API_KEY, VERIFLOW_SIGNING_SECRET, VERIFLOW_PROFILE,
VERIFLOW_CONFIG (profile file; default ~/.config/veriflow/profiles.json, mode 0600).
Exit status: 0 done (a watched execution completed), 1 refused, failed or cancelled, 2 bad usage.`;

const OPTIONS = {
  url: { type: "string" },
  key: { type: "string" },
  profile: { type: "string" },
  json: { type: "boolean", default: false },
  watch: { type: "boolean", default: false },
  "idempotency-key": { type: "string" },
  state: { type: "string" },
  limit: { type: "string" },
  out: { type: "string" },
  version: { type: "string" },
  jurisdictions: { type: "string" },
  interval: { type: "string" },
  instructions: { type: "string" },
  workflow: { type: "string" },
  chains: { type: "string" },
  receipt: { type: "string" },
  cid: { type: "string" },
  events: { type: "string" },
  description: { type: "string" },
  message: { type: "string" },
  "max-wait": { type: "string" },
  help: { type: "boolean", short: "h", default: false },
} as const;

type Flags = ReturnType<
  typeof parseArgs<{ options: typeof OPTIONS; allowPositionals: true }>
>["values"];

class UsageError extends Error {}

const STATES: readonly ExecutionState[] = ["queued", "running", "completed", "failed", "cancelled"];

function print(value: unknown, flags: Flags, human?: () => string): void {
  process.stdout.write(`${flags.json || !human ? JSON.stringify(value, null, 2) : human()}\n`);
}

function need(value: string | undefined, what: string): string {
  if (!value) throw new UsageError(`missing ${what}`);
  return value;
}

/** JSON or YAML by extension, else by content (a JSON document starts with `{`). */
async function workflowFile(file: string): Promise<WorkflowInput> {
  const text = await readFile(file, "utf8");
  const yaml =
    /\.ya?ml$/i.test(file) || (!/\.json$/i.test(file) && !text.trimStart().startsWith("{"));
  if (yaml) return { yaml: text };
  try {
    return JSON.parse(text) as WorkflowInput & object;
  } catch (err) {
    throw new UsageError(`${file} is not valid JSON: ${(err as Error).message}`);
  }
}

/** The secret from a hidden prompt on a terminal, else the first line of stdin. */
async function readSecret(): Promise<string> {
  const input = process.stdin;
  if (!input.isTTY) {
    let text = "";
    for await (const chunk of input) text += String(chunk);
    return text.split(/\r?\n/)[0]!.trim();
  }
  const rl = createInterface({ input, output: process.stderr, terminal: true });
  // Echo nothing of what is typed or pasted.
  (rl as unknown as { _writeToOutput: (s: string) => void })._writeToOutput = () => undefined;
  process.stderr.write("signing secret: ");
  const secret = await new Promise<string>((resolve) => rl.question("", resolve));
  rl.close();
  process.stderr.write("\n");
  return secret.trim();
}

async function follow(client: VeriflowClient, id: string, flags: Flags): Promise<number> {
  const interval = flags.interval ? Number(flags.interval) : 1_000;
  const renderer =
    process.stdout.isTTY && !flags.json
      ? terminalRenderer(process.stdout)
      : plainRenderer((line) => {
          if (!flags.json) process.stdout.write(`${line}\n`);
        });
  const controller = new AbortController();
  const stop = () => controller.abort(new Error("interrupted"));
  process.once("SIGINT", stop);
  let last: Execution | undefined;
  try {
    for await (const execution of client.watch(id, {
      signal: controller.signal,
      intervalMs: interval,
    })) {
      last = execution;
      renderer.update(execution);
    }
  } finally {
    process.off("SIGINT", stop);
  }
  renderer.finish(last!);
  if (flags.json) print(last, flags);
  return outcomeOf(last!).ok ? 0 : 1;
}

/** Readable 503 advice: the chains the relayer reports ready, as a `fallback_chains` to add. */
async function fallbackAdvice(client: VeriflowClient): Promise<string> {
  // /readyz answers 503 while a chain is down: its body still lists the chains that answer.
  const { data, error } = await client.api
    .GET("/readyz")
    .catch(() => ({ data: undefined, error: undefined }));
  const readiness = data ?? error;
  const ready = Object.entries(readiness?.checks.chains ?? {})
    .filter(([, check]) => check.ok)
    .map(([name]) => name);
  return ready.length > 0
    ? `suggested: add "fallback_chains": ${JSON.stringify(ready)} to the workflow or the action (chains the relayer reports ready)`
    : 'suggested: add "fallback_chains": [<other chain>, …] to the workflow or the action';
}

async function main(argv: string[]): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({ args: argv, options: OPTIONS, allowPositionals: true, strict: true });
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  const flags = parsed.values;
  const [command, ...args] = parsed.positionals;
  if (!command || command === "help" || flags.help) {
    process.stdout.write(`${HELP}\n`);
    return command || flags.help ? 0 : 2;
  }

  if (command === "login") {
    const url = need(flags.url ?? process.env.VERIFLOW_URL, "--url");
    const apiKey = need(flags.key ?? process.env.VERIFLOW_API_KEY, "--key");
    const signingSecret = await readSecret();
    if (!signingSecret) throw new UsageError("no signing secret given");
    // Check the credentials before saving them.
    await new VeriflowClient({ baseUrl: url, apiKey, signingSecret }).list({ limit: 1 });
    const file = profilePath(process.env);
    const name = flags.profile ?? process.env.VERIFLOW_PROFILE ?? "default";
    await saveProfile(file, name, { url, apiKey, signingSecret });
    print(
      { profile: name, file, url, api_key: apiKey },
      flags,
      () => `saved profile "${name}" in ${file}`,
    );
    return 0;
  }

  if (command === "audit") {
    // The auditor reads the chains; only a CID input and the report's text analyses are read
    // from the relayer (the profile).
    return runAuditor(need(args[0], "REPORT"), flags);
  }

  const profile = await resolveProfile(flags, process.env);
  const maxWait = flags["max-wait"] === undefined ? undefined : Number(flags["max-wait"]);
  if (maxWait !== undefined && !(Number.isFinite(maxWait) && maxWait >= 0 && maxWait <= 3600)) {
    throw new UsageError("--max-wait takes seconds between 0 and 3600");
  }
  const client = new VeriflowClient({
    baseUrl: profile.url,
    apiKey: profile.apiKey,
    signingSecret: profile.signingSecret,
    ...(maxWait !== undefined ? { retry: { maxDelayMs: maxWait * 1000 } } : {}),
    onRetry: ({ delayMs, status, code }) =>
      process.stderr.write(
        `${status ?? "network error"}${code ? ` ${code}` : ""}: retrying in ${Math.ceil(delayMs / 1000)} s\n`,
      ),
  });

  try {
    switch (command) {
      case "submit":
      case "run": {
        const result =
          command === "submit"
            ? await client.submit(await workflowFile(need(args[0], "FILE")), {
                idempotencyKey: flags["idempotency-key"],
              })
            : await client.run(need(args[0], "NAME"), {
                version: flags.version ? Number(flags.version) : undefined,
                idempotencyKey: flags["idempotency-key"],
              });
        if (!flags.watch) {
          print(result, flags, () =>
            [
              `${result.execution_id} ${result.status}`,
              `cost estimate $${result.cost_estimate.total_usd} (${Object.entries(
                result.cost_estimate.gas_breakdown,
              )
                .map(([chain, usd]) => `${chain} $${usd}`)
                .join(", ")})`,
            ].join("\n"),
          );
          return 0;
        }
        if (!flags.json) process.stdout.write(`${result.execution_id} queued\n`);
        return await follow(client, result.execution_id, flags);
      }
      case "status": {
        const id = need(args[0], "ID");
        if (flags.watch) return await follow(client, id, flags);
        const execution = await client.status(id);
        print(execution, flags, () => plainLines(execution).join("\n"));
        return 0;
      }
      case "list": {
        if (flags.state && !STATES.includes(flags.state as ExecutionState)) {
          throw new UsageError(`--state must be one of ${STATES.join(", ")}`);
        }
        const page = await client.list({
          state: flags.state as ExecutionState | undefined,
          limit: flags.limit ? Number(flags.limit) : undefined,
        });
        print(
          page,
          flags,
          () =>
            page.items
              .map(
                (e) =>
                  `${e.execution_id}  ${e.state.padEnd(9)}  ${e.stage.padEnd(8)}  ${e.created_at}  ${e.name}`,
              )
              .join("\n") || "no executions",
        );
        return 0;
      }
      case "cancel": {
        const result = await client.cancel(need(args[0], "ID"));
        print(
          result,
          flags,
          () =>
            `${result.execution_id} ${result.state}${result.cancel_requested ? " (cancel requested)" : ""}`,
        );
        return 0;
      }
      case "report": {
        const execution = await client.status(need(args[0], "ID"));
        if (!execution.report) {
          process.stderr.write(
            `${execution.execution_id} has no report yet (state ${execution.state})\n`,
          );
          return 1;
        }
        if (flags.out) {
          await writeFile(flags.out, `${JSON.stringify(execution.report, null, 2)}\n`);
          print(
            { cid: execution.report.cid, out: flags.out },
            flags,
            () => `report ${execution.report!.cid} written to ${flags.out}`,
          );
        } else {
          print(execution.report, { ...flags, json: true });
        }
        return 0;
      }
      case "deploy": {
        const result = await client.deploy(await workflowFile(need(args[0], "FILE")), {
          idempotencyKey: flags["idempotency-key"],
        });
        print(result, flags, () => `deployed ${result.name} version ${result.version}`);
        return 0;
      }
      case "schedules": {
        const [action = "list", id] = args;
        if (action === "list") {
          const page = await client.schedules();
          print(
            page,
            flags,
            () =>
              page.items
                .map(
                  (s) =>
                    `${s.id}  ${s.paused ? "paused " : "active "}  ${s.cron.padEnd(12)}  next ${s.next_run_at ?? "-"}  ${s.name}`,
                )
                .join("\n") || "no schedules",
          );
          return 0;
        }
        const sid = need(id, "schedule ID");
        const result =
          action === "pause"
            ? await client.pauseSchedule(sid)
            : action === "resume"
              ? await client.resumeSchedule(sid)
              : action === "delete"
                ? await client.deleteSchedule(sid)
                : (() => {
                    throw new UsageError(`schedules ${action}: use list, pause, resume or delete`);
                  })();
        print(result, flags, () => `schedule ${sid} ${action}d`);
        return 0;
      }
      case "webhooks":
        return await webhooks(client, args, flags);
      case "simulate": {
        const body = JSON.parse(await readFile(need(args[0], "FILE"), "utf8"));
        const result = await client.simulate(body);
        print(result, flags, () =>
          [
            `${result.success ? "succeeds" : "reverts"} on ${result.chain} (block ${result.block_number})${result.gas_used !== null ? `, gas ${result.gas_used}` : ""}`,
            `MEV risk ${result.mev.risk} over ${result.mev.block_count} blocks`,
            ...result.warnings.map((w) => `warning: ${w}`),
          ].join("\n"),
        );
        return 0;
      }
      case "compliance": {
        const result = await client.compliance(
          need(args[0], "ADDRESS"),
          flags.jurisdictions?.split(",").map((j) => j.trim()),
        );
        print(result, flags, () =>
          [
            `${result.address} ${result.sanctioned ? "SANCTIONED" : "not sanctioned"}`,
            ...result.matches.map((m) => `  ${m.list}: ${m.entry}`),
            `checked: ${result.lists.map((l) => l.name).join(", ")}`,
          ].join("\n"),
        );
        return result.sanctioned ? 1 : 0;
      }
      case "analysis": {
        const text = await readFile(need(args[0], "FILE"), "utf8");
        const result = await client.analyze(
          {
            text,
            ...(flags.instructions ? { instructions: flags.instructions } : {}),
            ...(flags.workflow ? { workflow_id: flags.workflow } : {}),
          },
          flags["idempotency-key"] ? { idempotencyKey: flags["idempotency-key"] } : {},
        );
        print(result, flags, () =>
          [
            `${result.analysis_id} by ${result.model} (${result.route}${result.fallback_reason ? `, fallback: ${result.fallback_reason}` : ""})`,
            result.output,
          ].join("\n"),
        );
        return 0;
      }
      case "account": {
        const account = await client.account();
        print(account, flags, () =>
          [
            `account ${account.address}`,
            ...account.chains.map(
              (c) =>
                `  ${c.chain}: ${Object.entries(c.balances)
                  .map(([a, v]) => `${v} ${a}`)
                  .join(", ")}`,
            ),
          ].join("\n"),
        );
        return 0;
      }
      case "faucet": {
        const result = await client.faucet();
        print(result, flags, () => `sent to ${result.address}: ${JSON.stringify(result.granted)}`);
        return 0;
      }
      default:
        throw new UsageError(`unknown command ${command}`);
    }
  } catch (err) {
    if (
      err instanceof VeriflowApiError &&
      err.status === 503 &&
      err.code !== "SANCTIONS_LIST_UNAVAILABLE"
    ) {
      process.stderr.write(`${await fallbackAdvice(client)}\n`);
    }
    throw err;
  }
}

/** `webhooks add|list|delete|deliveries|redeliver`: this key's webhook endpoints. */
async function webhooks(client: VeriflowClient, args: string[], flags: Flags): Promise<number> {
  const [action = "list", target] = args;
  switch (action) {
    case "add": {
      const events = flags.events
        ?.split(",")
        .map((e) => e.trim())
        .filter(Boolean);
      const created = await client.webhooks.create({
        url: need(target, "URL"),
        ...(events ? { events: events as Schemas["WebhookCreate"]["events"] } : {}),
        ...(flags.description ? { description: flags.description } : {}),
      });
      print(created, flags, () =>
        [
          `${created.id} ${created.url} (${created.events.length > 0 ? created.events.join(", ") : "every event"})`,
          `signing secret (shown only now; verify deliveries with it): ${created.secret}`,
        ].join("\n"),
      );
      return 0;
    }
    case "list": {
      const page = await client.webhooks.list();
      print(
        page,
        flags,
        () =>
          page.items
            .map(
              (e) =>
                `${e.id}  ${e.url}  ${e.events.length > 0 ? e.events.join(",") : "every event"}${e.description ? `  ${e.description}` : ""}`,
            )
            .join("\n") || "no webhooks",
      );
      return 0;
    }
    case "delete": {
      const result = await client.webhooks.delete(need(target, "webhook ID"));
      print(result, flags, () => `${result.id} deleted`);
      return 0;
    }
    case "deliveries": {
      const limit = flags.limit ? Number(flags.limit) : undefined;
      if (limit !== undefined && !(Number.isInteger(limit) && limit > 0)) {
        throw new UsageError("--limit must be a positive integer");
      }
      const page = await client.webhooks.deliveries(need(target, "webhook ID"), limit);
      print(
        page,
        flags,
        () =>
          page.items
            .map(
              (d) =>
                `${d.id.padEnd(10)}  ${d.state.padEnd(9)}  ${d.type.padEnd(27)}  ${d.execution_id}  attempts ${d.attempts}${d.last_status !== null ? `  last ${d.last_status}` : ""}${d.last_error && d.state !== "delivered" ? `  (${d.last_error})` : ""}`,
            )
            .join("\n") || "no deliveries",
      );
      return 0;
    }
    case "redeliver": {
      const result = await client.webhooks.redeliver(need(target, "webhook ID"), flags.message);
      print(
        result,
        flags,
        () => `${result.redelivered} deliver${result.redelivered === 1 ? "y" : "ies"} queued again`,
      );
      return 0;
    }
    default:
      throw new UsageError(`webhooks ${action}: use add, list, delete, deliveries or redeliver`);
  }
}

/**
 * `audit` runs the auditor (`veriflow-audit`, scripts/audit.ts) as its own process: it verifies
 * from the chains, and the CLI stays a client of the HTTP API only. Its exit status is returned.
 */
function runAuditor(report: string, flags: Flags): Promise<number> {
  const auditor = path.resolve(import.meta.dirname, "../../scripts/audit.ts");
  const args = [
    auditor,
    report,
    ...(flags.chains ? ["--chains", flags.chains] : []),
    ...(flags.receipt ? ["--receipt", flags.receipt] : []),
    ...(flags.cid ? ["--cid", flags.cid] : []),
    // A CID and the report's text analyses are read from the relayer with the profile's credentials.
    ...(flags.profile ? ["--profile", flags.profile] : []),
    ...(flags.url ? ["--url", flags.url] : []),
    ...(flags.key ? ["--key", flags.key] : []),
    ...(flags.json ? ["--json"] : []),
  ];
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { stdio: "inherit" });
    child.once("error", reject);
    child.once("exit", (code) => resolve(code ?? 1));
  });
}

function plainLines(execution: Execution): string[] {
  const lines: string[] = [];
  const renderer = plainRenderer((line) => lines.push(line));
  renderer.finish(execution);
  return lines;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err: unknown) => {
    if (err instanceof UsageError) {
      process.stderr.write(`veriflow: ${err.message}\n(veriflow help lists the commands)\n`);
      process.exit(2);
    }
    if (err instanceof VeriflowApiError) {
      process.stderr.write(`${err.code}: ${err.detail}\n`);
      if (err.retryAfterSeconds !== null)
        process.stderr.write(`retry after ${err.retryAfterSeconds} s\n`);
      const issues = err.body.issues ?? [];
      for (const issue of issues) process.stderr.write(`  ${issue.path}: ${issue.message}\n`);
      process.exit(1);
    }
    if (err instanceof ExecutionFailedError || err instanceof ProfileError) {
      process.stderr.write(`${err.message}\n`);
      process.exit(1);
    }
    process.stderr.write(`veriflow: ${(err as Error).message}\n`);
    process.exit(1);
  },
);
