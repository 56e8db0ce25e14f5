import { expect } from "chai";
import {
  nextRun,
  parseCron,
  parseSchedulePhrase,
  ScheduleError,
} from "../../../relayer/workflows/schedule-phrase.ts";

describe("# schedule phrases", () => {
  const phrases: [string, string, string][] = [
    ["every Monday at 09:00 EST", "0 9 * * 1", "America/New_York"],
    ["daily at 17:30 UTC", "30 17 * * *", "UTC"],
    ["every weekday at 8am PST", "0 8 * * 1-5", "America/Los_Angeles"],
    ["every day at 12:15pm CET", "15 12 * * *", "Europe/Berlin"],
    ["every Tuesday and Friday at 6pm JST", "0 18 * * 2,5", "Asia/Tokyo"],
    ["every mon, wed, and fri at 7:05 am UTC+2", "5 7 * * 1,3,5", "Etc/GMT-2"],
    ["on Sundays at noon Europe/Paris", "0 12 * * 0", "Europe/Paris"],
    ["every weekend at midnight GMT", "0 0 * * 0,6", "UTC"],
    ["monthly on the 1st at 00:00 UTC", "0 0 1 * *", "UTC"],
    ["weekly on thursday at 23:59 aest", "59 23 * * 4", "Australia/Sydney"],
  ];
  for (const [phrase, cron, timezone] of phrases) {
    it(`should read "${phrase}" as ${cron} in ${timezone}`, () => {
      const schedule = parseSchedulePhrase(phrase);
      expect(schedule.cron).to.equal(cron);
      expect(schedule.timezone).to.equal(timezone);
    });
  }

  it("should fire an EST phrase at 09:00 New York time, following daylight saving", () => {
    const schedule = parseSchedulePhrase("every Monday at 09:00 EST");
    // Monday 2026-11-23 09:00 EST = 14:00 UTC; Monday 2026-07-06 09:00 EDT = 13:00 UTC.
    expect(nextRun(schedule, new Date("2026-11-21T00:00:00Z"))).to.equal(
      "2026-11-23T14:00:00.000Z",
    );
    expect(nextRun(schedule, new Date("2026-07-04T00:00:00Z"))).to.equal(
      "2026-07-06T13:00:00.000Z",
    );
  });

  const rejected: [string, string][] = [
    ["whenever at 9am EST", "cannot read which days"],
    ["every Monday at 25:00 UTC", "not a time of day"],
    ["every Monday at 13pm UTC", "1-12"],
    ["every Monday at 9 UTC", "HH:MM or with am/pm"],
    ["every Monday at 09:00 XYZ", "unknown time zone"],
    ["every Monday at 09:00", 'expected "<days> at <time> <zone>"'],
    ["every blursday at 9am UTC", "not a day of the week"],
    ["monthly on the 31st at 9am UTC", "1-28"],
    ["every Monday at 09:00 UTC+15", "out of range"],
  ];
  for (const [phrase, message] of rejected) {
    it(`should reject "${phrase}" with a clear message`, () => {
      expect(() => parseSchedulePhrase(phrase))
        .to.throw(ScheduleError, message)
        .with.property("message")
        .that.contains("every Monday at 09:00 EST");
    });
  }

  it("should accept five-field cron expressions in an IANA zone and refuse others", () => {
    expect(parseCron("0 9 * * MON", "America/New_York")).to.deep.equal({
      cron: "0 9 * * MON",
      timezone: "America/New_York",
    });
    expect(parseCron(" */15  * * * * ")).to.deep.equal({ cron: "*/15 * * * *", timezone: "UTC" });
    expect(() => parseCron("* * * * * *")).to.throw(ScheduleError, "five fields");
    expect(() => parseCron("0 9 * * 8")).to.throw(ScheduleError, "invalid cron");
    expect(() => parseCron("0 9 * * 1", "Nowhere/City")).to.throw(
      ScheduleError,
      "unknown IANA time zone",
    );
  });
});
