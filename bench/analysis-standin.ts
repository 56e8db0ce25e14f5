/**
 * The text-analysis provider stand-in as its own process for bench:analysis: both the relayer and
 * the direct calls then reach it across a process boundary, as they would reach a provider.
 * Prints `{"url": …}` once it listens; stops on SIGTERM. Argument: the bearer key it accepts.
 */
import { startAnalysisProvider } from "../test/fixtures/standins/analysis-provider.ts";

const apiKey = process.argv[2];
if (!apiKey) throw new Error("usage: analysis-standin.ts <api key>");
const provider = await startAnalysisProvider({ apiKey });
// The bench sends thousands of requests; the request log is for tests.
const keep = provider.hits;
setInterval(() => (keep.length = 0), 1_000).unref();
process.stdout.write(`${JSON.stringify({ url: provider.url })}\n`);
process.once("SIGTERM", () => void provider.close().then(() => process.exit(0)));
