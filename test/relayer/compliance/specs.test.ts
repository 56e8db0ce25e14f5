import { expect } from "chai";
import {
  complianceSpecs,
  complianceSpecsSchema,
  sanctionsListsFor,
  SANCTIONS_LISTS,
} from "../../../relayer/compliance/specs.ts";
import { ApiError } from "../../../relayer/http/errors.ts";

describe("# compliance specs catalogue", () => {
  it("should match its wire schema and name only known sanctions lists and tax forms", () => {
    const specs = complianceSpecsSchema.parse(complianceSpecs());
    const listIds = SANCTIONS_LISTS.map((l) => l.id as string);
    expect(listIds).to.deep.equal(["ofac-sdn", "chainalysis-oracle"]);
    const formIds = specs.tax_forms.map((f) => f.id);
    for (const j of specs.jurisdictions) {
      expect(
        j.sanctions_lists.every((l) => listIds.includes(l)),
        j.code,
      ).to.equal(true);
      expect(
        j.tax_forms.every((f) => formIds.includes(f)),
        j.code,
      ).to.equal(true);
    }
    const us = specs.jurisdictions.find((j) => j.code === "US")!;
    expect(us.tax_forms).to.deep.equal(["1099-DA", "1099-B", "8949"]);
    const eu = specs.jurisdictions.find((j) => j.code === "EU")!;
    expect(eu.tax_forms).to.deep.equal(["DAC8", "CARF"]);
  });

  it("should resolve jurisdictions to their sanctions lists, all lists by default", () => {
    expect(sanctionsListsFor(["us"])).to.deep.equal(["ofac-sdn", "chainalysis-oracle"]);
    expect(sanctionsListsFor([])).to.deep.equal(["ofac-sdn", "chainalysis-oracle"]);
  });

  it("should refuse an unknown region code with the error that points to the catalogue", () => {
    try {
      sanctionsListsFor(["US", "ZZ"]);
      expect.fail("accepted ZZ");
    } catch (err) {
      expect(err).to.be.instanceOf(ApiError);
      const e = err as ApiError;
      expect(e.status).to.equal(400);
      expect(e.code).to.equal("INVALID_COMPLIANCE_RULES");
      expect(e.detail).to.contain("/v1/compliance/specs");
    }
  });
});
