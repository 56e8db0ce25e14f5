import { expect } from "chai";
import { randomBytes } from "node:crypto";
import {
  NonceManager,
  TypedDataEncoder,
  Wallet,
  hexlify,
  verifyTypedData,
  type TypedDataDomain,
} from "ethers";
import {
  FIELD_MODULUS,
  RECEIPT_TYPES,
  issueReceipt,
  receiptDigest,
  receiptDomainSeparator,
  receiptMessage,
  receiptSignerFor,
  type ReceiptDomain,
} from "../../../relayer/proofs/index.ts";
import { sampleWorkflow } from "../../zk/fixtures.ts";

const randomBigint = (bytes: number) => BigInt(hexlify(randomBytes(bytes)));
// Strings with multi-byte UTF-8 characters, so the string fields' hashing is exercised beyond ASCII.
const randomText = () => `wf_${hexlify(randomBytes(1 + (randomBytes(1)[0]! % 24))).slice(2)}·é✓`;

function randomDomain(): ReceiptDomain {
  return {
    name: "Veriflow",
    version: "1",
    chainId: Number(randomBigint(4)),
    verifyingContract: Wallet.createRandom().address.toLowerCase(),
  };
}

function randomMessage() {
  return {
    executionId: randomText(),
    apiKeyId: randomText(),
    submittedAt: randomBigint(8),
    workflowCommitment: randomBigint(32) % FIELD_MODULUS,
    salt: randomBigint(32),
  };
}

describe("# receipt digest", () => {
  it("should equal ethers' EIP-712 domain separator and hash on random receipts", () => {
    for (let i = 0; i < 200; i++) {
      const domain = randomDomain();
      const message = randomMessage();
      const separator = receiptDomainSeparator(domain);
      expect(separator).to.equal(TypedDataEncoder.hashDomain(domain as TypedDataDomain));
      expect(receiptDigest(separator, message)).to.equal(
        TypedDataEncoder.hash(domain, RECEIPT_TYPES, message),
      );
    }
  });

  it("should refuse values outside their EIP-712 types, as ethers does", () => {
    const separator = receiptDomainSeparator(randomDomain());
    const cases = [
      { submittedAt: 1n << 64n },
      { submittedAt: -1n },
      { workflowCommitment: 1n << 256n },
      { salt: -1n },
    ];
    for (const change of cases) {
      const message = { ...randomMessage(), ...change };
      expect(() => receiptDigest(separator, message), String(Object.keys(change))).to.throw(
        RangeError,
      );
      expect(() => TypedDataEncoder.hash(randomDomain(), RECEIPT_TYPES, message)).to.throw();
    }
    expect(() =>
      receiptDomainSeparator({ ...randomDomain(), verifyingContract: "0x1234" }),
    ).to.throw();
  });

  it("should sign what ethers' signTypedData signs, for a key in process and any other signer", async () => {
    const wallet = Wallet.createRandom();
    // A signer that is not a wallet signs through its own signTypedData.
    const wrapped = new NonceManager(wallet);
    for (let i = 0; i < 25; i++) {
      const domain = randomDomain();
      const input = {
        executionId: randomText(),
        apiKeyId: randomText(),
        workflow: sampleWorkflow(),
        at: new Date(Number(randomBigint(5))),
      };
      const fast = await issueReceipt(input, receiptSignerFor(wallet, domain));
      const message = receiptMessage(fast);
      expect(fast.signature).to.equal(await wallet.signTypedData(domain, RECEIPT_TYPES, message));
      expect(verifyTypedData(domain, RECEIPT_TYPES, message, fast.signature)).to.equal(
        wallet.address,
      );
      const slow = await issueReceipt(input, receiptSignerFor(wrapped, domain));
      expect(slow.signer).to.equal(wallet.address);
      expect(verifyTypedData(domain, RECEIPT_TYPES, receiptMessage(slow), slow.signature)).to.equal(
        wallet.address,
      );
    }
  });
});
