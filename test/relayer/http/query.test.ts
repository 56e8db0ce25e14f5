import { expect } from "chai";
import { z } from "@hono/zod-openapi";
import { queryInteger, queryIntegerOr } from "../../../relayer/http/index.ts";

describe("# query integers", function () {
  const limit = z.object({ limit: queryIntegerOr(100, 1, 500) });
  const seq = z.object({ seq: queryInteger(1).optional() });

  it("should read decimal digits within the bounds, and the default when absent", function () {
    expect(limit.parse({ limit: "1" })).to.deep.equal({ limit: 1 });
    expect(limit.parse({ limit: "500" })).to.deep.equal({ limit: 500 });
    expect(limit.parse({ limit: "042" })).to.deep.equal({ limit: 42 });
    expect(limit.parse({})).to.deep.equal({ limit: 100 });
    expect(seq.parse({})).to.deep.equal({});
    expect(seq.parse({ seq: String(Number.MAX_SAFE_INTEGER) })).to.deep.equal({
      seq: Number.MAX_SAFE_INTEGER,
    });
  });

  it("should refuse what is not decimal digits, naming the parameter, however Number() reads it", function () {
    for (const value of [
      "0x10",
      "0b1",
      "0o7",
      "1e3",
      "16.0",
      "1.5",
      " 16",
      "16 ",
      "+16",
      "-1",
      "",
      "Infinity",
      "NaN",
      "١٦",
      "１６",
      "16abc",
      "9".repeat(17),
    ]) {
      const parsed = limit.safeParse({ limit: value });
      expect(parsed.success, JSON.stringify(value)).to.equal(false);
      const [issue] = parsed.error!.issues;
      expect(issue!.path, JSON.stringify(value)).to.deep.equal(["limit"]);
      expect(issue!.message, JSON.stringify(value)).to.match(/decimal digits|at least|at most/);
    }
  });

  it("should refuse values outside the bounds with the bound in the message", function () {
    expect(limit.safeParse({ limit: "0" }).error!.issues[0]!.message).to.equal(
      "must be at least 1",
    );
    expect(limit.safeParse({ limit: "501" }).error!.issues[0]!.message).to.equal(
      "must be at most 500",
    );
    expect(seq.safeParse({ seq: "9007199254740992" }).success).to.equal(false);
  });
});
