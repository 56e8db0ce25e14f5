import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { expect } from "chai";
import { AnalysisProvider, ProviderError } from "../../../relayer/analysis/provider.ts";
import { DEFAULT_RETRY } from "../../../relayer/config/integrations.ts";

/**
 * The provider client's transport, against real HTTP servers on 127.0.0.1: what the stand-in's
 * switches do not cover (answer size, redirects, connection reuse, a 429 without Retry-After).
 */
describe("# text-analysis provider client", function () {
  this.timeout(30_000);
  let server: Server;
  let url: string;
  let handle: (req: IncomingMessage, res: ServerResponse) => void;
  const connections: unknown[] = [];
  const requests: string[] = [];

  before(async function () {
    server = createServer((req, res) => {
      requests.push(`${req.method} ${req.url}`);
      req.resume().on("end", () => handle(req, res));
    });
    server.on("connection", (socket) => connections.push(socket));
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(async function () {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  });
  beforeEach(function () {
    requests.length = 0;
    connections.length = 0;
  });

  const client = (endpoint = url) =>
    new AnalysisProvider(
      {
        apiEndpoint: endpoint,
        retry: { ...DEFAULT_RETRY, attempts: 2, initialDelayMs: 1, maxDelayMs: 2_000 },
        timeoutMs: 5_000,
      },
      { apiKey: async () => "sk-test", sleep: async () => {} },
    );
  const failure = (p: Promise<unknown>) =>
    p.then(
      () => expect.fail("the call should have failed"),
      (err: unknown) => {
        expect(err).to.be.instanceOf(ProviderError);
        return (err as ProviderError).failure;
      },
    );
  const moderation = JSON.stringify({ results: [{ category_scores: { bias: 0.25 } }] });

  it("should send every call of a client over one kept-alive connection", async function () {
    handle = (_req, res) => res.setHeader("Content-Type", "application/json").end(moderation);
    const provider = client();
    try {
      for (let i = 0; i < 4; i++) expect(await provider.biasScore("text")).to.equal(0.25);
      expect(requests).to.have.length(4);
      expect(connections).to.have.length(1);
    } finally {
      provider.close();
    }
  });

  it("should refuse an answer over 1 MiB unread, as a bad response, without retrying", async function () {
    handle = (_req, res) => {
      res.setHeader("Content-Type", "application/json");
      res.end(`{"results":[{"category_scores":{"bias":0.1}}],"pad":"${"x".repeat(2 << 20)}"}`);
    };
    const provider = client();
    try {
      const f = await failure(provider.biasScore("text"));
      expect(f.kind).to.equal("bad_response");
      expect(String((f as { reason: string }).reason)).to.match(/exceeds 1048576 bytes/);
      expect(requests).to.have.length(1);
    } finally {
      provider.close();
    }
  });

  it("should not follow a redirect (the bearer key stays with the configured endpoint)", async function () {
    const elsewhere: string[] = [];
    const other = createServer((req, res) => {
      elsewhere.push(String(req.headers.authorization));
      res.end(moderation);
    });
    await new Promise<void>((r) => other.listen(0, "127.0.0.1", r));
    handle = (_req, res) =>
      res
        .writeHead(307, {
          Location: `http://127.0.0.1:${(other.address() as AddressInfo).port}/moderations`,
        })
        .end();
    const provider = client();
    try {
      const f = await failure(provider.biasScore("text"));
      expect(f).to.deep.equal({ kind: "bad_response", reason: "/moderations: HTTP 307" });
      expect(elsewhere).to.deep.equal([]);
    } finally {
      provider.close();
      await new Promise((r) => other.close(r));
    }
  });

  it("should answer a 429 without Retry-After with a one-second wait, never zero", async function () {
    handle = (_req, res) => res.writeHead(429).end();
    const provider = client();
    try {
      // The policy's retry waits the second (its sleep is the test's), then the 429 repeats.
      expect(await failure(provider.biasScore("text"))).to.deep.equal({
        kind: "rate_limited",
        status: 429,
        retryAfterSeconds: 1,
      });
      expect(requests).to.have.length(2);
    } finally {
      provider.close();
    }
  });
});
