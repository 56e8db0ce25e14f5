import { expect } from "chai";
import { accountWallet } from "../../../relayer/accounts/index.ts";
import { masterKeyCipher } from "../../../relayer/auth/secrets.ts";
import { startEngineService, type EngineService } from "../../fixtures/engine.ts";

interface AccountBody {
  address: string;
  funded_at: string | null;
  chains: Array<{ chain: string; chain_id: number; balances: Record<string, string> }>;
}

describe("# relayer-managed accounts (HTTP, embedded devnet)", function () {
  this.timeout(300_000);
  let svc: EngineService;

  before(async function () {
    svc = await startEngineService({ env: { VERIFLOW_ENGINE_WORKER: "off" } });
  });
  after(async function () {
    await svc?.close();
  });

  it("should create one funded account per API key, the same address on every chain", async function () {
    const key = await svc.newKey();
    const first = await svc.request(key, "GET", "/v1/account");
    expect(first.status).to.equal(200);
    const body = (await first.json()) as AccountBody;
    expect(body.address).to.match(/^0x[0-9a-fA-F]{40}$/);
    expect(body.funded_at).to.be.a("string");
    expect(body.chains.map((c) => c.chain).sort()).to.deep.equal([
      "arbitrum",
      "ethereum",
      "polygon",
    ]);
    for (const chain of body.chains) {
      expect(Number(chain.balances.ETH)).to.equal(10);
      expect(Number(chain.balances.USDC)).to.equal(100_000);
      const onChain = await svc.chains.byName(chain.chain).provider.getBalance(body.address);
      expect(onChain).to.equal(10n * 10n ** 18n);
    }
    const again = (await (await svc.request(key, "GET", "/v1/account")).json()) as AccountBody;
    expect(again.address).to.equal(body.address);
    expect(again.chains[0]!.balances.USDC).to.equal(body.chains[0]!.balances.USDC);
    const other = (await (
      await svc.request(await svc.newKey(), "GET", "/v1/account")
    ).json()) as AccountBody;
    expect(other.address).to.not.equal(body.address);
  });

  it("should keep the private key encrypted at rest and decrypt it only with the master key", async function () {
    const key = await svc.newKey();
    const { address } = (await (
      await svc.request(key, "GET", "/v1/account")
    ).json()) as AccountBody;
    const [row] = await svc.ctx.store.query<{ key_enc: string }>(
      "SELECT key_enc FROM engine_accounts WHERE api_key_id = $1",
      [key.id],
    );
    expect(row!.key_enc).to.match(/^v1\./);
    expect(row!.key_enc).to.not.match(/[0-9a-f]{64}/);
    const wallet = await accountWallet(svc.ctx.store, svc.ctx.cipher, key.id);
    expect(wallet.address).to.equal(address);
    const wrongKey = masterKeyCipher(Buffer.alloc(32, 7));
    let failed = false;
    try {
      await accountWallet(svc.ctx.store, wrongKey, key.id);
    } catch {
      failed = true;
    }
    expect(failed).to.equal(true);
  });

  it("should top the account up from the devnet faucet", async function () {
    const key = await svc.newKey();
    const { address } = (await (
      await svc.request(key, "GET", "/v1/account")
    ).json()) as AccountBody;
    const body = JSON.stringify({ chains: ["arbitrum"], assets: { USDC: "5000", ETH: "1" } });
    const res = await svc.request(key, "POST", "/v1/account/faucet", body);
    expect(res.status).to.equal(200);
    const granted = (await res.json()) as {
      address: string;
      granted: Record<string, Record<string, string>>;
    };
    expect(granted.address).to.equal(address);
    expect(granted.granted).to.deep.equal({ arbitrum: { ETH: "1", USDC: "5000" } });
    const after = (await (await svc.request(key, "GET", "/v1/account")).json()) as AccountBody;
    const arbitrum = after.chains.find((c) => c.chain === "arbitrum")!;
    expect(Number(arbitrum.balances.USDC)).to.equal(105_000);
    expect(Number(arbitrum.balances.ETH)).to.equal(11);
  });

  it("should refuse bad faucet requests with {error, detail} and send nothing", async function () {
    const key = await svc.newKey();
    const { address } = (await (
      await svc.request(key, "GET", "/v1/account")
    ).json()) as AccountBody;
    const before = await svc.chains.byName("polygon").provider.getBalance(address);
    for (const [body, status, code] of [
      [{ chains: ["solana"] }, 400, "UNKNOWN_CHAIN"],
      [{ assets: { DOGE: "1" } }, 400, "UNKNOWN_ASSET"],
      [{ assets: { ETH: "1000000" } }, 400, "FAUCET_LIMIT"],
      [{ assets: { ETH: "-1" } }, 400, "VALIDATION_FAILED"],
    ] as const) {
      const res = await svc.request(key, "POST", "/v1/account/faucet", JSON.stringify(body));
      expect(res.status).to.equal(status);
      const err = (await res.json()) as { error: string; detail: string };
      expect(err.error).to.equal(code);
      expect(err.detail).to.be.a("string");
    }
    expect(await svc.chains.byName("polygon").provider.getBalance(address)).to.equal(before);
  });

  it("should require a signed request", async function () {
    const res = await svc.app.request("/v1/account");
    expect(res.status).to.equal(401);
  });
});
