import { CronExpressionParser } from "cron-parser";
import type { WorkflowSchedule } from "../model/index.ts";

/**
 * Schedules: a five-field cron expression (JSON `schedule`, YAML `trigger.cron`) or a phrase
 * (YAML `trigger.frequency`) turned into the same cron plus an IANA zone. The phrase grammar
 * (case-insensitive; documented in docs/workflows.md):
 *
 *   phrase     := days "at" time zone
 *   days       := "daily" | "every day" | "each day"
 *               | ["every"] "weekday" | "weekdays" | ["every"] "weekend" | "weekends"
 *               | ("every" | "each" | "on" | "weekly on") dayname (("," | "and" | ", and") dayname)*
 *               | ("monthly on" | "every month on") ["the"] ordinal
 *   dayname    := monday | mon | mondays | tuesday | tue | tues | ... | sunday | sun
 *   ordinal    := 1..28 with an optional suffix (1st, 2nd, 3rd, 15th); 29-31 are refused (not in every month)
 *   time       := H[:MM] ("am" | "pm") | HH:MM (24 h) | "noon" | "midnight"
 *   zone       := an abbreviation from TIME_ZONE_ABBREVIATIONS | "UTC" | "UTC±H" | an IANA name
 *
 * Abbreviations name a region's civil time and follow its daylight-saving rules: "EST", "EDT" and
 * "ET" all mean America/New_York, so "09:00 EST" stays 09:00 in New York all year. A fixed offset is
 * written "UTC-5" (→ Etc/GMT+5).
 */

export class ScheduleError extends Error {}

export const TIME_ZONE_ABBREVIATIONS: Readonly<Record<string, string>> = {
  UTC: "UTC",
  GMT: "UTC",
  Z: "UTC",
  ET: "America/New_York",
  EST: "America/New_York",
  EDT: "America/New_York",
  CT: "America/Chicago",
  CST: "America/Chicago",
  CDT: "America/Chicago",
  MT: "America/Denver",
  MST: "America/Denver",
  MDT: "America/Denver",
  PT: "America/Los_Angeles",
  PST: "America/Los_Angeles",
  PDT: "America/Los_Angeles",
  AKST: "America/Anchorage",
  AKDT: "America/Anchorage",
  HST: "Pacific/Honolulu",
  BRT: "America/Sao_Paulo",
  BST: "Europe/London",
  WET: "Europe/Lisbon",
  CET: "Europe/Berlin",
  CEST: "Europe/Berlin",
  EET: "Europe/Athens",
  EEST: "Europe/Athens",
  MSK: "Europe/Moscow",
  GST: "Asia/Dubai",
  IST: "Asia/Kolkata",
  SGT: "Asia/Singapore",
  HKT: "Asia/Hong_Kong",
  JST: "Asia/Tokyo",
  KST: "Asia/Seoul",
  AEST: "Australia/Sydney",
  AEDT: "Australia/Sydney",
  NZST: "Pacific/Auckland",
  NZDT: "Pacific/Auckland",
};

const DAY_NAMES: Readonly<Record<string, number>> = {
  sun: 0,
  sunday: 0,
  mon: 1,
  monday: 1,
  tue: 2,
  tues: 2,
  tuesday: 2,
  wed: 3,
  wednesday: 3,
  thu: 4,
  thur: 4,
  thurs: 4,
  thursday: 4,
  fri: 5,
  friday: 5,
  sat: 6,
  saturday: 6,
};

const PHRASE_EXAMPLES =
  '"every Monday at 09:00 EST", "daily at 17:30 UTC", "every weekday at 8am PST", ' +
  '"every Tuesday and Friday at 6pm CET", "monthly on the 1st at 00:00 UTC"';

/** True when `zone` is an IANA time zone this runtime knows. */
export function isIanaZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: zone });
    return zone.includes("/") || zone === "UTC";
  } catch {
    return false;
  }
}

function parseZone(text: string): string {
  const upper = text.toUpperCase();
  const known = TIME_ZONE_ABBREVIATIONS[upper];
  if (known) return known;
  const offset = /^(?:UTC|GMT)([+-])(\d{1,2})$/.exec(upper);
  if (offset) {
    const hours = Number(offset[2]);
    if (hours > 14) throw new ScheduleError(`time zone offset "${text}" is out of range`);
    if (hours === 0) return "UTC";
    // Etc/GMT zones carry the POSIX sign: UTC+2 is Etc/GMT-2.
    return `Etc/GMT${offset[1] === "+" ? "-" : "+"}${hours}`;
  }
  if (isIanaZone(text)) return text;
  throw new ScheduleError(
    `unknown time zone "${text}": use an abbreviation (${Object.keys(TIME_ZONE_ABBREVIATIONS).join(", ")}), UTC±H or an IANA name`,
  );
}

function parseTime(text: string): { hour: number; minute: number } {
  if (text === "noon") return { hour: 12, minute: 0 };
  if (text === "midnight") return { hour: 0, minute: 0 };
  const match = /^(\d{1,2})(?::(\d{2}))?\s*(am|pm)?$/.exec(text);
  if (!match) throw new ScheduleError(`cannot read the time of day "${text}"`);
  let hour = Number(match[1]);
  const minute = match[2] === undefined ? 0 : Number(match[2]);
  const meridiem = match[3];
  if (meridiem) {
    if (hour < 1 || hour > 12) throw new ScheduleError(`"${text}": hour must be 1-12 with am/pm`);
    hour = (hour % 12) + (meridiem === "pm" ? 12 : 0);
  } else if (match[2] === undefined) {
    throw new ScheduleError(`"${text}": write the time as HH:MM or with am/pm`);
  }
  if (hour > 23 || minute > 59) throw new ScheduleError(`"${text}" is not a time of day`);
  return { hour, minute };
}

function parseDayList(text: string): number[] {
  const names = text
    .split(/\s*,\s*(?:and\s+)?|\s+and\s+/)
    .map((n) => n.trim())
    .filter(Boolean);
  const days = names.map((name) => {
    const day = DAY_NAMES[name] ?? DAY_NAMES[name.replace(/s$/, "")];
    if (day === undefined) throw new ScheduleError(`"${name}" is not a day of the week`);
    return day;
  });
  return [...new Set(days)].sort((a, b) => a - b);
}

/** The cron day fields ("day-of-month month day-of-week") of a phrase's day part. */
function parseDays(text: string): string {
  if (/^(daily|every day|each day)$/.test(text)) return "* * *";
  if (/^(every |each |on )?weekdays?$/.test(text)) return "* * 1-5";
  if (/^(every |each |on )?weekends?( days?)?$/.test(text)) return "* * 0,6";
  const monthly =
    /^(?:monthly on|every month on|each month on)\s+(?:the\s+)?(\d{1,2})(?:st|nd|rd|th)?$/.exec(
      text,
    );
  if (monthly) {
    const day = Number(monthly[1]);
    if (day < 1 || day > 28) {
      throw new ScheduleError(
        `day of month ${day} is refused: use 1-28 (it must exist in every month)`,
      );
    }
    return `${day} * *`;
  }
  const weekly = /^(?:every|each|on|weekly on)\s+(.+)$/.exec(text);
  if (weekly) return `* * ${parseDayList(weekly[1]!).join(",")}`;
  throw new ScheduleError(`cannot read which days "${text}" means`);
}

/** Parses a `trigger.frequency` phrase into cron + IANA zone; throws ScheduleError with a clear message. */
export function parseSchedulePhrase(phrase: string): WorkflowSchedule {
  const text = phrase.trim().replace(/\s+/g, " ");
  const match = /^(.+?) at (noon|midnight|\d{1,2}(?::\d{2})?\s?(?:am|pm)?) (\S+)$/i.exec(text);
  if (!match) {
    throw new ScheduleError(
      `unrecognised schedule phrase "${phrase}": expected "<days> at <time> <zone>", for example ${PHRASE_EXAMPLES}`,
    );
  }
  try {
    const days = parseDays(match[1]!.toLowerCase());
    const { hour, minute } = parseTime(match[2]!.toLowerCase());
    const timezone = parseZone(match[3]!);
    return { cron: `${minute} ${hour} ${days}`, timezone, phrase: text };
  } catch (err) {
    if (err instanceof ScheduleError) {
      throw new ScheduleError(
        `schedule phrase "${phrase}": ${err.message}; examples: ${PHRASE_EXAMPLES}`,
      );
    }
    throw err;
  }
}

/**
 * Validates a five-field cron expression in a zone (cron-parser, the parser pg-boss uses) and
 * returns it normalised. Six-field (seconds) expressions are refused: pg-boss fires at most once a minute.
 */
export function parseCron(expression: string, timezone = "UTC"): WorkflowSchedule {
  const fields = expression.trim().split(/\s+/);
  if (fields.length !== 5) {
    throw new ScheduleError(
      `cron "${expression}" must have five fields (minute hour day-of-month month day-of-week), got ${fields.length}`,
    );
  }
  if (!isIanaZone(timezone)) throw new ScheduleError(`unknown IANA time zone "${timezone}"`);
  try {
    CronExpressionParser.parse(fields.join(" "), { tz: timezone, strict: false });
  } catch (err) {
    throw new ScheduleError(`invalid cron "${expression}": ${(err as Error).message}`);
  }
  return { cron: fields.join(" "), timezone };
}

/** The next firing time after `from` (ISO 8601), for display. */
export function nextRun(
  schedule: Pick<WorkflowSchedule, "cron" | "timezone">,
  from = new Date(),
): string {
  const expression = CronExpressionParser.parse(schedule.cron, {
    tz: schedule.timezone,
    currentDate: from,
  });
  return expression.next().toISOString()!;
}
