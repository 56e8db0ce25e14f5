import { expect } from "chai";
import { median, quantile, rounded } from "../../bench/stats.ts";

describe("bench/stats", () => {
  it("a quantile is the nearest rank, whatever the samples' order", () => {
    const samples = Array.from({ length: 100 }, (_, i) => 100 - i); // 100..1
    expect(quantile(samples, 0.99)).to.equal(99);
    expect(quantile(samples, 0.5)).to.equal(50);
    expect(quantile(samples, 1)).to.equal(100);
    expect(quantile(samples, 0.001)).to.equal(1);
    expect(quantile([7, 3, 5, 1, 9, 2, 8, 4, 6, 10], 0.5)).to.equal(5);
    expect(quantile([4], 0.99)).to.equal(4);
  });

  it("a median of an even count is the mean of the middle two, of an odd the middle", () => {
    expect(median([4, 1, 3, 2])).to.equal(2.5);
    expect(median([5, 1, 3])).to.equal(3);
    expect(median([2])).to.equal(2);
  });

  it("leaves the samples as they were", () => {
    const samples = [3, 1, 2];
    quantile(samples, 0.5);
    median(samples);
    expect(samples).to.deep.equal([3, 1, 2]);
  });

  it("refuses no samples and a quantile outside (0, 1]", () => {
    expect(() => median([])).to.throw(/no samples/);
    expect(() => quantile([], 0.5)).to.throw(/no samples/);
    expect(() => quantile([1, 2], 0)).to.throw(/\(0, 1\]/);
    expect(() => quantile([1, 2], 1.5)).to.throw(/\(0, 1\]/);
    expect(() => quantile([1, 2], Number.NaN)).to.throw(/\(0, 1\]/);
  });

  it("rounds to the places asked", () => {
    expect(rounded(9.876, 2)).to.equal(9.88);
    expect(rounded(9.84, 1)).to.equal(9.8);
    expect(rounded(1234.5, 0)).to.equal(1235);
  });
});
