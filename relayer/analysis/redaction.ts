import { createHash } from "node:crypto";
import { crc32 } from "node:zlib";
import { keccak_256 } from "@noble/hashes/sha3";
import { electronicFormatIBAN, isValidIBAN } from "ibantools";
import { findPhoneNumbersInText, type CountryCode } from "libphonenumber-js/max";
import nlp from "compromise";
import validator from "validator";
import {
  CHINESE_SURNAMES,
  EAST_ASIAN_PLACES,
  EVERYDAY_WORDS,
  HAN_SURNAMES,
  HANGUL_GIVEN_SYLLABLES,
  HANGUL_SURNAMES,
  JAPANESE_GIVEN_NAMES,
  JAPANESE_SURNAMES,
  KOREAN_SURNAMES,
  KOREAN_SYLLABLES,
  OTHER_CHINESE_SYLLABLES,
  PINYIN_NOT_IN_NAMES,
  PINYIN_SYLLABLES,
} from "./east-asian-names.ts";
import { EVERYDAY_ENGLISH_FIRST_NAMES, LOCALE_FIRST_NAMES } from "./first-names.ts";
import { COMMON_ENGLISH_WORDS } from "./english-words.ts";
import { isHighSurrogate, isLowSurrogate } from "./unicode.ts";
import { execAll, execFrom, splitOn } from "./patterns.ts";

/**
 * Personal data in free text, found and replaced by typed placeholders (`[EMAIL_1]`) before any
 * text leaves the relayer (spec "Integration conventions": redaction of personal data).
 *
 * Libraries where one fits (compared in docs/analysis.md): libphonenumber-js (phone numbers in
 * international and national formats, validated against the numbering plans), ibantools (IBAN
 * checksum and country length), validator (e-mail syntax, Luhn and issuer prefixes of cards, IP
 * addresses), compromise (English person names). Own detectors for what none covers: US SSN, bank
 * account numbers by their label, dates of birth by their label, postal addresses by street types
 * of several locales, names after honorifics and labels in several languages, crypto addresses.
 *
 * Each detector proposes spans; overlaps resolve to the more specific type (a card number is not
 * also a phone number), then the longer span.
 */
export const PII_TYPES = [
  "EMAIL",
  "PHONE",
  "IBAN",
  "BANK_ACCOUNT",
  "CARD",
  "SSN",
  "IP",
  "ADDRESS",
  "DOB",
  "NAME",
  "CRYPTO",
] as const;
export type PiiType = (typeof PII_TYPES)[number];

export interface PiiSpan {
  type: PiiType;
  start: number;
  end: number;
  value: string;
}

export interface RedactionOptions {
  /** Crypto addresses (every chain `cryptoAddresses` reads, and ENS names) count as personal data. */
  cryptoAddresses: boolean;
  /** Regions whose national phone formats are recognised (international `+` formats always are). */
  phoneRegions: readonly CountryCode[];
}

export const DEFAULT_REDACTION: RedactionOptions = {
  cryptoAddresses: true,
  phoneRegions: ["US", "GB", "DE", "FR", "ES", "IT"],
};

export interface Redaction {
  text: string;
  /** Placeholder → original value (kept encrypted; used to restore only when configured). */
  placeholders: Map<string, string>;
  counts: Array<{ type: PiiType; count: number }>;
}

export class RedactionError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "RedactionError";
  }
}

/** Specific types first: they win an overlap. */
const PRIORITY: Record<PiiType, number> = {
  EMAIL: 0,
  CRYPTO: 1,
  IBAN: 2,
  CARD: 3,
  SSN: 4,
  IP: 5,
  BANK_ACCOUNT: 6,
  DOB: 7,
  PHONE: 8,
  ADDRESS: 9,
  NAME: 10,
};

/** A placeholder the redaction writes: never itself taken for personal data. */
export const PLACEHOLDER =
  /\[(?:EMAIL|PHONE|IBAN|BANK_ACCOUNT|CARD|SSN|IP|ADDRESS|DOB|NAME|CRYPTO)_\d+\]/g;

function* matches(re: RegExp, text: string, group = 0): Generator<[number, string]> {
  for (const m of execAll(re, text)) {
    const value = m[group];
    if (value === undefined) continue;
    const offset = group === 0 ? 0 : m[0].indexOf(value);
    yield [m.index + offset, value];
  }
}

/** What the name readers cut a value's words and a word's parts at. */
const BLANK = /[ \t]/gu;
const SPACE_OR_HYPHEN = /[ -]/g;
const HYPHEN_OR_SLASH = /[-/]/gu;
const VALUE_WORD_SEPARATOR = /[ +,]|%20/gu;
const SYLLABLE_SEPARATOR = /[-'’]/gu;

/** A set of the words of a space-separated list. */
function words(list: string): ReadonlySet<string> {
  return new Set(list.split(" "));
}

/** The words of a space-separated list as a pattern's alternation. */
function alternation(list: string): string {
  return list.split(" ").join("|");
}

/**
 * Each word of a space-separated list in lower case or capitalised and, unless `capitals` is off,
 * in capitals, as an alternation: V8's compiled code for a `(?i:…)` group inside a lookbehind was
 * seen to stop matching `Address:` in a long-running process (a test run's; the interpreter's did
 * not).
 */
function inTheirCases(list: string, { capitals = true } = {}): string {
  return list
    .split(" ")
    .map((w) => {
      const first = `[${w[0]!.toUpperCase()}${w[0]}]${w.slice(1)}`;
      return capitals ? `${first}|${w.toUpperCase()}` : first;
    })
    .join("|");
}

/**
 * The verb between a label and its value in a sentence, in the six languages, Dutch and Portuguese,
 * across a hard-wrapped line too, with a date's article (`DOB is March 3rd, 1985`, `my account
 * number is 12345678`, `Geburtsdatum ist der 12.03.1979`, `su número de cuenta es…`, `la data di
 * nascita è il…`).
 */
const LABEL_VERB =
  "(?:(?:is|was|ist|war|est|était|es|era|è|é)\\s+(?:(?:der|am|le|el|il|em|op|on)\\s+)?)?";

/** A word without its accents and other combining marks (Rzeszów → Rzeszow, Văn → Van). */
function withoutAccents(word: string): string {
  return word.normalize("NFD").replace(/\p{M}/gu, "");
}

function span(type: PiiType, start: number, value: string): PiiSpan {
  return { type, start, end: start + value.length, value };
}

/** An address as written: a local part in any script, an IP-literal domain (`j@[192.0.2.1]`). */
const ADDRESS_AS_WRITTEN: validator.IsEmailOptions = {
  allow_utf8_local_part: true,
  allow_ip_domain: true,
};

/** Top-level domains an address spelt with bare words ends on: the common generic ones and countries'. */
const SPELT_TLDS =
  "com|org|net|edu|gov|int|info|biz|io|co|eu|uk|de|fr|es|it|nl|be|ch|at|lu|ie|pt|pl|se|dk|no|fi|gr|ru|us|ca|au|nz|jp|cn|in|br|mx|ar|za";
/** A host name's end on one of those (`example.com`). */
const DOMAIN_END = new RegExp(`\\.(?:${SPELT_TLDS})$`, "u");
/** Mailboxes of a role that are everyday words too (`support at example dot com`). */
const ROLE_MAILBOXES = words(
  "support sales info contact admin billing hello help office team legal privacy press jobs careers accounts finance security abuse service enquiries inquiries orders payments invoices compliance",
);
/** An at and a dot written against harvesting: `[at]`, `(at)`; `[dot]`, `(dot)`, `[.]`, `(.)`. */
const BRACKETED_AT = / ?[[(]at[\])] ?/iu;
const BRACKETED_DOT = / ?[[(](?:dot|\.)[\])] ?/giu;
const BRACKETED_ADDRESS = new RegExp(
  `(?<![\\p{L}\\p{N}._%+'-])(?:[\\p{L}\\p{N}._%+'-]+${BRACKETED_DOT.source}){0,3}[\\p{L}\\p{N}._%+'-]+${BRACKETED_AT.source}[\\p{L}\\p{N}-]+(?:(?:\\.|${BRACKETED_DOT.source})[\\p{L}\\p{N}-]+)+`,
  "giu",
);
/** Spelt with bare words, the local part's dots too (`jane dot doe at example dot com`). */
const SPELT_ADDRESS = new RegExp(
  `(?<![\\p{L}\\p{N}._%+'-])(?:[\\p{L}\\p{N}._%+'-]+ dot ){0,3}[\\p{L}\\p{N}._%+'-]+ at [\\p{L}\\p{N}-]+(?:(?:\\.| dot )[\\p{L}\\p{N}-]+)*(?:\\.| dot )(?:${SPELT_TLDS})(?![\\p{L}\\p{N}-]|\\.[\\p{L}\\p{N}])`,
  "giu",
);

/** Large mail providers' names, which a mailbox written without its top-level domain ends on. */
const MAIL_PROVIDERS =
  "gmail googlemail yahoo hotmail outlook icloud aol protonmail proton gmx yandex";
/** An address's local part's characters, its host name, and its domain: the host or an IP address. */
const LOCAL_PART = "[\\p{L}\\p{N}._%+'-]";
const HOST_NAME = "[\\p{L}\\p{N}-]+(?:\\.[\\p{L}\\p{N}-]+)+";
const DOMAIN = `(?:\\[[\\d.]{7,15}\\]|${HOST_NAME})`;
/** The domain an `@` is followed by, read from just after it. */
const DOMAIN_AFTER_AT = new RegExp(DOMAIN, "uy");
/** A large provider's name ending there (`jane.doe@gmail`, not `foo@gmailer`, `foo@yahoo-api`). */
const PROVIDER_DOMAIN = new RegExp(
  `(?:${alternation(MAIL_PROVIDERS)})(?![\\p{L}\\p{N}@_-]|\\.[\\p{L}\\p{N}])`,
  "iuy",
);
const LOCAL_PART_CHAR = new RegExp(`^${LOCAL_PART}$`, "u");

/**
 * The candidates around each `@`: the whole run of local-part characters before it and what the
 * domain reads after it (`domain` is sticky), with the run's start. Found from each `@`, not tried
 * at every word: tried there, the pattern cost as much as all the other detectors over pages with
 * few addresses.
 */
function* aroundAt(text: string, domain: RegExp): Generator<[number, string]> {
  // Where the last candidate ended: one starts on no character of another.
  let after = 0;
  for (let at = text.indexOf("@"); at >= 0; at = text.indexOf("@", at + 1)) {
    let start = at;
    for (;;) {
      const width = start >= 2 && isLowSurrogate(text.charCodeAt(start - 1)) ? 2 : 1;
      if (start < width || !LOCAL_PART_CHAR.test(text.slice(start - width, start))) break;
      start -= width;
    }
    if (start === at || start < after) continue;
    const found = execFrom(domain, text, at + 1);
    if (!found) continue;
    after = at + 1 + found[0].length;
    yield [start, text.slice(start, after)];
  }
}

function emails(text: string): PiiSpan[] {
  const out = addressesAs(aroundAt(text, DOMAIN_AFTER_AT), (value) => value, ADDRESS_AS_WRITTEN);
  // A mailbox of a large provider written without its top-level domain (`jane.doe@gmail`), as
  // chats shorten it: the provider's name says it is one.
  out.push(...addressesAs(aroundAt(text, PROVIDER_DOMAIN), (value) => `${value}.com`));
  if (text.includes('"@')) out.push(...quotedAddresses(text));
  // Written against harvesting: `jane [at] example [dot] org`, `jane(at)example.org`,
  // `jane[.]doe[at]example[.]com`.
  out.push(
    ...addressesAs(matches(BRACKETED_ADDRESS, text), (value) =>
      value.replace(BRACKETED_AT, "@").replace(BRACKETED_DOT, "."),
    ),
  );
  // Spelt with bare words (`jane.doe at example dot com`, `jane AT example.org`): only before a
  // top-level domain of the list, so that `look at this dot point` is no address.
  if (/ at /iu.test(text))
    out.push(
      ...addressesAs(matches(SPELT_ADDRESS, text), (value) => {
        // A sentence's word before ` at ` (`look at`, `visit us at`) is no mailbox, a role's is.
        const local = value.slice(0, value.search(/ at /iu)).toLowerCase();
        if (/^\p{L}+$/u.test(local) && !ROLE_MAILBOXES.has(local) && everydayWordForm(local))
          return null;
        return value.replace(/ at /iu, "@").replace(/ dot /giu, ".");
      }),
    );
  // Percent-encoded in a link's query or a mailto: `?payer=jane%40example.com`.
  if (text.includes("%40"))
    out.push(...addressesAs(matches(PERCENT_ENCODED_ADDRESS, text), percentDecoded));
  return out;
}

const PERCENT_ENCODED_ADDRESS = new RegExp(`(?<!${LOCAL_PART})${LOCAL_PART}+%40${HOST_NAME}`, "gu");

/**
 * The candidates (their trailing dots and hyphens left out) whose plain form, as `plain` writes it
 * (null: none), validator takes for an e-mail address.
 */
function addressesAs(
  candidates: Iterable<[number, string]>,
  plain: (value: string) => string | null,
  options: validator.IsEmailOptions = { allow_utf8_local_part: true },
): PiiSpan[] {
  const out: PiiSpan[] = [];
  for (const [i, v] of candidates) {
    const value = v.replace(/[.-]+$/, "");
    const address = plain(value);
    if (address !== null && validator.isEmail(address, options) && !IMAGE_FILE.test(address))
      out.push(span("EMAIL", i, value));
  }
  return out;
}

/**
 * An image's file name with its density after an `@` (`icon@2x.png`, `logo@1.5x.webp`): validator
 * takes any letters for a top-level domain, and no top-level domain is an image's extension.
 */
const IMAGE_FILE = /\.(?:png|jpe?g|gif|svg|webp|avif|bmp|ico|tiff?)$/iu;

/** A quoted local part (RFC 5321), spaces and escapes and all: `"john doe"@example.com`. */
const QUOTED_ADDRESS = new RegExp(`"(?:[^"\\\\\\r\\n]|\\\\.){1,64}"@${DOMAIN}`, "gu");

/**
 * Quoted addresses. After a candidate validator refuses (a local part too long, say), the next
 * starts one character on, not past it: escaped quotes before an address (`"\"\"…"j d"@x.org`)
 * must not hide it inside a longer candidate.
 */
function quotedAddresses(text: string): PiiSpan[] {
  const out: PiiSpan[] = [];
  for (let m = execFrom(QUOTED_ADDRESS, text, 0); m;) {
    const value = m[0].replace(/[.-]+$/, "");
    const valid = validator.isEmail(value, ADDRESS_AS_WRITTEN);
    if (valid) out.push(span("EMAIL", m.index, value));
    m = execFrom(QUOTED_ADDRESS, text, valid ? m.index + m[0].length : m.index + 1);
  }
  return out;
}

/** The text with its percent-escapes decoded, or null where one is malformed. */
function percentDecoded(text: string): string | null {
  try {
    return decodeURIComponent(text);
  } catch {
    return null;
  }
}

/**
/**
 * The issuer ranges (IIN) of payment cards and their lengths: Visa (13, 16, 19), Mastercard (51-55,
 * 2221-2720), Mir (2200-2204), Amex (34, 37: 15), Diners (300-305, 36, 38, 39: 14-19), JCB
 * (3528-3589: 16-19), Discover, UnionPay, RuPay and Maestro (50, 56-69: 12-19, which covers the
 * other 6s), UnionPay's 81. validator's list stops at 16 digits for most issuers and lacks Maestro
 * and Mir, which Europe issues.
 */
const CARD_IIN =
  /^(?:4\d{12}(?:\d{3}|\d{6})?|(?:5[1-5]\d\d|222[1-9]|22[3-9]\d|2[3-6]\d\d|27[01]\d|2720)\d{12}|220[0-4]\d{12,15}|3[47]\d{13}|3(?:0[0-5]|[689]\d)\d{11,16}|35(?:2[89]|[3-8]\d)\d{12,15}|(?:5[06-8]|6\d)\d{10,17}|81\d{14,17})$/;

/**
 * 13 to 19 digits in groups, as cards are written and copied: spaces (doubled in justified or PDF
 * text), tabs, dots, slashes, underscores or hyphens between them.
 */
const CARD_CANDIDATE = /(?<![\p{L}\p{N}-])\d(?:[ \t./_-]{0,2}\d){12,18}(?!\p{N})/gu;

/** How cards are grouped when written apart: fours (the last group shorter), or 4-6-5 and 4-6-4. */
const CARD_GROUPING = /^(?:0000(?:\D+0000){2,3}(?:\D+0{1,4})?|0000\D+000000\D+0{4,5})\D*$/u;
/** A link's start with no white space after it: what ends there is inside the link. */
const IN_LINK = /[a-z][a-z\d+.-]*:\/\/\S*$/iu;

/** Whether `at` is inside a link (read at most 2 KiB back). */
function inLink(text: string, at: number): boolean {
  return IN_LINK.test(text.slice(Math.max(0, at - 2_048), at));
}

function cards(text: string): PiiSpan[] {
  const out: PiiSpan[] = [];
  for (const [i, v] of matches(CARD_CANDIDATE, text)) {
    // A number after `+` is dialled with its country code: no card is written so.
    if (text[i - 1] === "+") continue;
    // Digits apart by `/` in a link's path are its segments (`…/399657/68221862-17ce….png`, an
    // image's ids), no card unless grouped as cards are (`…/4111/1111/1111/1111`).
    if (v.includes("/") && !CARD_GROUPING.test(v.replace(/\d/gu, "0")) && inLink(text, i)) continue;
    // The candidate may run on into a number after the card (`… 1111 12`): the longest prefix
    // ending at a group's end that validates.
    const ends = [...execAll(/\d(?!\d)/g, v)].map((m) => m.index + 1).reverse();
    for (const end of ends) {
      const digits = v.slice(0, end).replace(/\D/g, "");
      if (digits.length < 13) break;
      if (CARD_IIN.test(digits) && validator.isLuhnNumber(digits)) {
        out.push(span("CARD", i, v.slice(0, end)));
        break;
      }
    }
  }
  for (const [i, v] of matches(CARD_SECURITY_CODE, text, 1)) out.push(span("CARD", i, v));
  return out;
}

/** A card's security code after its label: with the card's number it authorises a payment. */
const CARD_SECURITY_CODE =
  /\b(?:CVV2?|CVC2?|CSC|CVN|card (?:security|verification) (?:code|value|number)|security code|Kartenprüfnummer|cryptogramme(?: visuel)?|c[óo]digo de seguridad|codice di sicurezza)[:#\s]*(\d{3,4})(?![\p{L}\p{N}])/giu;

function ibans(text: string): PiiSpan[] {
  const out: PiiSpan[] = [];
  // Written in either case (a pasted `gb82 west …` is an IBAN too), its groups apart by a space,
  // two (as PDF copies justify them), a dash or a dot; the checksum decides.
  const re = /\b[A-Za-z]{2}\d{2}(?:[ .-]{0,2}[A-Za-z0-9]){10,30}/g;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    const v = m[0];
    // The pattern may run into the following words, and so into the next IBAN: take the longest
    // valid prefix and look again right after it (after the start when none is valid).
    re.lastIndex = m.index + 1;
    for (let end = v.length; end >= 14; end--) {
      const candidate = v.slice(0, end).replace(/[ .-]+$/, "");
      const electronic = electronicFormatIBAN(candidate.replace(/[ .-]/g, "").toUpperCase());
      if (electronic && isValidIBAN(electronic)) {
        out.push(span("IBAN", m.index, candidate));
        re.lastIndex = m.index + candidate.length;
        break;
      }
    }
  }
  return out;
}

/**
 * An SSN by the SSA's rules (no area 000, 666 or 9xx, no group 00, no serial 0000), or an ITIN
 * (area 9xx with the IRS's groups 50-65, 70-88, 90-92, 94-99), the taxpayer number of people who
 * have no SSN, written the same way.
 */
function validSsn(d: string): boolean {
  if (d.slice(3, 5) === "00" || d.slice(5) === "0000") return false;
  if (d.startsWith("9")) return /^(?:5\d|6[0-5]|7\d|8[0-8]|9[0-24-9])$/.test(d.slice(3, 5));
  return !/^(?:000|666)/.test(d);
}

/** Where an SSN is a US form's: dashed, or spaced 3-2-4 that is not part of a longer group of digits. */
const SSN_SHAPED = /^\d{3}(?:-\d{2}-| \d{2} )\d{4}$/;

function ssns(text: string): PiiSpan[] {
  const out: PiiSpan[] = [];
  for (const [i, v] of matches(
    /(?<![\p{L}\p{N}+-]|[\p{N}+][ .-])\d{3}(?:-\d{2}-| \d{2} )\d{4}(?![\p{L}\p{N}-]|[ .-]\d)/gu,
    text,
  )) {
    if (validSsn(v.replace(/[ -]/g, ""))) out.push(span("SSN", i, v));
  }
  return out;
}

/** A dotted number right after one of these is a clause or version number, not an address. */
const NUMBERED_BY =
  /(?:\b(?:clauses?|sections?|sec|articles?|art|paragraphs?|para|schedules?|annex|appendix|exhibit|rules?|items?|versions?|ver|release|build|firmware|fw|patch|revision|rev|Ziffer|Abschnitt|Artikel|Absatz|Klausel|cl[aá]usula|art[ií]culo|apartado|secci[oó]n|articolo|clausola|paragrafo|sezione)\.?|§|¶|\bv)\s*$/iu;

/**
 * The national identification numbers of the other locales, as SSN (a national id), where no label
 * names them: ES DNI and NIE and IT codice fiscale by their check letter, FR NIR by its key (mod
 * 97), UK National Insurance numbers by their prefix rules, DE social insurance numbers by their
 * date of birth and check digit; after a label, every national id in its shape
 * (LABELLED_NATIONAL_IDS) and identity documents' numbers.
 */
function nationalIds(text: string): PiiSpan[] {
  const out: PiiSpan[] = [];
  const DNI_LETTERS = "TRWAGMYFPDXBNJZSQVHLCKE";
  for (const [i, v] of matches(
    /(?<![\p{L}\p{N}.-])(?:\d{2}\.?\d{3}\.?\d{3}|[XYZ]-?\d{7})-?[A-Z](?![\p{L}\p{N}-])/gu,
    text,
  )) {
    const compact = v.replace(/[.-]/g, "");
    const digits = compact.slice(0, -1).replace(/^[XYZ]/, (c) => String("XYZ".indexOf(c)));
    if (digits.length === 8 && DNI_LETTERS[Number(digits) % 23] === compact.at(-1))
      out.push(span("SSN", i, v));
  }
  for (const [i, v] of matches(
    /(?<![\p{L}\p{N}])[A-Z]{6}\d{2}[A-EHLMPRST]\d{2}[A-Z]\d{3}[A-Z](?![\p{L}\p{N}])/gu,
    text,
  ))
    if (codiceFiscaleCheck(v.slice(0, 15)) === v[15]) out.push(span("SSN", i, v));
  for (const [i, v] of matches(
    /(?<![\p{L}\p{N}])[12] ?\d{2} ?(?:0[1-9]|1[0-2]|[2-9]\d) ?(?:\d{2}|2[AB]) ?\d{3} ?\d{3} ?\d{2}(?![\p{L}\p{N}])/gu,
    text,
  )) {
    const compact = v.replace(/ /g, "");
    const body = compact.slice(0, 13).replace("2A", "19").replace("2B", "18");
    if (97n - (BigInt(body) % 97n) === BigInt(compact.slice(13))) out.push(span("SSN", i, v));
  }
  for (const [i, v] of matches(
    /(?<![\p{L}\p{N}])(?!BG|GB|NK|KN|TN|NT|ZZ)[A-CEGHJ-PR-TW-Z][A-CEGHJ-NPR-TW-Z] ?\d{2} ?\d{2} ?\d{2} ?[A-D](?![\p{L}\p{N}])/gu,
    text,
  ))
    out.push(span("SSN", i, v));
  for (const [i, v] of matches(
    /(?<![\p{L}\p{N}])\d{2} ?(?:[0-2]\d|3[01]|[5-7]\d|8[01])(?:0[1-9]|1[0-2])\d{2} ?[A-Z] ?\d{3}(?![\p{L}\p{N}])/gu,
    text,
  ))
    if (rentenversicherungCheck(v.replace(/ /g, ""))) out.push(span("SSN", i, v));
  for (const [i, v] of matches(/(?<![\p{N}.-])\d{3}\.\d{3}\.\d{3}-\d{2}(?![\p{N}-]|\.\d)/gu, text))
    if (cpfCheck(v.replace(/\D/g, ""))) out.push(span("SSN", i, v));
  out.push(...asianAndMexicanIds(text));
  // One scan for any of the labels before each label's own (most texts hold none).
  if (NATIONAL_ID_LABEL.test(text))
    for (const re of LABELLED_NATIONAL_IDS)
      for (const m of execAll(re, text))
        if (!LOWER_CASE_WORD_LABEL.test(m[0]))
          out.push(span("SSN", m.index + m[0].length - m[1]!.length, m[1]!));
  for (const [i, v] of matches(ID_DOCUMENT, text, 1))
    if (isDocumentNumber(v)) out.push(span("SSN", i, v));
  return out;
}

/** A verb between an id's label and the number (`passport number is X1234567`, `SSN is …`). */
const ID_IS = "(?: (?:is|was|ist|lautet|est|es|è))?";

/** Labels that in lower case are words of the six languages (sin, nie, pan) or an abbreviation (cf.). */
const LOWER_CASE_WORD_LABEL = /^(?:sin|nas|nie|nir|spi|cf|pan|tin|ein|fin|rfc)\b/;
/**
 * National ids after their label, in their shape, whether or not their check passes: the label
 * says whose number it is, and one mistyped digit leaves it as identifying (unlabelled, the check
 * alone decides, above). US SSN and ITIN, a US taxpayer's or employer's number (TIN, EIN: a sole
 * proprietor's is theirs, and a TIN may be an SSN), ES DNI, NIE and NIF, IT codice fiscale, FR NIR and tax
 * number, DE Steuer-ID and social insurance number, Canadian SIN, UK National Insurance and NHS
 * numbers, Brazilian CPF, Indian PAN and Aadhaar, Dutch BSN, Polish PESEL, Chinese resident
 * identity numbers, Korean resident registration numbers, Singapore's NRIC and FIN, Hong Kong's
 * HKID, Mexico's CURP and RFC, Japan's My Number, Australia's TFN.
 */
const NATIONAL_ID_LABELS: ReadonlyArray<readonly [label: string, shape: string]> = [
  [
    "SSN|S\\.S\\.N\\.?|SS#|ITIN|soc(?:ial|\\.) ?sec(?:urity|\\.)?(?: (?:number|no\\.?|card|#))?",
    "\\d{3}[ .-]?\\d{2}[ .-]?\\d{4}",
  ],
  [
    "TIN|F?EIN|taxpayer identification (?:number|no\\.?)|employer identification (?:number|no\\.?)",
    "\\d{2}-?\\d{7}|\\d{3}[ .-]?\\d{2}[ .-]?\\d{4}",
  ],
  [
    "DNI|NIE|NIF|documento nacional de identidad|n[úu]mero de identidad de extranjero",
    "(?:\\d{2}\\.?\\d{3}\\.?\\d{3}|[XYZ]-?\\d{7})-?[A-Z]",
  ],
  ["codice fiscale|cod\\. ?fisc\\.|C\\.F\\.|CF", "[A-Z]{6}\\d{2}[A-Z]\\d{2}[A-Z]\\d{3}[A-Z]"],
  [
    "NIR|num[ée]ro de s[ée]curit[ée] sociale|n[°º] (?:de )?s[ée]curit[ée] sociale|num[ée]ro INSEE",
    "[12] ?\\d{2} ?\\d{2} ?(?:\\d{2}|2[AB]) ?\\d{3} ?\\d{3} ?\\d{2}",
  ],
  [
    "num[ée]ro fiscal(?: de r[ée]f[ée]rence)?|n[°º] fiscal|num[ée]ro d'identification fiscale|SPI",
    "[0-3]\\d(?: ?\\d){11}",
  ],
  [
    "Steuer-?ID|Steueridentifikationsnummer|Steuer-Identifikationsnummer|IdNr\\.?|tax id(?:entification number)?",
    "\\d{2}(?: ?\\d{3}){3}",
  ],
  [
    "Rentenversicherungsnummer|Sozialversicherungsnummer|Versicherungsnummer|RV-?Nummer|SV-?Nummer",
    "\\d{2} ?\\d{6} ?[A-Z] ?\\d{3}",
  ],
  [
    "SIN|social insurance (?:number|no\\.?)|NAS|num[ée]ro d'assurance sociale",
    "\\d{3}[ -]?\\d{3}[ -]?\\d{3}",
  ],
  [
    "NINO|NI (?:number|no\\.?)|National Insurance(?: (?:number|no\\.?))?",
    "[A-Z]{2} ?\\d{2} ?\\d{2} ?\\d{2} ?[A-D]",
  ],
  ["NHS(?: (?:number|no\\.?|#))?", "\\d{3}[ -]?\\d{3}[ -]?\\d{4}"],
  ["CPF(?: n[º°o]\\.?)?", "\\d{3}\\.?\\d{3}\\.?\\d{3}-?\\d{2}"],
  ["PAN(?: (?:number|no\\.?|card))?", "[A-Z]{5}\\d{4}[A-Z]"],
  ["Aadhaar(?: (?:number|no\\.?|card))?", "[2-9]\\d{3} ?\\d{4} ?\\d{4}"],
  ["BSN|burgerservicenummer|sofi-?nummer", "\\d{4}\\.\\d{2}\\.\\d{3}|\\d{3}[ .]?\\d{3}[ .]?\\d{3}"],
  ["PESEL", "\\d{11}"],
  [
    "身份证号码?|身份證號碼?|居民身份证|居民身份證|resident identity card(?: (?:number|no\\.?))?",
    "\\d{17}[\\dXx]|\\d{15}",
  ],
  ["주민등록번호|주민번호|RRN|resident registration (?:number|no\\.?)", "\\d{6}-?\\d{7}"],
  ["NRIC|FIN", "[STFGM]\\d{7}[A-Z]"],
  [
    "HKID|Hong Kong Identity Card(?: (?:number|no\\.?))?|香港身份證",
    "[A-Z]{1,2}\\d{6}\\(?[0-9A]\\)?",
  ],
  ["CURP", "[A-Z]{4}\\d{6}[HMX][A-Z]{5}[A-Z\\d]\\d"],
  ["RFC", "[A-ZÑ&]{4}\\d{6}[A-Z\\d]{3}"],
  ["My Number|マイナンバー|個人番号", "\\d{4} ?\\d{4} ?\\d{4}"],
  ["TFN|tax file (?:number|no\\.?)", "\\d{3} ?\\d{3} ?\\d{2,3}"],
];
const LABELLED_NATIONAL_IDS = NATIONAL_ID_LABELS.map(
  ([label, shape]) =>
    new RegExp(
      `(?<![\\p{L}\\p{N}])(?:${label})${ID_IS}[:：#\\s-]*(${shape})(?![\\p{L}\\p{N}]|[ .-]\\d)`,
      "giu",
    ),
);
/** Any of the labels, anywhere: whether a text can hold a labelled national id at all. */
const NATIONAL_ID_LABEL = new RegExp(
  `(?<![\\p{L}\\p{N}])(?:${NATIONAL_ID_LABELS.map(([label]) => label).join("|")})`,
  "iu",
);

/** A date of birth's month and day as an id writes them, `MMDD`. */
function monthDay(mmdd: string): boolean {
  const month = Number(mmdd.slice(0, 2));
  const day = Number(mmdd.slice(2, 4));
  return month >= 1 && month <= 12 && day >= 1 && day <= 31;
}

/** A Chinese resident identity number's check character (ISO 7064 MOD 11-2) over its 17 digits. */
function chineseIdCheck(id: string): boolean {
  const weights = [7, 9, 10, 5, 8, 4, 2, 1, 6, 3, 7, 9, 10, 5, 8, 4, 2];
  const sum = weights.reduce((acc, w, k) => acc + w * Number(id[k]), 0);
  return "10X98765432"[sum % 11] === id[17]!.toUpperCase();
}

/** A Korean resident registration number's check digit (the scheme before 2020's random ones). */
function koreanRrnCheck(digits: string): boolean {
  const weights = [2, 3, 4, 5, 6, 7, 8, 9, 2, 3, 4, 5];
  const sum = weights.reduce((acc, w, k) => acc + w * Number(digits[k]), 0);
  return (11 - (sum % 11)) % 10 === Number(digits[12]);
}

/** Singapore's NRIC (S, T) and FIN (F, G) check letter: weights 2 7 6 5 4 3 2, T and G add 4. */
function nricCheck(id: string): boolean {
  const weights = [2, 7, 6, 5, 4, 3, 2];
  let sum = weights.reduce((acc, w, k) => acc + w * Number(id[k + 1]), 0);
  if (id[0] === "T" || id[0] === "G") sum += 4;
  const letters = id[0] === "S" || id[0] === "T" ? "JZIHGFEDCBA" : "XWUTRQPNMLK";
  return letters[sum % 11] === id[8];
}

/** Hong Kong's HKID check character: one or two letters (a space before one), six digits, mod 11. */
function hkidCheck(letters: string, digits: string, check: string): boolean {
  const values = [
    ...(letters.length === 1 ? [36] : []),
    ...[...letters].map((c) => c.charCodeAt(0) - 55),
    ...[...digits].map(Number),
  ];
  const sum = values.reduce((acc, v, k) => acc + v * (9 - k), 0);
  const value = (11 - (sum % 11)) % 11;
  return (value === 10 ? "A" : String(value)) === check;
}

/**
 * National ids of Asia and Mexico where no label names them, by their check or their date of
 * birth: a Chinese resident identity number (region, date of birth, serial, MOD 11-2 check), a
 * Korean resident registration number with its hyphen (date of birth, sex digit, the check of
 * the numbers issued before 2020), Singapore's NRIC and FIN, Hong Kong's HKID with its check in
 * brackets, and a Mexican CURP (letters of the name, date of birth, sex, state).
 */
function asianAndMexicanIds(text: string): PiiSpan[] {
  const out: PiiSpan[] = [];
  for (const [i, v] of matches(
    /(?<![\p{L}\p{N}])\d{6}(?:19|20)\d{2}\d{4}\d{3}[\dXx](?![\p{L}\p{N}])/gu,
    text,
  ))
    if (monthDay(v.slice(10, 14)) && chineseIdCheck(v)) out.push(span("SSN", i, v));
  for (const [i, v] of matches(/(?<![\p{L}\p{N}-])\d{6}-[1-4]\d{6}(?![\p{L}\p{N}-])/gu, text))
    if (monthDay(v.slice(2, 6)) && koreanRrnCheck(v.replace("-", ""))) out.push(span("SSN", i, v));
  for (const [i, v] of matches(/(?<![\p{L}\p{N}])[STFG]\d{7}[A-Z](?![\p{L}\p{N}])/gu, text))
    if (nricCheck(v)) out.push(span("SSN", i, v));
  for (const m of execAll(
    /(?<![\p{L}\p{N}])([A-Z]{1,2})(\d{6}) ?\(([0-9A])\)(?![\p{L}\p{N}])/gu,
    text,
  ))
    if (hkidCheck(m[1]!, m[2]!, m[3]!)) out.push(span("SSN", m.index, m[0]));
  for (const [i, v] of matches(
    /(?<![\p{L}\p{N}])[A-Z][AEIOUX][A-Z]{2}\d{6}[HMX](?:AS|BC|BS|CC|CS|CH|CL|CM|DF|DG|GT|GR|HG|JC|MC|MN|MS|NT|NL|OC|PL|QT|QR|SP|SL|SR|TC|TS|TL|VZ|YN|ZS|NE)[B-DF-HJ-NP-TV-Z]{3}[A-Z\d]\d(?![\p{L}\p{N}])/gu,
    text,
  ))
    if (monthDay(v.slice(6, 10))) out.push(span("SSN", i, v));
  return out;
}

/** A Brazilian CPF's two check digits over its nine (mod 11), not one digit repeated. */
function cpfCheck(digits: string): boolean {
  if (/^(\d)\1{10}$/.test(digits)) return false;
  const check = (n: number) => {
    let sum = 0;
    for (let k = 0; k < n; k++) sum += Number(digits[k]) * (n + 1 - k);
    const r = sum % 11;
    return r < 2 ? 0 : 11 - r;
  };
  return check(9) === Number(digits[9]) && check(10) === Number(digits[10]);
}

/**
 * A German social insurance number (Rentenversicherungsnummer: area, date of birth, the birth
 * name's initial, serial, check digit): the initial as its place in the alphabet (two digits),
 * weights 2 1 2 5 7 1 2 1 2 1 2 1, the products' digit sums added, mod 10.
 */
function rentenversicherungCheck(id: string): boolean {
  const letter = String(id.charCodeAt(8) - 64).padStart(2, "0");
  const digits = `${id.slice(0, 8)}${letter}${id.slice(9, 11)}`;
  const weights = [2, 1, 2, 5, 7, 1, 2, 1, 2, 1, 2, 1];
  let sum = 0;
  for (const [k, w] of weights.entries()) {
    const product = Number(digits[k]) * w;
    sum += Math.floor(product / 10) + (product % 10);
  }
  return sum % 10 === Number(id[11]);
}

/**
 * Identity documents after their label, in the six languages and Dutch: passport, identity card,
 * driving licence, residence permit. Their numbers have no check a detector could apply, so the
 * label decides, and the number must look like one (see isDocumentNumber): groups of letters and
 * digits apart by a hyphen or, before a group that starts on a digit, a space (`D1234-5678-9012`,
 * `12 3456 789`; `X1234567 issued` ends before `issued`).
 */
const ID_DOCUMENT = new RegExp(
  String.raw`\b(?:passport|Reisepass|Personalausweis|Ausweis|passeport|pasaporte|passaporto|paspoort|(?:national )?ID card|identity (?:card|document)|carte (?:nationale )?d'identit[ée]|documento (?:nacional )?de identidad|carta d'identit[àa]|identiteitskaart|driver'?s'? licen[cs]e|driving licen[cs]e|DL|F[üu]hrerschein|permis de conduire|licencia de conducir|carn[ée] de conducir|patente di guida|rijbewijs|residence permit|Aufenthaltstitel|titre de s[ée]jour|permesso di soggiorno)(?:-?(?:nummer|Nr)| (?:number|num[ée]ro|n[úu]mero|num|no|nr|n°)|#)?\.?${ID_IS}[:#\s]*([A-Za-z0-9]{1,20}(?:-[A-Za-z0-9]{1,20}| [0-9][A-Za-z0-9]{0,19}){0,4})(?![\p{L}\p{N}])`,
  "giu",
);

/**
 * A document's number: 6 to 20 capitals and digits, at least two of them digits (the label's
 * pattern reads any case, so the capitals are checked here).
 */
function isDocumentNumber(value: string): boolean {
  const compact = value.replace(/[ -]/g, "");
  return (
    compact.length >= 6 &&
    compact.length <= 20 &&
    /^[A-Z0-9]+$/.test(compact) &&
    (compact.match(/\d/g) ?? []).length >= 2
  );
}

/** The check letter of a codice fiscale's first 15 characters. */
function codiceFiscaleCheck(first15: string): string {
  const ODD = [
    1, 0, 5, 7, 9, 13, 15, 17, 19, 21, 2, 4, 18, 20, 11, 3, 6, 8, 12, 14, 16, 10, 22, 25, 24, 23,
  ];
  let sum = 0;
  for (const [i, c] of [...first15].entries()) {
    const n = /\d/.test(c) ? Number(c) : c.charCodeAt(0) - 65;
    sum += i % 2 === 0 ? ODD[n]! : n;
  }
  return String.fromCharCode(65 + (sum % 26));
}

/** Each part at most 255; zero-padded parts (`010.001.002.003`, as some logs write them) too. */
const isIPv4 = (v: string) => v.split(".").every((part) => Number(part) <= 255);

function ips(text: string): PiiSpan[] {
  const out: PiiSpan[] = [];
  for (const [i, v] of matches(/(?<![\d.])(?:\d{1,3}\.){3}\d{1,3}(?![\d.]*\d)/g, text)) {
    if (NUMBERED_BY.test(text.slice(Math.max(0, i - 16), i))) continue;
    // The addresses software writes for the host itself and for any (`127.0.0.1`, `0.0.0.0`) are
    // no one's.
    if (v === "127.0.0.1" || v === "0.0.0.0") continue;
    if (isIPv4(v)) out.push(span("IP", i, v));
  }
  // An IPv6 address may end on an IPv4 one (`::ffff:192.0.2.128`, `64:ff9b::192.0.2.33`).
  for (const [i, v] of matches(
    /(?<![\w:])(?:[0-9A-Fa-f]{0,4}:){2,7}(?:(?:\d{1,3}\.){3}\d{1,3}|[0-9A-Fa-f]{0,4})(?![\w:])/g,
    text,
  )) {
    if (v.length > 2 && validator.isIP(v, 6)) out.push(span("IP", i, v));
  }
  return out;
}

const ACCOUNT_LABEL = new RegExp(
  `\\b(?:account(?: (?:number|no\\.?|#))?|acct\\.?(?: (?:no\\.?|#))?|a\\/c(?: no\\.?)?|Kontonummer|Konto(?:-?Nr\\.?)?|num[ée]ro de compte|n[°º] de compte|n[úu]mero de cuenta|cuenta|numero di conto|conto(?: n\\.)?|conta(?: corrente| poupan[çc]a)?(?: n[º°o]\\.?)?|n[úu]mero da conta|CLABE(?: interbancaria)?|rekeningnummer|(?:ABA )?routing(?: (?:number|no\\.?|#))?|ABA(?: (?:number|no\\.?|#))?|RTN|sort ?code|BSB(?: (?:number|no\\.?))?|BLZ|Bankleitzahl)[:#\\s]*${LABEL_VERB}((?:\\d[ -]?){5,17}\\d)\\b`,
  "giu",
);

/** A span of years (`2024-2025`, `2024 25`), as fiscal years are written after "account". */
const YEAR_SPAN = /^(?:19|20)\d{2}[ -](?:(?:19|20)\d{2}|\d{2})$/;

function bankAccounts(text: string): PiiSpan[] {
  const out: PiiSpan[] = [];
  for (const [i, v] of matches(ACCOUNT_LABEL, text, 1))
    if (!YEAR_SPAN.test(v)) out.push(span("BANK_ACCOUNT", i, v));
  // UK sort code + account number.
  for (const [i, v] of matches(/\b\d{2}-\d{2}-\d{2}[ ,/]+\d{8}\b/g, text))
    out.push(span("BANK_ACCOUNT", i, v));
  for (const m of execAll(RIB, text))
    if (ribKeyValid(m[1]!, m[3]!, m[4]!, m[5]!)) out.push(span("BANK_ACCOUNT", m.index, m[0]));
  return out;
}

/**
 * A French RIB, as payment instructions give it beside or instead of the IBAN: bank code, branch
 * code, account number (digits or capitals) and key, 5-5-11-2, spaced alike or not at all.
 */
const RIB = /(?<![\p{L}\p{N}])(\d{5})( ?)(\d{5})\2([0-9A-Z]{11})\2(\d{2})(?![\p{L}\p{N}])/gu;
/** The digit each capital of a RIB's account number stands for (A-I 1-9, J-R 1-9, S-Z 2-9). */
const RIB_LETTER_DIGITS = "12345678912345678923456789";

/** The RIB key: 97 - ((89 bank + 15 branch + 3 account) mod 97). */
function ribKeyValid(bank: string, branch: string, account: string, key: string): boolean {
  const digits = account.replace(/[A-Z]/g, (c) => RIB_LETTER_DIGITS[c.charCodeAt(0) - 65]!);
  const sum = 89n * BigInt(bank) + 15n * BigInt(branch) + 3n * BigInt(digits);
  return 97n - (sum % 97n) === BigInt(key);
}

const MONTHS =
  "(?:Jan(?:uary|vier|uar)?|Feb(?:ruary|ruar)?|f[ée]vrier|M[äa]r(?:ch|z|s)?|Apr(?:il)?|avril|May|Mai|June?|Juni|juin|July?|Juli|juillet|Aug(?:ust)?|ao[ûu]t|Sep(?:t(?:ember)?)?|septembre|Oct(?:ober)?|Okt(?:ober)?|octobre|Nov(?:ember)?|novembre|Dec(?:ember)?|Dez(?:ember)?|d[ée]cembre|enero|febrero|marzo|abril|mayo|junio|julio|agosto|septiembre|octubre|noviembre|diciembre|gennaio|febbraio|aprile|maggio|giugno|luglio|settembre|ottobre|dicembre|januari|februari|maart|mei|augustus|janeiro|fevereiro|março|maio|junho|julho|setembro|outubro|novembro|dezembro|stycznia|lutego|marca|kwietnia|maja|czerwca|lipca|sierpnia|września|października|listopada|grudnia)";
/** A day of the month written out as an ordinal (`the third of April`, `April twenty-first`). */
const ORDINAL_DAY =
  "(?:(?:twenty|thirty)[ -](?:first|second|third|fourth|fifth|sixth|seventh|eighth|ninth)|first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|eleventh|twelfth|thirteenth|fourteenth|fifteenth|sixteenth|seventeenth|eighteenth|nineteenth|twentieth|thirtieth)";
const DAY = `(?:\\d{1,2}(?:st|nd|rd|th|er|º|°|ª)?|${ORDINAL_DAY})`;
/** A year of four digits, or of two after an apostrophe (`3 Apr '85`). */
const LONG_YEAR = "(?:\\d{4}|['’]\\d{2})";
const DATE = `(?:\\d{4}[./-]\\d{1,2}[./-]\\d{1,2}|\\d{1,2}[ ./-]\\d{1,2}[ ./-]\\d{2,4}|\\d{1,2}-${MONTHS}\\.?-\\d{2,4}|\\d{1,2}/${MONTHS}\\.?/\\d{2,4}|(?:19|20)\\d{2}(?:0[1-9]|1[0-2])(?:0[1-9]|[12]\\d|3[01])(?!\\d)|${MONTHS}\\.? ${DAY},? ${LONG_YEAR}|${DAY}\\.? (?:of )?(?:de )?${MONTHS}\\.?,? (?:de )?(?:\\d{2}(?:\\d{2})?|['’]\\d{2}))`;
/**
 * A date of birth without its year or its day, after a label that says it is one (`Birthday:
 * April 3`, `Geburtstag: 3. April`, `DOB: 03/04`, `DOB: 12/1985`): either singles a person out
 * among a few hundred; tried after the full forms, so no part of one is left out of the span.
 */
const PARTIAL_DATE = `(?:${MONTHS}\\.? ${DAY}|${DAY}\\.? (?:of )?(?:de )?${MONTHS}\\.?|(?:0?[1-9]|1[0-2])[./-](?:19|20)\\d{2}|\\d{1,2}[./]\\d{1,2})(?![\\p{L}\\p{N}]|[./]\\d)`;
/**
 * Where a place of birth comes between the label and the date (`born in Lyon on`, `né à Lyon le`,
 * `nata a Reggio Emilia (RE) il`, `nacido en Sevilla el`, `geboren in Köln am`, `geboren te
 * Utrecht op`).
 */
const BIRTHPLACE =
  "(?:born in|geboren in|geboren te|n[ée](?:e|\\(e\\))? à|nacid[oa] en|nat[oa] a|nascid[oa] em) \\p{Lu}[\\p{L}'’-]*(?: \\p{Lu}[\\p{L}'’-]*){0,3}(?: \\(\\p{Lu}{2}\\))?,? (?:on|am|le|el|il|op|em|a)";
/** Labels that give the place of birth before the date (`Place and date of birth: Lyon, 3 April 1985`). */
const PLACE_THEN_DATE =
  "(?:place and date of birth|lieu et date de naissance|lugar y fecha de nacimiento|luogo e data di nascita|Geburtsort und -datum)[:\\s]*\\p{Lu}[\\p{L}'’-]*(?: \\p{Lu}[\\p{L}'’-]*){0,3}(?: \\(\\p{Lu}{2}\\))?,?";
/**
 * Labels of a date of birth, in the six languages and Dutch; a form's hint of the format may follow
 * (`Date of Birth (MM/DD/YYYY):`, `Geburtsdatum (TT.MM.JJJJ)`), and a biography's `(b. 3 April
 * 1985)`.
 */
const DOB_RE = new RegExp(
  `(?:\\b(?:date[ _]?of[ _]?birth|born(?: on)?|DOB|D\\.O\\.B\\.|birth[ _]?date|birthday|date_(?:de_)?naissance|fecha_(?:de_)?nacimiento|data_(?:di_)?nascita|geboren(?: am)?|geb\\.?-?\\s?datum|geb\\.(?: am)?|Geburtsdatum(?:\\/-?ort| und -ort)?|Geburtstag|date and place of birth|date et lieu de naissance|fecha y lugar de nacimiento|data e luogo di nascita|n[ée](?:e|\\(e\\))? le|date de naissance|fecha de nacimiento|fecha (?:de )?nac\\.|nacid[oa] el|nat[oa] il|data di nascita|geboortedatum|geboren op|geb\\. op|data de nascimento|nascid[oa] (?:em|a)|data urodzenia|urodzon[ya](?: dnia)?|ur\\.|${BIRTHPLACE}|${PLACE_THEN_DATE})|(?<=\\()b\\.)(?: \\([\\p{L}./ -]{4,12}\\))?["']?[:=\\s–—-]*["']?${LABEL_VERB}(?:the )?(${DATE}|${PARTIAL_DATE})`,
  "giu",
);

/**
 * A year alone is a date of birth only after a label that says so, in the six languages (`born in
 * 1985`, `Geburtsjahr: 1985`, `née en 1985`, `año de nacimiento: 1985`, `nato nel 1985`); any
 * other year (`founded in 1985`, `since 2015`) is not personal data. A full date after `born`
 * (`born 1985-03-12`) is DOB_RE's.
 */
const BIRTH_YEAR_RE = new RegExp(
  `(?:\\b(?:born(?: in)?|year of birth|birth year|geboren(?: im Jahr(?:e)?)?|geb\\.|Geburtsjahr|Jahrgang|n[ée](?:e|\\(e\\))? en|ann[ée]e de naissance|nacid[oa] en(?: el año)?|año de nacimiento|nat[oa] nel|anno di nascita|geboren in|geboortejaar|ano de nascimento|nascid[oa] em|rok urodzenia|urodzon[ya] w)|(?<=\\()b\\.)[:\\s–—-]*${LABEL_VERB}((?:19|20)\\d{2}|['’]\\d{2})(?![\\p{L}\\p{N}]|[./-]\\d)`,
  "giu",
);

function datesOfBirth(text: string): PiiSpan[] {
  return [...matches(DOB_RE, text, 1), ...matches(BIRTH_YEAR_RE, text, 1)].map(([i, v]) =>
    span("DOB", i, v),
  );
}

const STREET_TYPES_EN =
  "Street|St\\.?|Avenue|Ave\\.?|Road|Rd\\.?|Lane|Ln\\.?|Boulevard|Blvd\\.?|Drive|Dr\\.?|Way|Court|Ct\\.?|Place|Pl\\.?|Terrace|Close|Crescent|Square|Parkway|Pkwy|Highway|Hwy|Circle|Trail|Junction|Gardens|Grove|Mews|Row|Hill|Park|Green|Walk|View|Heights|Ridge|Loop|Pike|Plaza|Alley|Bridge|Crossing|Path|Point|Port|Run|Pass|Rest|Route|Track|Viaduct|Vista|Wells|Meadow|Manor|Mills|Falls|Ford|Forge|Fork|Harbor|Haven|Island|Key|Knoll|Landing|Light|Lock|Lodge|Mount|Neck|Orchard|Oval|Prairie|Ranch|Rapids|Shoal|Shore|Spring|Springs|Station|Stream|Summit|Throughway|Trace|Turnpike|Union|Valley|Village|Ville|Cove|Creek|Estates|Expressway|Extension|Field|Fields|Flat|Flats|Glen|Harbour|Hollow|Inlet|Isle|Lake|Lakes|Motorway|Parade|Quay|Rise|Side|Skyway|Spur|Strand|Stravenue|Underpass|Wall|Wharf|Dale|Burg|Bypass|Camp|Canyon|Cape|Causeway|Center|Centre|Cliff|Club|Common|Corner|Corners|Course|Crest|Curve|Dam|Divide|Freeway|Garden|Gateway|Lights|Overpass|Mall|Pines|Plains|Greens|Harbors|Parkways|Spurs|Roads|Squares|Parks|Approach|Croft|Wynd|Paddock|End|Yard|Grange|Cross|Field|Meadows|Stravenue|Ways|Streets|Drives|Courts|Lanes|Ports|Points|Ridges|Trails|Views|Villages|Vistas|Radial|Ramp|Mission|Mountain|Mountains|Orchards|Passage|Pine|Plain|Ranch|Squares|Terraces|Tunnel|Unions|Keys|Knolls|Lakes|Loaf|Manors|Heights|Hills|Islands|Junctions|Crossroad|Crescents|Estate|Fords|Forest|Forges|Gardens|Glens|Haven|Hollows|Inlet|Isle|Lodge|Mill|Motorway|Shoals|Shores|Summit|Throughway|Cliffs|Gate|Fold|Bank|Lea|Wood|Drove|Broadway|Brookside|Chase|Rise|Hollow|Wharf|Branch|Brook|Brooks|Burgs|Centers|Circles|Coves|Extensions|Fall|Ferry|Forks|Fort|Groves|Locks|Rapid|Trafficway|Valleys|Walks|Mead|Garth|Vale|Brae|Brow|Copse|Glade|Circuit|Link";
/**
 * Streets whose name is a type alone (1600 Broadway, 1 Kingsway). Any other type alone after a
 * number is a street's only before its town (`39 Brookside, Newton`): otherwise a count (`2 Park
 * entrances`, `3 Union members`).
 */
const STREETS_BY_NAME = "Broadway|Kingsway";
/** A unit after a street and its number (`Apt 4`, `Suite 200`), and a street's quarter (`NW`). */
const UNIT_WORDS = "Apt|Apartment|Suite|Ste|Unit|Flat|Fl|Floor|Room|Rm";
const COMPASS = "N|S|E|W|NE|NW|SE|SW";
const STREET_WORD =
  "(?:\\p{Lu}[\\p{L}'’.-]*|de|del|de la|de los|de las|la|le|les|du|des|d'\\p{L}+|l'\\p{L}+|di|della|delle|dei|degli|von|van|der|dem|den|y)";
/**
 * A town after its postcode: capitalised words, and the particles and lower-case words towns'
 * names hold (`San Sebastián de los Reyes`, `Chianese laziale`, `Megna lido`), each word whole
 * and a particle only before the next capitalised word (`Paris la nuit` ends at `Paris`).
 */
const CITY =
  "\\p{Lu}[\\p{L}'’-]*(?:[ ](?:\\p{Lu}[\\p{L}'’-]*|(?:de los|de las|de la|del|de|la|le|les|sur|sous|en|am|an der|im)(?= \\p{Lu})|\\p{Ll}+'\\p{L}+|laziale|sardo|veneto|calabro|lombardo|umbro|salentino|ligure|terme|marittimo|lido|a mare|del friuli|nell'\\p{L}+)(?![\\p{L}'’-])){0,4}(?: \\(\\p{Lu}[\\p{L}-]*\\))?";
/** A US ZIP code (62704, 62704-0001) and a British postcode (SW1A 1AA), as address tails end. */
const US_ZIP = "\\d{5}(?:-\\d{4})?";
/** The US states', DC's and the territories' postal codes, before a ZIP code. */
const US_STATES =
  "AL|AK|AZ|AR|CA|CO|CT|DE|DC|FL|GA|HI|ID|IL|IN|IA|KS|KY|LA|ME|MD|MA|MI|MN|MS|MO|MT|NE|NV|NH|NJ|NM|NY|NC|ND|OH|OK|OR|PA|RI|SC|SD|TN|TX|UT|VT|VA|WA|WV|WI|WY|PR|GU|VI|AS|MP";
const UK_POSTCODE = "[A-Z]{1,2}\\d[A-Z\\d]? \\d[A-Z]{2}";
/** A Canadian province's code and postcode (Toronto, ON M5V 2T6), an Irish Eircode (D02 X285). */
const CA_PROVINCES = "AB|BC|MB|NB|NL|NS|NT|NU|ON|PE|QC|SK|YT";
const CA_POSTCODE = "[ABCEGHJ-NPRSTVXY]\\d[ABCEGHJ-NPRSTV-Z] ?\\d[ABCEGHJ-NPRSTV-Z]\\d";
const EIRCODE = "(?:[AC-FHKNPRTV-Y]\\d{2}|D6W) ?[0-9AC-FHKNPRTV-Y]{4}";
/** A town's name in capitalised words (Springfield, Salt Lake City, St. Albans). */
const TOWN = "\\p{Lu}[\\p{L}'’.-]*(?: \\p{Lu}[\\p{L}'’.-]*){0,3}";
/** A town after a street, one to four capitalised words (Mountain View, Little Whinging). */
const TOWN_AFTER = ",[ ]\\p{Lu}[\\p{L}'’-]*\\.?(?:[ ]\\p{Lu}[\\p{L}'’-]*){0,3}(?![\\p{L}\\d])";
/** Brazil's states as addresses abbreviate them (São Paulo - SP). */
const BRAZIL_STATE =
  "(?:AC|AL|AP|AM|BA|CE|DF|ES|GO|MA|MT|MS|MG|PA|PB|PR|PE|PI|RJ|RN|RS|RO|RR|SC|SP|SE|TO)";
/** Katakana with the long vowel's mark, and all kana, as the inside of a character class. */
const KATAKANA = "\\p{sc=Katakana}ー";
const KANA = `\\p{sc=Hiragana}${KATAKANA}`;
/** A character of a Japanese place's name, and a block's number in half- or full-width digits. */
const JAPANESE_PLACE = `[\\p{sc=Han}${KANA}々]`;
const JAPANESE_NUMBER = "(?:[0-9０-９]{1,4}|[一二三四五六七八九十]{1,3})";
/** Portugal's postcode (4-3) and town after a street (Rua Augusta 12, 1100-048 Lisboa). */
const PORTUGAL_TAIL = `,? \\d{4}-\\d{3} ${CITY}`;
/** A Spanish flat's door after its floor (`3º izq.`, `2º dcha.`, `1º centro`). */
const SPANISH_DOORS =
  "izq(?:da|uierda)?\\.?|dcha\\.?|drcha\\.?|der(?:echa)?\\.?|centro|ctro\\.?|int\\.?|ext\\.?";
/**
 * A street's types written before its name, by language; a type two languages share (Avenida,
 * Largo, Av.) is in each.
 */
const SPANISH_STREET_TYPES =
  "Calle|C\\/|Avenida|Avda\\.?|Paseo|Plaza|Camino|Carrera|Ronda|Travesía|Glorieta|Callejón|Cuesta|Carretera|Urbanización|Rambla|Gran (?:Vía|Subida|Calle|Avenida|Plaza|Paseo|Camino|Ronda|Travesía|Cuesta|Rambla)";
const ITALIAN_STREET_TYPES =
  "Via|Viale|Piazza|Corso|Vicolo|Largo|Strada|Contrada|Borgo|Piazzale|Lungomare|Salita|Rotonda|Incrocio|Canale|Vico|Traversa";
const FRENCH_STREET_TYPES =
  "Rue|Avenue|Av\\.|Boulevard|Bd|Place|Allée|Impasse|Chemin|Quai|Route|Ruelle|Sentier";
const PORTUGUESE_STREET_TYPES =
  "Rua|Avenida|Av\\.|Travessa|Praça|Largo|Estrada|Alameda|Calçada|Rodovia|Praceta|Beco|Ladeira";
const ADDRESS_PATTERNS: RegExp[] = [
  // [Flat 3, ]123 Main Street[, Apt. 4][, Springfield, IL 62704]; a British town may have its
  // county before the postcode (Little Whinging, Surrey GU1 1AA), an Australian its state's
  // postcode after it (Melbourne VIC 3000).
  new RegExp(
    `(?:\\b(?:[Aa]pt|[Aa]partment|[Ss]uite|[Ss]te|[Uu]nit|[Ff]lat)\\.? #?\\d{1,4}[A-Za-z]?,? )?\\b\\d{1,6}[A-Za-z]? (?:(?:(?:[A-Z][\\p{L}'’-]*|\\d{1,3}(?:st|nd|rd|th))\\.? ){1,4}(?:${STREET_TYPES_EN})|(?:${STREET_TYPES_EN})(?=, \\p{Lu})|${STREETS_BY_NAME})\\b\\.?(?: (?:${COMPASS})\\b\\.?)?(?:,? (?:(?:${UNIT_WORDS})\\.? #?|#)\\w+)?(?:,? [A-Z][\\p{L}'’ -]+?,? (?:(?:[A-Z]{2} )?${US_ZIP}|\\d{3} ?\\d{3})(?!\\d))?(?:(?:${TOWN_AFTER})(?:,? (?:${CA_PROVINCES}))?,? ${CA_POSTCODE}(?![\\p{L}\\d])|(?:${TOWN_AFTER})(?: \\d{1,2})?,? ${EIRCODE}(?![\\p{L}\\d])|(?:${TOWN_AFTER}){1,2},? ${UK_POSTCODE}|(?:${TOWN_AFTER})?(?:(?<=\\b(?:NSW|VIC|QLD|WA|SA|TAS|ACT|NT)) \\d{4}(?!\\d))?(?:,? ${UK_POSTCODE})?)`,
    "gu",
  ),
  // An Eircode after its label: each names one dwelling of Ireland.
  new RegExp(`(?<=\\b[Ee]ircode:? )${EIRCODE}(?![\\p{L}\\d])`, "gu"),
  // The same in lower case, as chats and quick notes write it (`1600 pennsylvania ave nw,
  // washington, dc 20500`, `10 downing street, london sw1a 2aa`): only with its town and a ZIP
  // code or a British postcode, which words in lower case before a street's type need to be read
  // as an address.
  new RegExp(
    `(?<![\\p{L}\\p{N}])\\d{1,6}[a-z]? (?:[\\p{Ll}\\d][\\p{Ll}\\d'’-]*\\.? ){1,4}(?:${STREET_TYPES_EN})\\.?(?: (?:${COMPASS})\\.?)?(?:,? (?:${UNIT_WORDS})\\.? #?[\\p{L}\\d]+|,? #\\d+)?,? \\p{Ll}[\\p{Ll}'’.-]*(?: \\p{Ll}[\\p{Ll}'’.-]*){0,3},? (?:(?:[a-z]{2},? )?${US_ZIP}|[a-z]{1,2}\\d[a-z\\d]? ?\\d[a-z]{2})(?![\\p{L}\\p{N}])`,
    "giu",
  ),
  // A street in lower case where a person says they live there (`i live at 42 elm street`, `she
  // moved to 5 oak road`, `my address is 10 downing street`): the words that make it one's home;
  // its town after it where the clause ends there (`…elm street, boston.`).
  new RegExp(
    `(?<=(?<![\\p{L}])(?:[Ll]ives?|[Ll]iving|[Ll]ived|[Rr]esides?|[Rr]esiding|[Mm]oved|[Mm]ove|[Mm]oving|[Ss]tay(?:s|ing)?|[Aa]ddress(?: is|:)) (?:at |on |to |in )?)\\d{1,6}[a-z]? (?:\\p{Ll}[\\p{Ll}'’-]*\\.? ){1,3}(?:street|avenue|road|lane|boulevard|drive|court|place|terrace|close|crescent|way|st|ave|rd|ln|blvd)(?![\\p{L}\\p{N}])\\.?(?:, \\p{Ll}[\\p{Ll}'’-]*(?: \\p{Ll}[\\p{Ll}'’-]*){0,2}(?=[.,;!?]|[ \\t]*(?:\\n|$)))?`,
    "gu",
  ),
  // A post-office box, in the six languages and Dutch (Postfach numbers in pairs: 10 01 01), with
  // its town as the country writes it: Springfield, IL 62704 / London SW1A 1AA / 10001 Berlin /
  // 1000 AB Amsterdam.
  new RegExp(
    `\\b(?:[Pp]\\.? ?[Oo]\\.? ?(?:Box|BOX|box)|Post Office Box|POST OFFICE BOX|Postfach|POSTFACH|[Bb]oîte [Pp]ostale|B\\.P\\.|[Aa]partado de [Cc]orreos|Apdo\\.|[Cc]asella [Pp]ostale|Postbus|POSTBUS) ?#?\\d{1,6}(?: \\d{2}){0,2}\\b(?:,? ${TOWN},? (?:[A-Z]{2} )?${US_ZIP}(?!\\d)|,? ${TOWN},? ${UK_POSTCODE}\\b|,? (?:[A-Z]{1,2}-)?\\d{4,5} ${CITY})?`,
    "gu",
  ),
  // A German or Dutch street whose type ends its name, its number after (Hauptstraße 5, Am Markt
  // 3, Friedrich-Ebert-Platz 5[, 10115 Berlin]), or a town's adjective before the street's word
  // with a four-digit postcode, as Austria and Switzerland write them (Mariahilfer Straße 1,
  // A-1060 Wien).
  /(?<![\p{L}\p{N}_-])(?:[A-ZÄÖÜ][\p{L}-]*(?:stra(?:ß|ss)e|str\.|weg|gasse|platz|allee|ring|damm|ufer|chaussee|steig|pfad|markt|berg|graben|hof|kamp|straat|laan|plein|gracht|dijk|kade|singel)|[A-ZÄÖÜ][\p{L}-]*er (?:Straße|Strasse|Str\.|Gasse|Weg|Platz|Allee|Ring|Damm|Ufer|Chaussee|Markt)|(?:Am|An der|Im|In der|Auf der|Zum|Zur) [A-ZÄÖÜ][\p{L}-]+) \d{1,4}(?:[a-z]|-(?:\d{1,3}|[A-Za-z]{1,2})(?![\p{L}\p{N}]))?(?:,? (?:D-|A-|CH-)?\d{4,5} [A-ZÄÖÜ][\p{L}-]+(?: (?:am |an der |im |ob der |in der )?\p{Lu}[\p{L}-]+)?)?/gu,
  // 12 rue de la Paix[, 75002 Paris] / 5 bis avenue Foch
  // The town as CITY reads it (`75002 Paris pour le moment` ends at `Paris`); one in lower case, as
  // chats write it, up to the clause's end.
  new RegExp(
    `\\b\\d{1,4}(?: bis| ter)?,? (?:rue|avenue|av\\.|boulevard|bd|place|allée|impasse|chemin|quai|route|cours|passage|voie|square|sentier|faubourg|rond-point|esplanade|mail|parvis|villa|cité|hameau|porte) (?:(?:de la|de l'|du|des|de|d'|la|le|l')\\s?)?[\\p{L}'’ -]+?(?=,|\\n|\\.(?:\\s|$)|$| \\d{5})(?:,? (?:F-)?\\d{5} (?-i:${CITY}(?: cedex)?(?:(?<=Cedex|CEDEX|cedex) \\d{1,2})?(?![\\p{L}\\p{N}'’-])|\\p{Ll}[\\p{L}'’ -]+?(?=[,.\\n]|$| (?:and|et|und|y|e|cedex)\\b)(?: cedex(?: \\d{1,2})?)?))?`,
    "gimu",
  ),
  // Calle Mayor 5 / Avenida de la Constitución, 12 / Via Roma 10 / Gran Subida Hugo 2 [, 28013
  // Madrid], a floor and its door after the number (3º izq., 2º B)
  new RegExp(
    `\\b(?:(?:${SPANISH_STREET_TYPES}|${ITALIAN_STREET_TYPES})\\.? (?:(?:de la|de los|de las|del|de|dei|della|delle|degli|di)\\s)?[\\p{Lu}][\\p{L}'’ .-]{0,80}?,? \\d{1,4}(?:[/-][A-Za-z\\d]{1,3}(?![\\p{L}\\p{N}]))?(?:[ ,]+(?:\\d{1,2}[ºª°](?: ?(?:[A-Z]|${SPANISH_DOORS})(?![\\p{L}\\p{N}]))?|Piso \\d+|Puerta \\d+|Interno \\d+|Appartamento \\d+|Escalera \\d+|Scala \\d+))*)(?:,? \\d{5} ${CITY}(?![\\p{L}\\p{N}'’-]))?`,
    "gu",
  ),
  // Any street of one to six words (particles allowed) with a house number or s/n, then a
  // five-digit postcode and a city: German, Spanish, Italian, Dutch style (Kump 29a, 48312
  // Nürnberg; Edificio Maica, 9, 90972 Parla; Borgo Lentini 8, 30292 Adelchi nell'emilia).
  new RegExp(
    `(?<![\\p{L}\\p{N}'’.-])(?:\\p{Lu}[\\p{L}'’.-]*(?: ${STREET_WORD}){0,6}),? (?:\\d{1,4}(?:[a-zA-Z]|[/-][A-Za-z\\d]{1,3})?|s\\/n\\.?)(?:, ?\\d{1,2}[ºª°]?(?: ?[A-Z])?)?, (?:[A-Z]{1,2}-)?\\d{5} ${CITY}`,
    "gu",
  ),
  // The street's type first and the number after, then a four-digit postcode, as Switzerland,
  // Belgium and Luxembourg write them (Rue du Marché 12, 1204 Genève; Via Cantonale 3, CH-6900
  // Lugano; Rue de la Loi 16, 1000 Bruxelles): only after a street's type, as a year and a word
  // are no postcode and town.
  new RegExp(
    `(?<![\\p{L}\\p{N}])(?:${FRENCH_STREET_TYPES}|${ITALIAN_STREET_TYPES})(?: ${STREET_WORD}){1,6},? \\d{1,4}[a-zA-Z]?, (?:(?:CH|A|B|L)-)?\\d{4} ${CITY}`,
    "gu",
  ),
  // Polish: the street's abbreviated type in lower case first, a flat after a slash or `lok.`, a
  // postcode 2-3 (ul. Marszałkowska 12/4, 00-950 Warszawa); `et al.` is a citation's.
  new RegExp(
    `(?<![\\p{L}\\p{N}.])(?<!\\bet )(?:[Uu]l\\.|[Aa]l\\.|[Pp]l\\.|[Oo]s\\.|[Uu]lica|[Aa]leja|[Pp]lac|[Oo]siedle) ?\\p{Lu}[\\p{L}'’.-]*(?: ${STREET_WORD}){0,5} \\d{1,4}[a-zA-Z]?(?:\\/\\d{1,4}[a-zA-Z]?)?(?: (?:lok|m)\\. ?\\d{1,4})?(?:, \\d{2}-\\d{3} ${CITY})?`,
    "gu",
  ),
  // Portuguese and Brazilian: the street's type first, its number after, a floor and side
  // (4.º Esq.), then Portugal's postcode 4-3 and town (Rua Augusta 12, 1100-048 Lisboa) or
  // Brazil's district, town, state and CEP 5-3 (Av. Paulista, 1578 - Bela Vista, São Paulo - SP,
  // 01310-200).
  new RegExp(
    `(?<![\\p{L}\\p{N}])(?:${PORTUGUESE_STREET_TYPES})(?: ${STREET_WORD}| d[aoe]s?){1,6}(?:,? (?:n\\.?º ?)?\\d{1,5}[A-Za-z]?(?![-\\d])(?:,? \\d{1,2}\\.?[ºª°]\\.?(?: ?(?:Esq|Dto|Dt|Drt|Fte|Frente|[A-Z](?![\\p{L}\\p{N}]))\\.?)?)?(?:${PORTUGAL_TAIL}|(?: ?[-–,] ?${CITY})?,? ${CITY} ?[-–/] ?${BRAZIL_STATE}(?![\\p{L}\\p{N}])(?:,? (?:CEP:? ?)?\\d{5}-?\\d{3})?)?|${PORTUGAL_TAIL})`,
    "gu",
  ),
  // A Brazilian CEP and a Japanese postcode after their mark (CEP 01310-200, 〒100-0001).
  /(?<![\p{L}\p{N}])(?:CEP:? ?\d{5}-?\d{3}|〒 ?[0-9０-９]{3}[-－]?[0-9０-９]{4})(?![0-9０-９])/gu,
  // Japanese: a prefecture, then its city, ward, town or village, then the block's numbers
  // (東京都千代田区千代田1-1, 大阪府大阪市北区梅田3丁目1番1号).
  new RegExp(
    `(?:東京都|北海道|大阪府|京都府|\\p{sc=Han}{2,3}県)(?:${JAPANESE_PLACE}{1,8}?[市区町村郡]){1,3}${JAPANESE_PLACE}{0,10}?${JAPANESE_NUMBER}(?:(?:丁目|番地?|号|[-−‐－ー])${JAPANESE_NUMBER})*(?:丁目|番地?|号)?(?<=[丁目番地号]|[-−‐－ー]${JAPANESE_NUMBER})`,
    "gu",
  ),
  // French order: number first (9 Impasse Delesseux, 40071 Angers).
  new RegExp(
    `(?<![\\p{L}\\p{N}])\\d{1,4}(?: bis| ter)?,? (?:${STREET_WORD})(?: ${STREET_WORD}){0,6}, \\d{5} ${CITY}`,
    "gu",
  ),
];

/** The labels before a postcode alone and before an address's line. */
const POSTCODE_LABEL = "post ?code|postal code|zip ?code|code postal";
const ADDRESS_KINDS = "home postal mailing residential delivery billing shipping permanent";
/**
 * A postcode of the forms no pattern above reads, before its town after a comma, the street's
 * number before it: Nordic (`111 51 Stockholm`, `0155 Oslo`), Russian, Indian or Chinese six digits
 * (`191186 St Petersburg`); after a label only, as alone a year or a count reads the same.
 */
const LABELLED_POSTCODE = "(?:\\d{3} \\d{2}|\\d{4,6})";
const ADDRESS_WORDS =
  "address adresse adress anschrift wohnadresse dirección domicilio indirizzo adres endereço morada";
/**
 * Patterns that start on a label's lookbehind, tried at every letter or character of a text: each
 * is run only where its label is in the text.
 */
const LABELLED_ADDRESS_PATTERNS: ReadonlyArray<{ re: RegExp; label: RegExp }> = [
  // A postcode alone after its label where it names a few dwellings (a British or Canadian full
  // postcode, a Dutch one with its letters): `my postcode is SW1A 1AA`, `Postal code: M5V 2T6`,
  // `Postcode: 1012 AB`. A ZIP code or a four- or five-digit one names a district and stays.
  {
    re: new RegExp(
      `(?=[A-Z\\d])(?<=(?<![\\p{L}])(?:${POSTCODE_LABEL})(?: is)?[ \\t]{0,8}:?[ \\t]{0,8})(?:${UK_POSTCODE}|${CA_POSTCODE}|[1-9]\\d{3} ?(?!SA|SD|SS)[A-Z]{2})(?![\\p{L}\\p{N}])`,
      "giu",
    ),
    label: new RegExp(POSTCODE_LABEL, "i"),
  },
  // After an address's label, its line up to the postcode that ends it, as British and Irish
  // addresses name a house with no number or street type (`Address: Rose Cottage, Lower
  // Slaughter, GL54 2HS`): the label says the line is one, the postcode where it ends.
  {
    re: new RegExp(
      `(?=[^\\s:])(?<=(?<![\\p{L}])(?:(?:${inTheirCases(ADDRESS_KINDS)}) )?(?:${inTheirCases(ADDRESS_WORDS)})[ \\t]{0,8}:[ \\t]{0,8})[^\\s:][^\\n:]{0,119}?,?[ \\t](?:${UK_POSTCODE}|${CA_POSTCODE}|${EIRCODE}|(?:${US_STATES}),? ${US_ZIP}|(?<=\\d[^\\n:]{0,80},[ \\t])${LABELLED_POSTCODE} ${CITY})(?![\\p{L}\\p{N}])`,
      "gu",
    ),
    label: new RegExp(alternation(ADDRESS_WORDS), "iu"),
  },
];

/**
 * A Polish street without its type (`Marszałkowska 12/4, 00-950 Warszawa`): its number, a flat, the
 * postcode 2-3 and the town, taken when a letter only Polish writes is in it or the town is one of
 * Poland's largest, as a 2-3 pair of numbers alone is no postcode (`Rounds 3, 10-150 Players`).
 */
const POLISH_UNTYPED_STREET = new RegExp(
  `(?<![\\p{L}\\p{N}.'’-])\\p{Lu}[\\p{L}'’.-]*(?: ${STREET_WORD}){0,3} \\d{1,4}[a-zA-Z]?(?:\\/\\d{1,4}[a-zA-Z]?)?(?: (?:lok|m)\\. ?\\d{1,4})?, \\d{2}-\\d{3} (${CITY})`,
  "gu",
);
const POLISH_POSTCODE = /\d{2}-\d{3} \p{Lu}/u;
const POLISH_LETTER = /[ąćęłńśźżĄĆĘŁŃŚŹŻ]/u;
/**
 * Poland's larger towns (the first word of their names) without their accents, as addresses also
 * write them: compared with the town's word without its accents (`Rzeszów`, `Kraków`, whose `ó`
 * other languages write too).
 */
const POLISH_TOWNS = new Set(
  [
    "Warszawa Krakow Lodz Wroclaw Poznan Gdansk Szczecin Bydgoszcz Lublin Bialystok Katowice Gdynia Czestochowa Radom Torun Sosnowiec Rzeszow Kielce Gliwice Olsztyn Zabrze Bytom Rybnik Opole Tychy Elblag Plock Walbrzych Tarnow Chorzow Koszalin Kalisz Legnica Grudziadz Slupsk Sopot",
    "Gorzow Zielona Jaworzno Siedlce Konin Lubin Gniezno Pabianice Leszno Stargard Stalowa Mielec Tczew Piekary Tomaszow Ostrow Siemianowice Starachowice Zgierz Kutno Brodnica Sanok Ciechanow Skierniewice Zakopane Legionowo Pruszkow Otwock Piaseczno Wejherowo Rumia Malbork Kwidzyn Krosno Raciborz",
  ]
    .join(" ")
    .split(" "),
);

function addresses(text: string): PiiSpan[] {
  const out: PiiSpan[] = [];
  for (const re of ADDRESS_PATTERNS)
    for (const [i, v] of matches(re, text)) out.push(span("ADDRESS", i, v.replace(/[\s,]+$/, "")));
  for (const { re, label } of LABELLED_ADDRESS_PATTERNS)
    if (label.test(text))
      for (const [i, v] of matches(re, text))
        out.push(span("ADDRESS", i, v.replace(/[\s,]+$/, "")));
  // The street's pattern starts on every capitalised word: only where a 2-3 postcode is.
  if (POLISH_POSTCODE.test(text))
    for (const m of execAll(POLISH_UNTYPED_STREET, text))
      if (POLISH_LETTER.test(m[0]) || POLISH_TOWNS.has(withoutAccents(m[1]!.split(" ")[0]!)))
        out.push(span("ADDRESS", m.index, m[0]));
  return out;
}

const HONORIFICS =
  "Mr|Mrs|Ms|Miss|Mx|Dr|Drs|Ir|Prof|MR|MRS|MISS|Sir|Dame|Herr|Frau|Hr|Fr|M|Mme|Mlle|Monsieur|Madame|Mademoiselle|Sr|Sra|Srta|Don|Doña|Dña|Sig|Sig\\.ra|Signor|Signora|Signorina|Dott|Dott\\.ssa|Ing|Avv|Dhr|Mevr|Mevrouw|[Dd]e heer|Heer|heer|Г-н|Г-жа|[Гг]осподин|[Гг]оспожа|κ|κα|[Κκ]ύριος|[Κκ]υρία";
/**
 * The honorifics of one word (Dott, Sig.ra, Avv): never a later word of a name, so a salutation
 * before one (Gentile Dott.ssa, where Gentile is also a first name) is not taken for a name.
 */
const HONORIFIC_WORDS = new Set(
  HONORIFICS.split("|")
    .map((h) => h.replaceAll("\\", "").split(".")[0]!)
    .filter((h) => /^\p{Lu}\p{L}+$/u.test(h)),
);
/**
 * The titles abbreviated in lower case that chats also write without their dot (`mr smith`, `dhr
 * jansen`), which `LOWER_TITLED` reads with `mme` and `mlle`.
 */
const LOWER_TITLE_ABBREVIATIONS = "mr ms mrs dr prof sig sra srta dhr mevr";
/** Dutch and Italian degrees written in lower case with their dot before a name (`drs.`, `ir.`). */
const LOWER_DEGREES = "drs ir ing";
/** A title or degree in lower case after the first (`prof. dr. ir. De Graaf`, `mr. drs. A. de Boer`). */
const LOWER_LATER_TITLE = `(?:${alternation(LOWER_TITLE_ABBREVIATIONS)}|${alternation(LOWER_DEGREES)})\\.`;
/**
 * Honorifics as Italian, Dutch and Spanish write them in running text, in lower case (`il sig.
 * Bianchi`, `dhr. Jansen`, `mevr. de Vries`), and English ones as chats and notes do (`mr. Smith`):
 * with their dot, or whole words that write nothing else (`sig.ra`, `dott.ssa`, `mme`), so `ing`
 * or `ms` ending a word or a sentence lead no name; and the titles the six languages and Dutch
 * write out in lower case in running text (`la signora Ferri`, `il dottor Bianchi`, `madame
 * Martin`, `el señor García`, `doña Lucía`, `meneer Jansen`, `il professore Neri`).
 */
const LOWER_HONORIFICS = `(?:(?:${alternation(LOWER_TITLE_ABBREVIATIONS)}|${alternation(LOWER_DEGREES)}|sigg|dott|avv|geom|rag|arch)\\.|sig\\.r[ae]|sig\\.na|dott\\.ssa|mme|mlle|monsieur|madame|mademoiselle|señora?|señorita|doña|signora?|signorina|dottor|dottore|dottoressa|avvocato|avvocata|avvocatessa|ingegner|ingegnere|professore|professoressa|meneer|mevrouw)`;
/** A doctorate's faculty after its title (Dr. med., Dr. rer. nat.). */
const FACULTY = "(?:med|jur|phil|dent|vet|oec|rer\\. ?nat|rer\\. ?pol|h\\. ?c)\\.";
/**
 * A title after the first (Herr Dr. Schäfer, Prof. Dr. Smith, prof. dr. ir. De Graaf), with a
 * doctorate's faculty (Dr. med., Dr. rer. nat.) or a German or Austrian degree (Dipl.-Ing., Mag.).
 */
const LATER_TITLE = `(?:(?:${HONORIFICS})\\.?(?: ${FACULTY})?|${LOWER_LATER_TITLE}|Dipl\\.-(?:Ing|Kfm|Kffr|Psych|Inf)\\.|Mag\\.)`;
/**
 * Titles in capitals that also write other things (MS Word, DR Congo): a title only between a
 * label and a name (Beneficiary: MS A JONES).
 */
const LABEL_TITLES = "MS|DR|PROF";
/** The prefixes a surname in camel case starts on (DeVito, LeBlanc, DiCaprio, FitzGerald). */
const CAMEL_CASE_PREFIX = "De|Di|Da|Du|La|Le|Van|Fitz";
const CAMEL_CASE_NAME = new RegExp(`^(?:${CAMEL_CASE_PREFIX})\\p{Lu}`, "u");
// The part after a hyphen may be in lower case (Jae-won, Min-jun).
const NAME_WORD = `(?:\\p{Lu}['’]|Mc|Mac|${CAMEL_CASE_PREFIX}|[ae]l-)?\\p{Lu}[\\p{Ll}'’]+(?:-\\p{L}[\\p{Ll}'’]+)?`;
const PARTICLE =
  "(?:van der|van den|van de|van het|von der|von dem|de los|de las|de la|von|van|der|den|de|del|della|di|da|du|le|la|dos|das|zu|ter|ten|bin|ibn|al|el|Ó)";
// A surname written with a lower-case part after its particle ("Da silva", "Le gall") counts too.
const CAPITAL_PARTICLE = "(?:Da|De|Di|Do|Du|Le|La|Van|Von|Dos|Das)";
/** A middle initial between a first name and what follows (John Q. Public, Michael J. Fox). */
const MIDDLE_INITIAL = "(?: \\p{Lu}\\.(?= \\p{Lu}))?";
const MIDDLE_INITIAL_WORD = /^\p{Lu}\.$/u;
const FULL_NAME = `${NAME_WORD}${MIDDLE_INITIAL}(?: (?:${PARTICLE} )?(?!${CAPITAL_PARTICLE} \\p{Ll})${NAME_WORD}){0,3}(?: ${CAPITAL_PARTICLE} \\p{Ll}+)?`;
/** A name in capitals, as party blocks and signature lines write them (MARIA GARCIA-LÓPEZ, O'BRIEN). */
const CAPS_WORD = "(?:\\p{Lu}['’])?\\p{Lu}{2,}(?:['’-]\\p{Lu}{2,})?";
const CAPS_NAME = `${CAPS_WORD}(?: (?:${PARTICLE.toUpperCase()} )?${CAPS_WORD}){1,3}`;
/** Initials before a surname: J. Smith, J. R. Tolkien, J.R.R. Martin, P. J. van Rensburg. */
const INITIALS = "\\p{Lu}\\.(?: ?\\p{Lu}\\.){0,3}";
const INITIALS_NAME = `${INITIALS} (?:${PARTICLE} )?(?:${NAME_WORD}(?: (?:${PARTICLE} )?${NAME_WORD}){0,2}|${CAPS_WORD})`;
/**
 * Initials without their dots, as banks and British forms write them (Mr J Smith, Payee: J R
 * SMITH): only after a title or a label, where a lone capital is no heading's letter.
 */
const BARE_INITIALS_NAME = `\\p{Lu}(?: \\p{Lu}){0,2} (?:${PARTICLE} )?(?:${NAME_WORD}(?: (?:${PARTICLE} )?${NAME_WORD})?|${CAPS_WORD})`;
const BARE_INITIAL = /^\p{Lu}$/u;
/** A particle of two words starting a surname in capitals, as registers write it (Van Der Berg, De La Cruz). */
const TITLE_PARTICLE = "(?:Van|Von|De) (?:[Dd]er|[Dd]en|[Dd]em|[Dd]e|[Hh]et|[Ll]os|[Ll]as|[Ll]a)";
/**
 * An article that starts a sentence after a comma (`Dear Anna Smith, Le contrat…`), where a name
 * written surname first would have the given name.
 */
const SENTENCE_ARTICLE =
  "(?:Le|La|Les|Lo|Il|El|Los|Las|Der|Die|Das|Het|The|Un|Une|Una|Uno|Ein|Eine)";
/** Sign-offs chats abbreviate, in capitals as often (`TIA, Anna`, `BR, John`, `LG Anna`). */
const ABBREVIATED_SIGN_OFFS = "thx tia br kr lg vg mfg mvg";
/** Greetings and sign-offs of whole words, none a given name. */
const WHOLE_GREETINGS =
  "hi hey hiya howdy yo hello dear thank thanks cheers regards best love bye ciao hallo moin servus hola querida querido salut coucou bonjour bonsoir merci danke grazie gracias buongiorno buonasera salve carissimo carissima obrigado obrigada olá hoi groetjes goedemorgen goedemiddag goedenavond hej";
/** Greetings and sign-offs as chats type them, in lower case or capitalised. */
const CASUAL_GREETINGS = `${WHOLE_GREETINGS} ${ABBREVIATED_SIGN_OFFS}`;
const GREETING_WORDS = words(CASUAL_GREETINGS);
const ABBREVIATED_SIGN_OFF_WORDS = words(ABBREVIATED_SIGN_OFFS);
/** German greetings that agree with the name after them, and never stand before a comma. */
const NO_COMMA_GREETINGS = "Sehr geehrte[rs]?|Liebe[rs]?";
/**
 * A greeting after a comma greets again, no given name (`Hello World, Hello Anna`, `Liebe
 * Kollegen, liebe Anna`, `Querida Carmen, Querido Pablo`): no surname-first name runs into it.
 */
const SECOND_GREETING = `(?:${[...words(WHOLE_GREETINGS)].map(capitalised).join("|")}|${NO_COMMA_GREETINGS})(?![\\p{L}\\p{N}])`;
/**
 * Surname first, as lists, registers and forms write it: Smith, John; SMITH, John; Tolkien, J.R.R.;
 * Van Der Berg, Jan. Initials before a capitalised word are that word's (`A. Smith, B. Jones`).
 */
const SURNAME_FIRST = `(?:(?:${PARTICLE.toUpperCase()} )?${CAPS_WORD}(?: ${CAPS_WORD})?|(?:${PARTICLE} |${TITLE_PARTICLE} )?${NAME_WORD}(?: ${NAME_WORD})?), (?!${SENTENCE_ARTICLE} \\p{Ll}|${SECOND_GREETING})(?:${NAME_WORD}(?: ${NAME_WORD}){0,2}|${INITIALS}(?! (?:${PARTICLE} )?\\p{Lu}))`;
/** The dot of a suffix the name pattern ends on (Jr.), which the span then takes back. */
const SUFFIX_DOT = "(?:(?<=Jr|Sr|JR|SR)\\.)?";
/** What a label may be followed by: a name in any of the forms above. */
const LABELLED = `(?<value>(?:${SURNAME_FIRST}|${INITIALS_NAME}|${BARE_INITIALS_NAME}|${FULL_NAME}|${CAPS_NAME})(?![\\p{L}\\p{N}]))`;
/**
 * The roles of a person a payment or a contract names, as labels (`Payee: Jane Doe`) and in a
 * sentence (`the payee is jane doe`).
 */
const PERSON_ROLES =
  "Beneficiary|Account holder|Holder|Payee|Payer|Sender|Remitter|Recipient|Signatory|Witness|Tenant|Landlord|Buyer|Seller|Borrower|Lender|Guarantor|Contact";
/**
 * Labels that lead a person only with their colon or comma: `Contact` leads pages and forms
 * (`Contact Page`), and `Best` is a sign-off only before its comma (`Best Price`).
 */
const SEPARATED_ONLY_LABELS = "Contact|Best";
/**
 * A list's phrases with their later words in either case, as mail writes a sign-off in title case
 * too (`Best Regards`, `Thank You`).
 */
function laterWordsEitherCase(list: string): string {
  return list
    .split("|")
    .map((phrase) => phrase.replace(/(?<= )\p{Ll}/gu, (c) => `[${c.toUpperCase()}${c}]`))
    .join("|");
}

/** Labels that greet or sign off: they lead a person or a group, never a thing. */
const SALUTATIONS = laterWordsEitherCase(
  `Kind regards|Best regards|Warmly|Ever yours|Yours|With love|Much love|Love|Hugs|Talk soon|Speak soon|Bien à vous|Bien cordialement|Amicalement|Bisous|À bientôt|Besos|Un beso|Abrazos|Saludos cordiales|Un cordial saludo|Hasta luego|Hasta pronto|Hasta mañana|Un abbraccio|Baci|Cordialmente|Tschüss|Bis bald|Herzliche Grüße|Freundliche Grüße|Mit besten Grüßen|Schöne Grüße|Tot ziens|Met vriendelijke groet|Vriendelijke groeten|Groetjes|Good morning|Good afternoon|Good evening|Guten Morgen|Guten Tag|Guten Abend|Grüß Gott|Buenos días|Buenas tardes|Buenas noches|Bom dia|Boa tarde|Boa noite|Hey|Hiya|Howdy|Moin|Servus|Querida|Querido|Coucou|Bonsoir|Buongiorno|Buonasera|Carissima|Carissimo|Goedemorgen|Goedemiddag|Goedenavond|Hej|Olá|With best regards|With kind regards|Thanks and regards|Thanks & regards|Yours sincerely|Sincerely yours|Yours faithfully|Yours truly|Respectfully|Warm wishes|Best wishes|Warm regards|Warmest regards|All the best|Take care|Many thanks|Thank you|Dear|Hi|Hello|Regards|Sincerely|Best|Cordially|Thanks|Cheers|Bises|Amitiés|Un saludo|Un abrazo|Saluti|Un saluto|Liebe Grüße|Beste Grüße|Mit freundlichen Grüßen|Viele Grüße|Grüße|Gruß|Herrn|${NO_COMMA_GREETINGS}|Cher|Chère|Bonjour|Cordialement|Estimado|Estimada|Hola|Atentamente|Saludos|Gentile|Egregio|Caro|Cara|Ciao|Cordiali saluti|Distinti saluti|Hartelijke groet|Groeten|Groet|Hoi|Hallo`,
);
/** A label that names a thing as often as a person (`Name: Gold`, a plan's). */
const BARE_NAME_LABELS = "Name|Nom|Nombre|Nome";
/**
 * With `BARE_NAME_LABELS`, the labels that are nouns of phrases as often as a form's (`Client
 * Server`, `Party Wall`, `By Grant`).
 */
const OTHER_PHRASE_LABELS =
  "Attn|Attention|Employee|Client|Customer|Patient|Disclosing Party|Receiving Party|Party|By|Signed|Vendor|Consultant|Contractor|Director|Manager";
/** A form's labels, which lead a person and nothing else. */
const FORM_NAME_LABELS =
  "Full name|Bill to|Ship to|Sold to|Invoice to|Prepared for|Signed by|Prepared by|Approved by|Authorised by|Authorized by";
/** The form's labels and a party's roles in German, French, Spanish and Italian. */
const FOREIGN_NAME_LABELS =
  "Begünstigter|Kontoinhaber|Empfänger|Unterschrift|Gezeichnet|Ansprechpartner|Bénéficiaire|Titulaire|Destinataire|Signé par|Beneficiario|Titular|Destinatario|Firmado por|Intestatario|Firmato da";
/** Labels, salutations and sign-offs a name follows, in the six languages. */
const NAME_LABELS = `${FORM_NAME_LABELS}|${PERSON_ROLES}|${BARE_NAME_LABELS}|${OTHER_PHRASE_LABELS}|${FOREIGN_NAME_LABELS}|${SALUTATIONS}`;
/**
 * The labels in the order of `NAME_LABELS`, each class a named group, so that a match says which
 * label it found: `salutation`, `role`, `phrase` (of which `bare`), and `label` the whole of it.
 */
const CLASSED_NAME_LABEL = `(?<label>${FORM_NAME_LABELS}|(?<role>${PERSON_ROLES})|(?<phrase>(?<bare>${BARE_NAME_LABELS})|${OTHER_PHRASE_LABELS})|${FOREIGN_NAME_LABELS}|(?<salutation>${SALUTATIONS}))`;
/** The labels of one word (Dear, Cher, Gentile, Payee), some of them also first names. */
const NAME_LABEL_WORDS = new Set(NAME_LABELS.split("|").filter((l) => /^\p{L}+$/u.test(l)));
/**
 * A label as written, to tell a sign-off before a comma from a surname (Viele Grüße, Lukas); the
 * German greetings that agree with the name after them never stand before a comma, so there the
 * word is a surname (`Liebe, Amon` signs a letter).
 */
const WHOLE_NAME_LABEL = new RegExp(`^(?:${NAME_LABELS})$`, "u");
const NO_COMMA_GREETING = new RegExp(`^(?:${NO_COMMA_GREETINGS})$`, "u");
/**
 * Where a name stands, by what leads it, and whether the words found must hold a first name of the
 * lexicon (or initials, or a surname-first form) to count: after a label such as `To:` or `De:`
 * the words are as often a team, a company or a place.
 */
/** Brands whose name is a title and a word (Dr Pepper, Mr. Coffee): no person's. */
const TITLE_BRANDS = words(
  "drpepper mrcoffee mrclean mrmuscle mrsheen mrkipling drmartens droetker drscholl's drscholls drbronner's mrsfields mrsdash mrpotato",
);

/**
 * Whether a title and the one word after it are a brand's name, however the title is written (with
 * more words after it, `Dr. Pepper Smith`, it is a person's).
 */
function titleBrand(title: string, name: string): boolean {
  return TITLE_BRANDS.has(`${title.replace(/[\s.]/gu, "")}${name}`.toLowerCase());
}

/**
 * A name's context: its pattern, whose group `value` is the name; whether its words must read as a
 * person's; whether the pattern ends on the bracket after the name (`between Jane Doe (the Buyer)`);
 * whether a title leads the name (`Dr. Smith`: any words after one are a person's).
 */
const NAME_CONTEXTS: Array<{ re: RegExp; firstName: boolean; bracket?: true; title?: true }> = [
  // The surname alone after a title may start on its particle (Ms. de la Fuente, Mr. van der Berg),
  // or after more titles (Herr Dr. Schäfer, Frau Dr. med. Weber). A title in lower case is the
  // group `lowerTitle`.
  {
    re: new RegExp(
      `(?<![\\p{L}\\p{N}])(?:(?:${HONORIFICS})\\.?|(?<lowerTitle>${LOWER_HONORIFICS})) (?:${LATER_TITLE} ){0,3}(?<value>(?:${PARTICLE} ){0,2}(?:${INITIALS_NAME}|${BARE_INITIALS_NAME}(?![\\p{L}\\p{N}])|${CAPS_NAME}(?![\\p{L}\\p{N}])|${FULL_NAME}))`,
      "gu",
    ),
    firstName: false,
    title: true,
  },
  {
    re: new RegExp(
      `(?<![\\p{L}\\p{N}])${CLASSED_NAME_LABEL}\\s?(?<separator>[:,])?\\s+(?:(?:${LABEL_TITLES})\\.? |${LATER_TITLE} ){0,3}${LABELLED}`,
      "gu",
    ),
    firstName: false,
  },
  // More languages' labels; words as short as To, De or Van lead a name only as a header's label,
  // with its colon (To: Jane Doe, De : Marie).
  {
    re: new RegExp(
      `(?<![\\p{L}\\p{N}])(?:(?:Per pro|Employee name|Attendees|Zeuge|Zeugin|Erstellt von|Genehmigt von|Geprüft von|z\\. ?Hd\\.?|zu Händen(?: von)?|Témoin|Titulaire du compte|À l['’]attention de|Préparé par|Approuvé par|Signé(?! par)|Testigo|Titular de la cuenta|Atención|Preparado por|Aprobado por|Firmado(?! por)|Testimone|Intestatario del conto|Alla cortese attenzione di|Alla c\\.a\\.|Preparato da|Approvato da|Firmato(?! da)|Naam|Getuige|Ter attentie van|T\\.a\\.v\\.|Rekeninghouder|Begunstigde|Opgesteld door|Goedgekeurd door|Ondertekend door|Handtekening|Met vriendelijke groet(?:en)?|Geachte(?: heer| mevrouw)?|Beste|Свидетель|Подписано|Подпись|Получатель|Имя|ФИО|Μάρτυρας|Όνομα|Ονοματεπώνυμο|Δικαιούχος)\\s?[:,]?\\s+|(?:From|To|Cc|Bcc|pp|An|Von|De|À|Para|Da|A|Aan|Van|От|Кому|Από|Προς) ?: ?)(?:(?:${LABEL_TITLES})\\.? |${LATER_TITLE} ){0,3}${LABELLED}`,
      "gu",
    ),
    firstName: true,
  },
  {
    re: new RegExp(
      `(?<![\\p{L}\\p{N}])(?:between|and|by|from|to|with|entre|et|y|e|zwischen|und|tra|con|mit|avec)\\s+(?<value>${SURNAME_FIRST}|${INITIALS_NAME}|${FULL_NAME})${SUFFIX_DOT},? \\(`,
      "gu",
    ),
    firstName: false,
    bracket: true,
  },
  // An e-mail's display name in quotes, as headers and address books write it, anywhere in a
  // list: "Doe, Jane" <jane@example.com>, "Roe, Richard" <r@example.com>.
  {
    re: new RegExp(`["“]${LABELLED}["”] ?<[^<>\\s@]{1,64}@[^<>\\s]{1,255}>`, "gu"),
    firstName: true,
  },
];
/**
 * A name then what describes its bearer: a party clause, a birth or residence label ("Anna Schmidt,
 * geboren 1964"). Contracts put a role there as often ("Der Mieter, geboren 1964", "The Tenant,
 * born 1964"): `describedName` keeps only a name.
 */
const DESCRIBED_NAME = new RegExp(
  `(?<![\\p{L}\\p{N}])(${SURNAME_FIRST}|${FULL_NAME}|${CAPS_NAME})${SUFFIX_DOT},? (?:\\((?:the )?["“]?(?:Disclosing|Receiving|Employee|Employer|Tenant|Landlord|Buyer|Seller|Client|Consultant|Contractor|Borrower|Lender|Guarantor|Beneficiary)|born|geboren|geb\\.|né|née|nacid[oa]|nat[oa]|residing at|wohnhaft|demeurant|domiciliad[oa]|residente)`,
  "gu",
);
/**
 * Any name form before a role in brackets, in the six languages and Dutch ("Smith, John (the
 * Borrower)", "Müller, Hans (der Mieter)", "Jan van der Berg (de Huurder)"); the role is checked
 * against the role nouns.
 */
const NAME_BEFORE_ROLE = new RegExp(
  `(?<![\\p{L}\\p{N}'’-])(${SURNAME_FIRST}|${INITIALS_NAME}|${FULL_NAME})${SUFFIX_DOT},? \\((?:(?:[Tt]he|[Dd]er|[Dd]ie|[Dd]as|[Ll]e|[Ll]a|[Ee]l|[Ii]l|[Ll]o|[Dd]e|[Hh]et) |[Ll]['’])?["“]?(\\p{L}+)`,
  "gu",
);
/** Roles the role nouns below lack: Dutch ones, and an author's. */
const MORE_ROLES = words(
  "huurder verhuurder koper verkoper werknemer werkgever lener geldgever borg opdrachtgever opdrachtnemer author auteur autor autore",
);

/** Articles, demonstratives and possessives that open a noun phrase, in the six languages. */
const DETERMINERS = words(
  "the a an this that said our my your his her their der die das den dem des ein eine einer einem eines unser unsere mein meine dieser diese le la les un une ce cet cette ledit ladite notre mon ma son sa el los las una este esta dicho dicha nuestro nuestra su il lo gli i uno questo questa detto detta nostro nostra suo sua",
);

/**
 * Parties of contracts and forms named by their role, and the kinds of organisation a contract
 * names as a party (`La Société`, `La Banca`), in the six languages (lower case).
 */
const ROLE_NOUNS = words(
  "tenant landlord lessor lessee licensee licensor buyer seller purchaser vendor borrower lender guarantor surety employee employer client customer patient applicant claimant defendant plaintiff debtor creditor owner contractor consultant beneficiary heir testator spouse husband wife party signatory witness insured policyholder member partner director shareholder agent principal subscriber holder undersigned assignor assignee donor trustee settlor " +
    "mieter vermieter käufer verkäufer bürge bürgin arbeitnehmer arbeitgeber kunde kundin patient antragsteller kläger beklagte beklagter schuldner gläubiger eigentümer erblasser erbe erbin ehemann ehefrau ehegatte ehegattin pächter verpächter gesellschafter geschäftsführer inhaber unterzeichner unterzeichnete unterzeichneter zeuge zeugin vertragspartner bevollmächtigte bevollmächtigter " +
    "locataire bailleur bailleresse acheteur acheteuse acquéreur acquéreuse vendeur vendeuse emprunteur emprunteuse prêteur prêteuse garant garante caution salarié salariée employeur employeuse cliente patiente demandeur demanderesse défendeur défenderesse débiteur débitrice créancier créancière propriétaire bénéficiaire héritier héritière époux épouse preneur preneuse souscripteur souscriptrice assuré assurée associé associée gérant gérante titulaire signataire témoin mandant mandante mandataire cédant cédante cessionnaire soussigné soussignée défunt défunte requérant requérante conjoint conjointe enfant mineur mineure intéressé intéressée déclarant déclarante comparant comparante société banque compagnie entreprise association fondation mutuelle " +
    "arrendatario arrendataria arrendador arrendadora inquilino inquilina comprador compradora vendedor vendedora prestatario prestataria prestamista fiador fiadora avalista trabajador trabajadora empleado empleada empleador empleadora cliente paciente solicitante demandante demandado demandada deudor deudora acreedor acreedora propietario propietaria beneficiario beneficiaria heredero heredera cónyuge esposo esposa titular firmante testigo asegurado asegurada tomador tomadora socio socia administrador administradora otorgante compareciente interesado interesada sociedad empresa entidad compañía fundación asociación parte menor " +
    "conduttore conduttrice locatore locatrice inquilino inquilina acquirente compratore compratrice venditore venditrice mutuatario mutuataria mutuante garante fideiussore lavoratore lavoratrice dipendente datore cliente paziente richiedente attore attrice convenuto convenuta debitore debitrice creditore creditrice proprietario proprietaria beneficiario beneficiaria erede coniuge marito moglie titolare firmatario firmataria testimone assicurato assicurata contraente socio socia amministratore amministratrice comparente sottoscritto sottoscritta dichiarante società banca ditta fondazione associazione parte minore",
);

/** German roles are often compounds (Darlehensnehmer, Versicherungsnehmerin, Antragstellerin). */
const GERMAN_ROLE_ENDING =
  /(?:nehmer|geber|mieter|pächter|käufer|steller|führer|inhaber|berechtigter?|beteiligter?)(?:in)?$/u;

/** A role noun, also after an elided article (L'acquéreur), as a possessive (Landlord's) or a German feminine. */
function isRole(word: string): boolean {
  const lower = word
    .toLowerCase()
    .replace(/^[ld]['’]/u, "")
    .replace(/['’]s$/u, "");
  return (
    ROLE_NOUNS.has(lower) ||
    (lower.endsWith("in") && ROLE_NOUNS.has(lower.slice(0, -2))) ||
    GERMAN_ROLE_ENDING.test(lower)
  );
}

/**
 * The name in the words before a description, without the article and role phrase that lead it
 * ("Der Vermieter Hans Müller" gives "Hans Müller", "Der Mieter" nothing). After an article alone
 * the words are a name only from a first name of the lexicon on ("Die Antragsgegnerin", a role
 * the list lacks, is not), or when they are one word after a capitalised `Le`, `La` or `Lo`: a
 * surname that starts on its article ("Le Pen, né en 1968", "La Fontaine"), which French and
 * Italian write so while their nouns after an article stay in lower case.
 */
const SURNAME_ARTICLES = new Set(["Le", "La", "Lo"]);

function describedName(words: readonly string[]): string[] {
  let i = 0;
  let role = false;
  for (; i < words.length; i++) {
    const lower = words[i]!.toLowerCase();
    if (isRole(words[i]!)) role = true;
    else if (!DETERMINERS.has(lower)) break;
  }
  const rest = words.slice(i);
  if (i > 0 && !role && !rest[0]?.split("-").some(isFirstName))
    return i === 1 && rest.length === 1 && SURNAME_ARTICLES.has(words[0]!) ? [...words] : [];
  return rest;
}
/**
 * Words of software writing the everyday-word lists lack, no name's part (`[Dev Deps]`, a
 * changelog's tag; `Dev Config`).
 */
const SOFTWARE_WORDS =
  "Deps Dep DevDeps Repo Repos Config Configs Env Envs Infra Ops Readme README Changelog Linter API APIs SDK CLI UI UX CI NPM Npm JSON YAML Async Auth Backend Frontend Refactor Perf Docs Util Utils Impl Specs Polyfill Polyfills Typings Dist";
/** Words a name pattern may start on that are not names. */
const NOT_NAMES = words(
  `${SOFTWARE_WORDS} CEO CFO COO CTO CIO CISO CMO CRO CCO VP SVP EVP HR GM MD Ihre Ihr Ich Je Yo Io Ik Ondergetekende Unterzeichner Unterzeichnerin Soussigné Soussignée Sottoscritto Sottoscritta Suscrito Suscrita Anschrift Bankverbindung Hijos Hermanos Asociados Sra Sr The This That These Those Party Parties Agreement Contract Company Bank Dear Please FYI ASAP FAO PLS PLZ Bitte Danke Merci Grazie Gracias Prego Hallo Hola Ciao Bonjour Salut Obrigado Obrigada Payment Invoice Total Date Section Clause Article Ltd Inc GmbH SA SAS SL SpA BV LLC Monday Tuesday Wednesday Thursday Friday Saturday Sunday January February March April May June July August September October November December Street Avenue Road IBAN SWIFT BIC NDA Confidential Information Receiving Disclosing Regulation Regulations Directive Act Article Articles Schedule Annex Appendix Exhibit Court Convention Code Treaty Statute Amendment Addendum Rules Rule Law Order Decision Terms Policy England Wales Scotland Ireland Group Station County Square Strasse Straße Gasse Platz Allee Straat Laan Plein Gracht Centre Center Museum Airport Hospital University College School Hotel Valley Island Beach Opera Cathedral Gardens Stadium Boulevard Bridge District Trophy Festival Tournament`,
);

/**
 * A company's form after the words, also after a partner's name joined by `&` (`Smith & Jones
 * LLP`, `Ernst & Young GmbH`): a firm's names, not a person's. Only `&`: a person and a company
 * are joined by `and` in a contract's parties (`between Jane Doe and Acme Inc.`).
 */
const COMPANY_AFTER =
  /^[\s,]*(?:& ?\p{Lu}[\p{L}'’-]*(?: \p{Lu}[\p{L}'’-]*)?,? )?(?:S\.?A\.?|S\.?L\.?|S\.?r\.?l\.?|S\.?p\.?A\.?|SARL|SAS|SASU|EI|SCS|SNC|GmbH|AG|KG|OHG|Ltd|LLC|LLP|Inc|PLC|B\.?V\.?|N\.?V\.?|e Hijos|y Asociados|Hermanos|e figli|& Co)\b/iu;

/** Whether a company's form follows the words ending at `end` (COMPANY_AFTER). */
function companyAfter(text: string, end: number): boolean {
  return COMPANY_AFTER.test(text.slice(end, end + 48));
}

/** Company forms and words of company names: a name in capitals holding one is not a person's. */
const COMPANY_WORDS = words(
  "LTD LIMITED INC CORP CORPORATION COMPANY CO LLC LLP PLC GMBH AG KG SA SAS SARL SL SPA SRL BV NV HOLDINGS GROUP BANK PARTNERS SERVICES TRUST FUND ASSOCIATES INTERNATIONAL ENTERPRISES INDUSTRIES MOTOR MOTORS ELECTRONICS TECHNOLOGIES PHARMACEUTICAL PHARMACEUTICALS SECURITIES",
);

/** The word with a capital first letter (`county` → `County`), as NOT_NAMES lists words. */
function capitalised(word: string): string {
  return word.charAt(0).toUpperCase() + word.slice(1);
}

/** Not a name: a listed word, in any case (`THE`, `AGREEMENT` as well as `The`). */
function notName(word: string): boolean {
  return NOT_NAMES.has(word) || NOT_NAMES.has(word.charAt(0) + word.slice(1).toLowerCase());
}

/**
 * First names that lead a place's name (`the River Thames`, `River Plate`): before another word
 * of the same run they are no name's, as `NOT_NAMES` are (`notNameIn`); alone they are a person's
 * (`I met River`, `Dear River,`, `To: River`).
 */
const PLACE_LEADING_NAMES = new Set(["River"]);
/** Whether the `k`th of the words is no name's: `notName`, or a place's first word before more. */
function notNameIn(words: readonly string[], k: number): boolean {
  const word = words[k]!;
  return (
    notName(word) ||
    (k + 1 < words.length && PLACE_LEADING_NAMES.has(capitalised(word.toLowerCase())))
  );
}
/**
 * Whether the words a label leads open on a person's name that `PLACE_LEADING_NAMES` holds, before
 * more words: after a greeting or a party's role, before a word that is no place's (`Payee: River
 * Smith`; `Hi River Station` greets no one by name, `Attn: River Plate Branch` is a place).
 */
function placeLeadingPerson(words: readonly string[], groups: LabelGroups): boolean {
  if (words.length < 2 || !PLACE_LEADING_NAMES.has(words[0]!)) return false;
  return (groups.role ?? groups.salutation) !== undefined && !notName(words[1]!);
}

/** A generational suffix after a name: it is part of the name (Martin Luther King Jr., Henry Ford III). */
const SUFFIX_WORD = /^(?:Jr|Sr|JR|SR|II|III|IV)\.?$/u;
const SUFFIX_AFTER = /^,? (?:(?:Jr|Sr|JR|SR)\.?|II|III|IV)(?![\p{L}\p{N}])/u;

/** A name span, its generational suffix (written inside the match or right after it) included. */
function nameSpan(text: string, start: number, words: string[]): PiiSpan {
  while (words.length > 1 && SUFFIX_WORD.test(words.at(-1)!)) words.pop();
  let value = words.join(" ");
  const from = start + value.length;
  const suffix = SUFFIX_AFTER.exec(text.slice(from, from + 6));
  if (suffix) value += suffix[0];
  // A suffix written without its dot, at the end of a sentence, keeps the dot.
  if (/(?:Jr|Sr|JR|SR)$/u.test(value) && text[start + value.length] === ".") value += ".";
  return span("NAME", start, value);
}

const PARTICLE_WORD = new RegExp(`^${PARTICLE}$`, "iu");

/** A name written surname first ("Smith, John"): its given names start on a first name or are initials. */
function surnameFirst(value: string, labelled = false): boolean {
  const at = value.indexOf(", ");
  if (at < 0) return false;
  const surname = value.slice(0, at).split(" ");
  const given = value.slice(at + 2);
  const caps = surname.join(" ") === surname.join(" ").toUpperCase();
  const givenWords = given.split(" ");
  // Wang, Wei; CHAN, Tai Man; PARK, Ji-hoon: the East Asian rules weigh the surname themselves.
  if (
    surname.length === 1 &&
    eastAsianName([surname[0]!, ...givenWords].map(titleCase)) === 1 + givenWords.length
  )
    return !notName(surname[0]!) && !COMPANY_WORDS.has(surname[0]!.toUpperCase());
  // Two names of a list (Anand Subramanian, Wang Wei; Minjun Kim, Mei SHIMIZU), not a surname
  // and given names.
  if (
    surname.length > 1 &&
    (eastAsianName(givenWords.map(titleCase)) === givenWords.length ||
      eastAsianName(surname.map(titleCase)) === surname.length)
  )
    return false;
  const known = /^\p{Lu}\./u.test(given) || splitOn(given, SPACE_OR_HYPHEN).some(isFirstName);
  // An everyday word before a comma is a sentence's (However, John); in capitals with a known
  // given name it is a surname (VAN DER BERG, Jan; BAKER, Anna).
  const everyday = (w: string) =>
    isCommonWord(w) &&
    !PARTICLE_WORD.test(w) &&
    !(caps && known) &&
    !(known && NOUN_LIKE.has(w.toLowerCase()));
  if (surname.some((w) => notName(w) || COMPANY_WORDS.has(w) || everyday(w) || greetedGroup(w)))
    return false;
  // A greeting or sign-off before the comma greets the name (Best, Olga; Viele Grüße, Lukas; an
  // abbreviated one in capitals too, TIA, Anna, but a first name's written so: Smith, Tia).
  const greeting = surname.join(" ");
  if (
    (ABBREVIATED_SIGN_OFF_WORDS.has(greeting.toLowerCase()) && (caps || !isFirstName(greeting))) ||
    (!caps &&
      (GREETING_WORDS.has(greeting.toLowerCase()) ||
        (WHOLE_NAME_LABEL.test(greeting) && !NO_COMMA_GREETING.test(greeting))))
  )
    return false;
  // Two full names of a list, each a first name and a surname (Anand Subramanian, Meera Iyer), not
  // two surnames before given names (Feliciano Ibarra, María José).
  if (
    !caps &&
    surname.length > 1 &&
    givenWords.length > 1 &&
    isFirstName(surname[0]!) &&
    isFirstName(givenWords[0]!) &&
    !isFirstName(givenWords.at(-1)!)
  )
    return false;
  if (known) return true;
  // After a label, a surname then one given name is a register's form (ADEBAYO, Tunde; TOY, Sage);
  // a full name before the comma is the name, and what follows its place or role (Signed: John
  // Smith, London).
  if (!caps && surname.length > 1 && isFirstName(surname[0]!)) return false;
  return labelled && /^\p{Lu}\p{Ll}+$/u.test(given) && !notName(given);
}

/**
 * The words hold a first name of the lexicon, initials, or a script other than Latin, or start on a
 * romanized East Asian name.
 */
function looksPersonal(words: readonly string[]): boolean {
  return (
    words.some(
      (w) =>
        /^\p{Lu}\.$/u.test(w) || w.split("-").some(isFirstName) || !/\p{Script=Latin}/u.test(w),
    ) || eastAsianName(words.map(titleCase)) > 0
  );
}

/**
 * A word in camel case is as often a brand's (DeFi, DuPont, VanEck) as a surname's (DeVito): words
 * holding one are a person's only beside a first name of the lexicon (or after a title, which the
 * caller knows).
 */
function camelCaseBrand(words: readonly string[]): boolean {
  return words.some((w) => CAMEL_CASE_NAME.test(w)) && !looksPersonal(words);
}

/** The next name of a list after a header's label (Cc: Anand Subramanian, Meera Iyer). */
const LISTED_NAME = new RegExp(
  `^[,;] ?(${NAME_WORD}(?: (?:${PARTICLE} )?${NAME_WORD}){1,2})(?![\\p{L}\\p{N}])`,
  "u",
);

/** The names that continue a list after a header's label, each of two or three words. */
function listedNames(text: string, from: number): PiiSpan[] {
  const out: PiiSpan[] = [];
  let at = from;
  for (;;) {
    const m = LISTED_NAME.exec(text.slice(at, at + 200));
    if (!m) break;
    const words = m[1]!.split(" ");
    const end = at + m[0].length;
    // A team, a company, a place or an everyday word opens no name (Legal Department, Paris Cedex).
    if (
      words.some(
        (w, k) => notNameIn(words, k) || teamOrProductWord(w) || COMPANY_WORDS.has(w.toUpperCase()),
      ) ||
      (isCommonWord(words[0]!) && !isFirstName(words[0]!) && eastAsianName(words) === 0) ||
      companyAfter(text, end)
    )
      break;
    out.push(nameSpan(text, end - m[1]!.length, words));
    at = end;
  }
  return out;
}

const AFTER_HONORIFIC = new RegExp(`(?:${HONORIFICS})\\.? $`, "u");
const HONORIFIC = new RegExp(`^(?:${HONORIFICS})$`, "u");
/** A preposition of place right before a match (née à Brest, nato a Roma, geboren in Köln). */
const PLACE_BEFORE = /(?:^|[\s(])(?:à|a|au|in|en|aus|te)\s$/u;
/** The rest of a word after a match that ended inside it. */
const CUT_WORD = /^\p{L}+/u;
const AMBIGUOUS_LOWER_TITLES = new Set(["ms.", "ing.", "arch.", "rag.", "geom."]);

/**
 * Words of a team's, a department's or a role's name, which labels and sign-offs lead as often as a
 * person's, in the languages the redaction reads (`Die Geschäftsleitung`, `La Direction`, `El
 * Equipo de Soporte`, `La Direzione`, `De Directie`); none a surname's.
 */
const TEAM_WORDS = words(
  [
    "department team office service services support desk unit division committee board payable receivable signatory holdings traders group finance accounts legal procurement sales marketing staff resources relations operations compliance treasury payroll administration management",
    "abteilung geschäftsleitung geschäftsführung kundenservice kundendienst vorstand verwaltung hausverwaltung buchhaltung personalabteilung rechtsabteilung sekretariat redaktion direktion vertrieb einkauf",
    "direction équipe equipe secrétariat secretariat comptabilité comptabilite gérance gerance rédaction comité comite",
    "equipo dirección direccion gerencia administración administracion departamento secretaría contabilidad soporte atención",
    "direzione amministrazione segreteria ufficio squadra servizio assistenza contabilità comitato reparto",
    "afdeling directie klantenservice bestuur administratie secretariaat boekhouding",
    "equipa direção direcao diretoria atendimento",
  ].join(" "),
);

/**
 * Words of a workflow's, a wallet's or a protocol's name, this product's own (`Name: ETH-USDC LP
 * Migration`, `Beneficiary: Gnosis Safe Multisig`), tickers among them; none a surname's.
 */
const PRODUCT_WORDS = words(
  "multisig multisend wallet wallets vault vaults dao protocol labs foundation liquidity rebalance rebalancing migration custody exchange token tokens contract contracts defi nft nfts swap swaps eth btc usdc usdt dai weth wbtc lp avax bnb matic aave arb steth wsteth crv ldo",
);

const SEPARATED_ONLY_LABEL_SET: ReadonlySet<string> = new Set(SEPARATED_ONLY_LABELS.split("|"));
/** The named groups of `CLASSED_NAME_LABEL` and the separator after the label, as matched. */
interface LabelGroups {
  label?: string;
  salutation?: string;
  role?: string;
  phrase?: string;
  bare?: string;
  separator?: string;
}
/**
 * The labels a person follows without a colon as a letter or a contract writes them (`Dear Baker`,
 * `the Tenant Carpenter`), but for `SEPARATED_ONLY_LABELS`.
 */
function leadsPersonUnseparated(groups: LabelGroups): boolean {
  return (
    (groups.salutation !== undefined || groups.role !== undefined) &&
    !SEPARATED_ONLY_LABEL_SET.has(groups.label!)
  );
}
/** Ranks addressed as such (`Dear Lord`, `Dear Mayor`), no surname there. */
const ADDRESSED_RANKS = words("lord mayor bishop duke pope");

/**
 * Surnames that are nouns a party's role makes a term with (`the Buyer Price`, `Seller Page`,
 * `Tenant House`), so no person's right after the role without its colon.
 */
const ROLE_TERM_NOUNS = words(
  "bond day field fields hand head house land law page park power price street wall",
);

/**
 * Given names that are everyday words, names more rarely than the word (`Sky`, `Rain`, `Nova`,
 * `Justice`): a person's only when a greeting or a sign-off addresses the word alone (`Dear Sky,`,
 * `Cheers,\nRain`, `Hi Nova!`). Not the words that address anyone (`Honey`, `Legend`, `Angel`).
 */
const ADDRESSED_WORD_NAMES = words(
  "sky rain storm stormy star ocean meadow lark fern clover aspen cedar ash journey liberty justice honor honour mercy blessing haven bliss echo indigo scarlet ember dove breeze maple nova cash saffron",
);

/**
 * Whether the words a label leads are no person's. Words that are all everyday words name a team
 * or a role (Legal Department), unless common surnames that are everyday words (one, or two) follow
 * a greeting, a sign-off or a party's role (`Dear Baker,`, `Regards Stone`, `Tenant Carpenter`,
 * `Dear Young Carpenter`), or one follows a label with its colon or comma (`Payee: Wood`); a
 * role's term is not (`the Buyer Price`). After a label without its colon or comma, words of
 * SCOWL's everyday English that are no surname's name no one, the label being a word of a phrase
 * (`Server Name Indication`, `Off By Default`); after one of the labels that are nouns of phrases,
 * one everyday word does not either, though a first name (`Name Server`, `Client Server`, `Party
 * Wall`).
 */
function labelLeadsWords(groups: LabelGroups, plain: readonly string[]): boolean {
  const separated = groups.separator !== undefined;
  const lone = plain.length === 1 ? plain[0]!.toLowerCase() : undefined;
  if (
    !separated &&
    lone !== undefined &&
    groups.phrase !== undefined &&
    COMMON_ENGLISH_WORDS.has(lone)
  )
    return true;
  if (looksPersonal(plain)) return false;
  if (groups.salutation !== undefined && lone !== undefined && ADDRESSED_WORD_NAMES.has(lone))
    return false;
  const lower = plain.map((w) => w.toLowerCase());
  const addressed = separated ? groups.bare === undefined : leadsPersonUnseparated(groups);
  const surname =
    plain.length <= 2 &&
    lower.every((w) => SURNAME_WORDS.has(w) && !ADDRESSED_RANKS.has(w)) &&
    addressed &&
    (lone !== undefined
      ? separated || groups.role === undefined || !ROLE_TERM_NOUNS.has(lone)
      : groups.salutation !== undefined || groups.role !== undefined);
  return (plain.every(isCommonWord) && !surname) || (!separated && plain.every(everydayNoSurname));
}

/** A team's or a department's word, or one of this product's (in any part of a hyphenated word). */
function teamOrProductWord(word: string): boolean {
  const w = word.toLowerCase();
  if (TEAM_WORDS.has(w) || PRODUCT_WORDS.has(w)) return true;
  return /[-/]/u.test(w) && splitOn(w, HYPHEN_OR_SLASH).some((part) => PRODUCT_WORDS.has(part));
}

/** Words of a heading in capitals that no name in capitals holds (TERMS AND CONDITIONS). */
const HEADING_WORDS = words(
  "AND OR OF THE FOR TO IN ON AT WITH FROM UND ODER FÜR ET OU POUR LES DES PARA LOS LAS PER GLI",
);

/** A saint's name is a place's or a church's (San Diego, Santa Maria Novella, St. John's Wood). */
const SAINT_BEFORE = /(?:^|[^\p{L}])(?:San|Santa|Santo|São|Saint|Sainte|Sankt|St\.?|Ste\.?) $/u;

const TICKER = /^(\p{Lu}{2,6})\)/u;

/**
 * Words whose initials follow them that are a person's: every word but the last a first name of
 * the lexicon or an initial (`John Smith (JS)`, `Mary Ann Smith (MAS)`, `J. Smith (JS)`).
 */
function personBeforeInitials(words: readonly string[]): boolean {
  return words.every(
    (w, k) =>
      k === words.length - 1 ||
      MIDDLE_INITIAL_WORD.test(w) ||
      BARE_INITIAL.test(w) ||
      w.split("-").some(isFirstName),
  );
}

/**
 * What a party clause's bracket opens on: a capital, a quote, or an article or a defining word of
 * the six languages and Dutch (`(the "Buyer")`, `(der Mieter)`, `(hereinafter "Lender")`).
 */
const PARTY_BRACKET =
  /^(?:\p{Lu}|["“'‘«]|l['’]|(?:the|der|die|das|le|la|les|el|los|las|il|lo|gli|de|het|hereinafter|hereafter|ci-après|nachfolgend|en adelante|di seguito|hierna)(?![\p{L}]))/u;

/** Capitals that are a name's initials in any order (`JS` of `John Smith` and `Smith, John`). */
function isInitialsOf(capitals: string, name: string): boolean {
  const initials = name
    .replace(/[\s,]+/gu, " ")
    .split(" ")
    .filter(Boolean)
    .map((w) => w[0]!.toUpperCase());
  return [...capitals].sort().join("") === initials.sort().join("");
}

function names(text: string): PiiSpan[] {
  const out: PiiSpan[] = [];
  for (const { re, firstName, bracket, title } of NAME_CONTEXTS) {
    const afterTitle = title === true;
    for (const m of execAll(re, text)) {
      // A ticker in the bracket names an asset (`with Solana (SOL)`, `and Cardano (ADA)`), not a
      // party, unless it is the name's initials (`with John Smith (JS)`).
      const inBracket = bracket
        ? text.slice(m.index + m[0].length, m.index + m[0].length + 16)
        : "";
      const ticker = bracket && TICKER.exec(inBracket)?.[1];
      const v = m.groups!.value!;
      if (ticker && !isInitialsOf(ticker, v)) continue;
      // Initials of words that are not a person's name define an abbreviation (`with Know Your
      // Customer (KYC)`, `Server Name Indication (SNI)`); a bracket of other words in lower case
      // holds no party (`Time to Live (ttl)`).
      if (ticker && !v.includes(",") && !personBeforeInitials(v.split(" "))) continue;
      if (bracket && !ticker && !PARTY_BRACKET.test(inBracket)) continue;
      const lowerTitle = m.groups!.lowerTitle;
      if (afterTitle && titleBrand(m[0].slice(0, -v.length), v)) continue;
      const i = m.index + m[0].indexOf(v);
      if (v.includes(", ")) {
        if (surnameFirst(v, !afterTitle)) {
          out.push(nameSpan(text, i, v.split(" ")));
          continue;
        }
      }
      const head = v.includes(", ") ? v.slice(0, v.indexOf(", ")) : v;
      const words = head.split(" ");
      if (head === head.toUpperCase() && words.some((w) => COMPANY_WORDS.has(w.replace(/\.$/, ""))))
        continue;
      if (words.some((w) => teamOrProductWord(w) || HEADING_WORDS.has(w))) continue;
      if (m.groups!.salutation !== undefined) {
        // Whom a greeting addresses before the name is no part of it (`Hi There Delilah`).
        while (words.length > 1 && greetedGroup(words[0]!)) words.shift();
        if (words.length === 1 && VOICE_ASSISTANTS.has(words[0]!)) continue;
      }
      if (words.length === 1 && greetedGroup(words[0]!)) continue;
      // A form's labels are no name (`Name, Surname and date of birth are required`).
      if (formLabels(words)) continue;
      if (companyAfter(text, i + v.length)) continue;
      // A company's form the name pattern cut in its middle (Dr. Oetker GmbH read up to `Gmb`).
      const rest = CUT_WORD.exec(text.slice(i + v.length, i + v.length + 16))?.[0];
      if (rest && COMPANY_WORDS.has(`${words.at(-1)!}${rest}`.toUpperCase())) continue;
      // A second title (Herr Dr. Karl-Heinz Neumann) is not the name.
      let notNameBefore = false;
      const person = placeLeadingPerson(words, m.groups!);
      while (!person && words.length && (notNameIn(words, 0) || HONORIFIC.test(words[0]!))) {
        notNameBefore ||= notNameIn(words, 0);
        words.shift();
      }
      while (words.length > (person ? 1 : 0) && notName(words.at(-1)!)) words.pop();
      if (!words.length) continue;
      // After a word that is no name's, a letter with its dot is a list's (Annex B. Pricing).
      if (notNameBefore && MIDDLE_INITIAL_WORD.test(words[0]!)) continue;
      // A middle initial (John Q. Public) says nothing of whether the words are a person's.
      const plain = words.filter((w, k) => k === 0 || !MIDDLE_INITIAL_WORD.test(w));
      if (!afterTitle && camelCaseBrand(plain)) continue;
      // Initials without dots are a person's only before a surname that is no everyday word
      // (Payee: J SMITH, not To: A Customer).
      const surnameAt = words.findIndex((w) => !BARE_INITIAL.test(w));
      if (surnameAt > 0) {
        const surname = words.slice(surnameAt);
        if (surname.every(isCommonWord) || surname.some((w) => COMPANY_WORDS.has(w.toUpperCase())))
          continue;
        out.push(nameSpan(text, i + head.indexOf(words[0]!), words));
        continue;
      }
      // Capitals also write departments and headings (HUMAN RESOURCES): after a label a person's
      // holds a first name of the lexicon or a word that is not an everyday one (JADE MARCHAL);
      // after a title it is a person's.
      if (
        head === head.toUpperCase() &&
        !afterTitle &&
        (words.length < 2 || (!looksPersonal(plain) && plain.every(isCommonWord)))
      )
        continue;
      if (firstName && !looksPersonal(plain)) continue;
      // A title in lower case leads no company word (`ing. Corp`), and the ones that also write an
      // abbreviation (`ms.`, a manuscript; `ing.`, `arch.`) lead no everyday words (`ms. Word`).
      if (
        lowerTitle &&
        !looksPersonal(plain) &&
        (words.some((w) => COMPANY_WORDS.has(w.toUpperCase())) ||
          (AMBIGUOUS_LOWER_TITLES.has(lowerTitle) && plain.every(isCommonWord)))
      )
        continue;
      if (
        m.groups!.label !== undefined &&
        !AFTER_HONORIFIC.test(text.slice(Math.max(0, i - 14), i)) &&
        labelLeadsWords(m.groups!, plain)
      )
        continue;
      let start = i + head.indexOf(words[0]!);
      // After a label "M." is as often an initial as Monsieur: the span takes it either way.
      if (!afterTitle && /(?:^|[\s:])M\. $/u.test(text.slice(start - 4, start))) {
        start -= 3;
        words.unshift("M.");
      }
      const found = nameSpan(text, start, words);
      out.push(found);
      if (firstName) out.push(...listedNames(text, found.end));
    }
  }
  for (const [i, v] of matches(DESCRIBED_NAME, text, 1)) {
    // After a preposition of place the words are where the person was born (née à Brest, demeurant).
    if (PLACE_BEFORE.test(text.slice(Math.max(0, i - 5), i))) continue;
    if (v.includes(", ") && surnameFirst(v, true)) {
      out.push(nameSpan(text, i, v.split(" ")));
      continue;
    }
    const words = describedName(v.split(" "));
    // A title before the name is not of it (Frau V. Kalinowski, geboren).
    while (words.length && (notNameIn(words, 0) || HONORIFIC.test(words[0]!))) words.shift();
    while (words.length && notName(words.at(-1)!)) words.pop();
    if (words.length && !camelCaseBrand(words))
      out.push(nameSpan(text, i + v.lastIndexOf(words.join(" ")), words));
  }
  for (const m of execAll(NAME_BEFORE_ROLE, text)) {
    if (!isRole(m[2]!) && !MORE_ROLES.has(m[2]!.toLowerCase())) continue;
    const v = m[1]!;
    if (v.includes(", ") ? !surnameFirst(v) : !looksPersonal(v.split(" "))) continue;
    out.push(nameSpan(text, m.index, v.split(" ")));
  }
  out.push(
    ...unlabelledNames(text),
    ...fieldNames(text),
    ...casualNames(text),
    ...lowerLabelledNames(text),
    ...introducedNames(text),
    ...lowerTitledNames(text),
    ...speakerNames(text),
    ...writerNames(text),
    ...lowerNamesBeforeVerb(text),
    ...loneFirstNames(text),
    ...gaelicSurnames(text),
    ...cjkLabelledNames(text),
    ...cjkNamesInText(text),
    ...rowNames(text),
  );
  return out;
}

/** Where each word of a value ends in it, one space or tab between them. */
function wordEnds(words: readonly string[]): number[] {
  let offset = -1;
  return words.map((w) => (offset += w.length + 1));
}

/**
 * A title, its dot optional, before a name in lower case, as chats write them (`paid to mr smith`,
 * `ask dr. jones`, `cc mrs patel`, `sra garcia lopez`): a first name maybe, then the surname's
 * words that are no everyday word, or one that is where the name ends (`thanks mr baker.`, `mr
 * baker for the board`; `dr cash flow`, `mr review please` stay), a doctorate's faculty between
 * (`dr. med. weber`), each title read by its rule in `LOWER_TITLE_RULES`. `miss` is left out in
 * lower case (a verb).
 */
const LOWER_TITLED = new RegExp(
  `(?<![\\p{L}\\p{N}'’.-])(?:${inTheirCases(`${LOWER_TITLE_ABBREVIATIONS} mme mlle`, { capitals: false })})\\.?[ \\t]+(?:${FACULTY}[ \\t]+)?(?:${LOWER_LATER_TITLE}[ \\t]+){0,3}(?!${FACULTY}|${LOWER_LATER_TITLE})(\\p{Ll}[\\p{Ll}'’-]*(?:[ \\t]\\p{Ll}[\\p{Ll}'’-]*){0,3})(?![\\p{L}\\p{N}'’-])`,
  "gu",
);
function lowerTitledNames(text: string): PiiSpan[] {
  const out: PiiSpan[] = [];
  for (const m of execAll(LOWER_TITLED, text)) {
    const at = m.index + m[0].length - m[1]!.length;
    const words = splitOn(m[1]!, BLANK);
    const ends = wordEnds(words);
    const nameEnds = (k: number) => {
      TITLED_VALUE_END.lastIndex = at + ends[k]!;
      return TITLED_VALUE_END.test(text);
    };
    const lead = plainFirstName(words[0]!) ? 1 : 0;
    // After an article a title in lower case is a thing's abbreviation (`the mr review is
    // pending`, `an mr pipeline`: a merge request).
    const prior = WORD_BEFORE.exec(text.slice(Math.max(0, m.index - 20), m.index))?.[1];
    if (prior !== undefined && THING_ARTICLES.has(prior.toLowerCase())) continue;
    const rule = LOWER_TITLE_RULES.get(TITLE_WORD.exec(m[0])![0].toLowerCase()) ?? ANY_LOWER_TITLE;
    if (rule.notAfter?.test(text.slice(Math.max(0, m.index - 10), m.index))) continue;
    let kept = lead;
    while (kept < words.length) {
      // A surname's particles go with the word after them (`mr van der berg`).
      let next = kept;
      while (next < words.length - 1 && PARTICLE_WORD.test(words[next]!)) next++;
      const word = words[next]!;
      // The surname's first word may be an everyday one where the name ends (`mr baker.`), a later
      // one is the sentence's (`mr smith called`).
      const first = kept === lead;
      if (
        word.length < 2 ||
        (!plainSurname(word) &&
          !(rule.everydaySurname && first && lastSurname(word) && nameEnds(next)))
      )
        break;
      kept = next + 1;
      // A possessive ends the name (`dr jones's report`).
      if (/['’]s$/u.test(word)) break;
    }
    if (!kept || rule.notBefore?.has(words[0]!)) continue;
    if (rule.nameEnds && !rule.nameEnds(text, at + ends[kept - 1]!)) continue;
    out.push(span("NAME", at, m[1]!.slice(0, ends[kept - 1])));
  }
  return out;
}
/** How `lowerTitledNames` reads the name after one title in lower case. */
interface LowerTitleRule {
  /** What before the title makes it no title (a measure's number before `ms`). */
  notAfter?: RegExp;
  /** First words after the title that make it a product's name, not a person's (`ms sql`). */
  notBefore?: ReadonlySet<string>;
  /** The surname's first word may be an everyday one where the name ends (`mr baker.`). */
  everydaySurname: boolean;
  /** Where the name must end, the title being as often a word of its own. */
  nameEnds?: (text: string, end: number) => boolean;
}
const TITLE_WORD = /^\p{L}+/u;
const ANY_LOWER_TITLE: LowerTitleRule = { everydaySurname: true };
/**
 * `ms` is milliseconds after a number, `in`, `per` or a statistic's word (`avg ms latency`), and
 * Microsoft before its products' names that are no everyday word: it leads a name of surnames the
 * lexicon does not hold as everyday words, only where that ends as after a person's label, before
 * a verb only a person does (`thanks ms smith.`, `ms patel said`), not one a measure does too (`ms
 * latency is low`), or before what a note assigns a person (`ms kowalski to sign`).
 */
const LOWER_TITLE_RULES: ReadonlyMap<string, LowerTitleRule> = new Map([
  [
    "ms",
    {
      notAfter: /(?:\d|\b(?:in|per|avg|mean|median|max|min|total))[ \t]*$/u,
      notBefore: words(
        "sql dos azure visio sharepoint onedrive intune entra copilot xbox bing powershell dynamics onenote",
      ),
      everydaySurname: false,
      nameEnds: (text: string, end: number) => {
        PERSON_VALUE_END.lastIndex = end;
        const after = text.slice(end, end + 40);
        return PERSON_VALUE_END.test(text) || PERSON_DID.test(after) || PERSON_TO.test(after);
      },
    },
  ],
]);

/**
 * Who a greeting addresses that is no person, in English and the other languages of the corpus
 * (`hi all`, `Hello World`, `Dear Members`, `Hallo zusammen`, `Liebe Kollegen`, `Cher client`,
 * `Hola amigos`, `Ciao ragazzi`, `Hoi allemaal`); not the words that are first names too (`Allen`,
 * `Ami`, `Amie`, `Amico`) or surnames (`Kunde`).
 */
const GREETED_GROUPS =
  "all everyone everybody team folks guys there world members " +
  "zusammen allerseits alle leute kollegen kolleginnen kollege kollegin freunde kunden welt " +
  "tous toutes collègues collègue amis amies équipe client cliente clients clientes membres partenaires " +
  "todos todas amigos amigas amigo amiga equipo compañeros compañeras colegas colega mundo chicos " +
  "tutti ragazzi amici amica colleghi collega squadra mondo " +
  "allemaal iedereen collega's vrienden jongens klant klanten";
const GREETED_GROUP_WORDS = words(GREETED_GROUPS);
/** Voice assistants a greeting wakes (`Hey Google`, `Hi Siri`): no person's name. */
const VOICE_ASSISTANTS = words("Google Siri Cortana Bixby");
/** A word of `GREETED_GROUPS`, in any case and with a possessive (`Members'`). */
function greetedGroup(word: string): boolean {
  return GREETED_GROUP_WORDS.has(word.replace(/['’]s?$/u, "").toLowerCase());
}

/**
 * Where a name typed in lower case ends: before punctuation of the clause and a space, or before
 * the line's end with at most one mark between (`hi anna, can you…`, `signed: tom.`), before what
 * sets a name apart from a role, an address or another name (`signed: tom (cfo)`, `author: tom
 * <tom@…>`, `approved by: anna kowalski / finance`, `cc: tom & anna`, `signed: tom - cfo`), or
 * before one of `nextWords` (space-separated) that go on the sentence.
 */
function lowerNameEnd(beforeClause: string, beforeLineEnd: string, nextWords = ""): string {
  const next = nextWords ? `|[ \\t]+(?:${alternation(nextWords)})(?![\\p{L}\\p{N}'’-])` : "";
  return `(?=[ \\t]*(?:[${beforeClause}][ \\t]|[${beforeLineEnd}]?[ \\t]*(?:\\r?\\n|$)|[(\\[<|/&])|[ \\t]+[-–—][ \\t]${next})`;
}

/**
 * Words that go on a chat's sentence after the name a greeting or sign-off leads (`thanks tom for
 * the report`, `hi anna can you…`, `merci anna pour…`), in the languages of the greetings: a
 * function word or a request's verb, never a word a surname is.
 */
const CASUAL_NEXT =
  "for to and can could would will please how i i'm i’m we just so see re about as if but für und kannst könntest bitte pour et peux pourrais por y puedes podrías per e puoi potresti pelo pela podes voor en kun kan";

/** What thanks take after them before the name (`thank you`, `grazie mille`, `thanks again`). */
const CASUAL_THANKS_MORE = "you|mille|beaucoup|vielmals|again|so much|very much";

/**
 * A chat's verbs that address or bring in a person before their name (`cc priya`, `ask priya about
 * it`, `ping tom`, `ty tom!`), read as the greetings are.
 */
const CHAT_ADDRESSING = "ty tysm cc ask ping tell";
/**
 * A greeting or sign-off then one or two words in lower case that end their line or a clause or go
 * on into the sentence (`thanks, tom`, `hi anna,`, `hi anna, can you…`, `thanks tom for the
 * report`), as chats write a name.
 */
const CASUAL_GREETING = inTheirCases(`${CASUAL_GREETINGS} ${CHAT_ADDRESSING}`, { capitals: false });
const CASUAL_NAME = new RegExp(
  `(?<![\\p{L}\\p{N}])(?:${CASUAL_GREETING})(?: (?:${CASUAL_THANKS_MORE})){0,2}[,!]?[ \\t]+(\\p{Ll}[\\p{Ll}'’-]+(?:[ \\t]\\p{Ll}[\\p{Ll}'’-]+)?)${lowerNameEnd(",!;", ",.!", CASUAL_NEXT)}`,
  "gu",
);

/**
 * A first name of the lexicon that is no everyday or other word (`tom`, not `will`), as a chat's
 * sign-off, a label in lower case and a row's cell hold one with little around it to tell; joined
 * by a hyphen, each part a first name (`jean-luc`, `anna-maria`), not all of them everyday words.
 */
function plainFirstName(word: string): boolean {
  const parts = word.split("-");
  if (
    !parts.every((part) => isFirstName(part) && !notName(part)) ||
    (isCommonWord(word) && !capitalisedWordName(word))
  )
    return false;
  return parts.length === 1 || !parts.every(isCommonWord);
}

/**
 * First names that are everyday English words, which neither lexicon holds as names (compromise
 * tags them as nouns, adjectives or a modal; faker's names were filtered against its everyday
 * words): `Dear Holly`, `Ask Ruby to sign`, `Bill said`. Capitalised they are read as the
 * lexicons' names that are everyday words are (`LONE_EVERYDAY_NAMES`: `Bill will pay` stays); in
 * lower case they are the word (`holly`, `will`). Not the months (`Dear April` is as rare as
 * `April 2026` is common), nor words that are names more rarely than anything else (`Star`,
 * `Page`, `Price`, `Cash`).
 */
const WORD_NAMES = words(
  "rose summer ruby jasmine olive crystal jade poppy hazel jewel faith hope joy patience charity " +
    "melody sage pearl coral daisy lily violet holly heather bill will art ray rich gene sandy " +
    "penny earl miles cliff hunter guy dawn rusty sonny chip woody brandy misty dusty reed frank " +
    "jay viola raven willow river",
);
function capitalisedWordName(word: string): boolean {
  return /^\p{Lu}\p{Ll}+$/u.test(word) && WORD_NAMES.has(word.toLowerCase());
}

/**
 * A plain first name written with its accents as the lexicon has it where it has any: `Signé` is a
 * label's word, though `Signe` is a name.
 */
function writtenFirstName(word: string): boolean {
  const lower = word.normalize("NFC").toLowerCase();
  return plainFirstName(word) && (lower === withoutAccents(lower) || FIRST_NAMES.has(lower));
}

/** A first name of the lexicon, each part of a hyphenated one, an everyday word too (`jean`). */
function anyFirstName(word: string): boolean {
  return word.split("-").every((part) => isFirstName(part) && !notName(part));
}

/**
 * A surname's word in lower case after a plain first name: no everyday word, nor a particle, nor a
 * letter alone or another conjunction (`Carlos Ruiz y vivo en Madrid`, `Ich heiße Jonas und wohne
 * in Berlin`, `Ik heet Daan en ik woon…`).
 */
function plainSurname(word: string): boolean {
  return (
    word.length > 1 &&
    !LIST_CONJUNCTION_WORD.test(word) &&
    !isCommonWord(word) &&
    !notName(capitalised(word)) &&
    !PARTICLE_WORD.test(word)
  );
}

/**
 * A transcript's or a chat log's speaker: a capitalised first name alone at a line's start, maybe
 * after the time, before a colon and what they said (`Tom: I agree`, `[10:42] Priya: ok`): a first
 * name of the lexicon that is no everyday word (`Note: fees apply`, `Max: I think so` stay), what
 * follows starting on a letter (`Dex: 5` stays). In lower case a line's first word and a colon are
 * as often a configuration's key (`dex: uniswap`).
 */
const SPEAKER =
  /^[ \t]*(?:\[?\d{1,2}:\d{2}(?::\d{2})?\]?[ \t]+)?(\p{Lu}[\p{Ll}'’]+(?:-\p{Lu}[\p{Ll}'’]+)?)[ \t]?:[ \t]+(?=\p{L})/gmu;
/** A name's word in lower case, hyphenated maybe (`anna-lena`), as chats write one. */
const LOWER_NAME_WORD = "\\p{Ll}[\\p{Ll}'’]+(?:-\\p{Ll}[\\p{Ll}'’]+)?";
/**
 * A chat log's speaker in lower case (`tom: i agree with the fee`): read where two lines or more
 * of the text open so and each says two words or more, as a log does and a configuration's keys
 * (`dex: uniswap`, `chase: true`) do not; a line alone where what is said opens as only speech
 * does (`CHAT_OPENERS`).
 */
const LOWER_SPEAKER = new RegExp(
  `^[ \\t]*(?:\\[?\\d{1,2}:\\d{2}(?::\\d{2})?\\]?[ \\t]+)?(${LOWER_NAME_WORD})[ \\t]?:[ \\t]+(\\p{L}[^\\s]*)[ \\t]+\\p{L}`,
  "gmu",
);
/** First words of what a person says that no configuration's value opens with (`i agree…`). */
const CHAT_OPENERS = words(
  "i i'm i’m i'll i’ll i've i’ve i'd i’d we we're we’re we'll we’ll ok okay yes yeah yep nope sure thanks thank sounds agreed hi hey hello sorry please can could",
);
function speakerNames(text: string): PiiSpan[] {
  const out: PiiSpan[] = [];
  for (const m of execAll(SPEAKER, text)) {
    const word = m[1]!;
    if (!writtenFirstName(word)) continue;
    out.push(span("NAME", m.index + m[0].indexOf(word), word));
  }
  const lower: PiiSpan[] = [];
  let opensAsSpeech = false;
  for (const m of execAll(LOWER_SPEAKER, text)) {
    const word = m[1]!;
    if (!writtenFirstName(word)) continue;
    lower.push(span("NAME", m.index + m[0].indexOf(word), word));
    opensAsSpeech = CHAT_OPENERS.has(m[2]!.replace(/[,.!?]$/u, ""));
  }
  if (lower.length >= 2 || (lower.length === 1 && opensAsSpeech)) out.push(...lower);
  return out;
}

/**
 * A first name in lower case that signs a message or introduces its writer: alone on a line after
 * a signature's dash (`-- priya`, `~tom`, `— anna kowalski` as the text's last line: a single dash
 * elsewhere starts a list's item as often), with a surname that is no everyday word, or before
 * `here` opening a sentence or after a greeting (`priya here, re the fee`, `hi all, anna here!`).
 * A first name of the lexicon that is no everyday word.
 */
const SIGNATURE_LINE = new RegExp(
  `^[ \\t]*(--|-|~)[ \\t]*(${LOWER_NAME_WORD})(?:[ \\t]+(${LOWER_NAME_WORD}))?[ \\t]*\\r?$`,
  "gmu",
);
const WRITER_HERE = new RegExp(
  `(?<![\\p{L}\\p{N}'’@#/_.-])(${LOWER_NAME_WORD})[ \\t]+here(?=[ \\t]*(?:[,.!:;)]|[-–—][ \\t]|\\r?\\n|$))`,
  "gu",
);
const GREETED_BEFORE = new RegExp(
  `(?:^|[^\\p{L}])(?:${alternation(CASUAL_GREETINGS)})(?:[ \\t]+(?:${alternation(GREETED_GROUPS)}))?[ \\t]*[,!.]?[ \\t]*$`,
  "iu",
);
function writerNames(text: string): PiiSpan[] {
  const out: PiiSpan[] = [];
  for (const m of execAll(SIGNATURE_LINE, text)) {
    const [, dash, first, last] = m;
    if (dash === "-" && !/^\s*$/u.test(text.slice(m.index + m[0].length))) continue;
    if (!writtenFirstName(first!)) continue;
    const whole = last !== undefined && plainSurname(last);
    if (last !== undefined && !whole) continue;
    const at = m.index + m[0].indexOf(first!);
    out.push(
      span(
        "NAME",
        at,
        whole ? text.slice(at, m.index + m[0].lastIndexOf(last!) + last!.length) : first!,
      ),
    );
  }
  for (const m of execAll(WRITER_HERE, text)) {
    const word = m[1]!;
    if (!writtenFirstName(word)) continue;
    const before = text.slice(Math.max(0, m.index - 40), m.index);
    if (!SENTENCE_START.test(before) && !GREETED_BEFORE.test(before)) continue;
    out.push(span("NAME", m.index, word));
  }
  return out;
}

/**
 * A capitalised first name alone in prose (`John will sign tomorrow`, `as discussed with Priya`):
 * a word of the lexicon that is no everyday word, with no capitalised word joined to it on either
 * side (a longer run is read by the rules for full names, which know places and firms).
 */
const LONE_FIRST_NAME =
  /(?<![\p{L}\p{N}'’.@#/_=<-])(\p{Lu}[\p{Ll}'’]+(?:-\p{Lu}[\p{Ll}'’]+)?)(?![\p{L}\p{N}@_/-])/gu;
/**
 * First names of the lexicon that alone are as often a place, a brand, an asset's or a program's
 * name, or a weekday's abbreviation (`the Jordan deal`, `paid by Visa or Mir`, `Cardano's Byron
 * era`, `Comparator<Meta>`, `Thu, 16 Jan`).
 */
const LONE_NOT_NAMES = words(
  "Jordan Victoria Florence Georgia Virginia Carolina Austin Houston Dallas Denver Phoenix Chelsea Sydney Adelaide Lincoln Madison Charlotte Savannah Santiago Sofia Regina Alexandria Augusta Jackson Orlando Aurora Troy Camden Chester Preston Kent Devon Lourdes Lorraine Dakota Chad Salvador Roma Siena Nancy Sion Mir Byron Harley Alexa Siri Tiffany Wendy Jesus Lloyd Morgan Stanley Dex Garth Reyes Brooks Heath Mercedes Porsche Tesla Trinity Eden Zion Shelley Meta Mac Okta Param Mon Tue Wed Thu Fri Sat Sun",
);
/**
 * First names that are also everyday English words: at a sentence's start, where every word is
 * capitalised, they are read as the word (`Grant access`, `Mark it paid`, `Server logs show`): the
 * lexicons' names among SCOWL's commonest words (`EVERYDAY_ENGLISH_FIRST_NAMES`, generated) and
 * these, which SCOWL ranks less common, with everyday words of the six languages (`Nur heute`,
 * `Pero no`).
 */
const LONE_EVERYDAY_NAMES = new Set([
  ...EVERYDAY_ENGLISH_FIRST_NAMES.split(" ").map(capitalised),
  ...[...WORD_NAMES].map(capitalised),
  ...words(
    "Destiny Iris Ivy Rob Lance Mason Clay Dale Glen Carol Victor Sherry Ginger Blaze Rocky Colt Abbey Nur Belle Pero Mas",
  ),
]);
/** Where a sentence starts: the text's or a line's start, or after a sentence's end or a colon. */
const SENTENCE_START = /(?:^|[.!?:;\n])[\s"“'‘`(*•>#/-]*(?:\d+[.)][ \t]+)?$/u;
/** The conjunctions that close a list of the six languages and Dutch (and, und, et, e, y, en). */
const LIST_CONJUNCTIONS = "and|und|et|e|y|en";
const LIST_CONJUNCTION_WORD = new RegExp(`^(?:${LIST_CONJUNCTIONS})$`, "iu");
/** What joins the words of a list of names or a firm's partners: a comma, a conjunction, a dash. */
const LIST_JOIN = `(?:,[ \\t]*|[ \\t]+(?:${LIST_CONJUNCTIONS}|&|[-–])[ \\t]+)`;
const LIST_BEFORE = new RegExp(`(\\p{Lu}[\\p{L}'’.-]*)${LIST_JOIN}$`, "u");
const LIST_AFTER = new RegExp(`^${LIST_JOIN}\\p{Lu}`, "u");
const WORD_BEFORE = /(\p{L}+)[ \t]+$/u;
const LONE_PLACE_BEFORE = words("in im am aus nach near à au aux en te zum zur vom beim ins");
/**
 * Requests of the five other languages and Dutch that address a person, as a sentence opens on
 * them or a request goes on (`Appelle Camille demain`, `Ruf Jonas an`, `Chiama Giulia`, `Bel Daan`,
 * `Llama a Sofía`): English's (`Ask`, `Call`, `Pay`) are everyday words, read as such.
 */
const REQUEST_VERBS =
  "appelle appelez contacte contactez écris écrivez demande demandez préviens prévenez remercie remerciez rappelle rappelez ruf rufe schreib schreibe frag frage kontaktiere informiere erinnere llama llame contacta escribe escriba pregunta pregunte avisa avise chiama chiami contatta scrivi scriva chiedi avvisa ringrazia bel vraag contacteer informeer liga ligue contate escreve escreva pergunte";
const REQUEST_VERB_WORDS = words(REQUEST_VERBS);
/** German's polite request opening a sentence before the person (`Rufen Sie Jonas an`). */
const POLITE_REQUEST =
  /(?:^|[.!?:;\n])[\s"“'‘(*•>-]*(?:Rufen|Schreiben|Fragen|Kontaktieren|Informieren|Erinnern|Danken|Bezahlen)[ \t]+Sie[ \t]+$/u;
/**
 * Such a request and the preposition that brings in the person it addresses, not a thing or a
 * place (`Llama a Sofía`, `Écris à Camille`, `Scrivi a Giulia`, `Ligue para Ana`).
 */
const PERSONAL_A = new RegExp(
  `(?:^|[^\\p{L}])(?:${alternation(REQUEST_VERBS)})[ \\t]+(?:a|à|para)[ \\t]+$`,
  "iu",
);
/** A verb that brings a person in, not a place (`loop in Ahmed`, `keep in Anna`). */
const BRING_IN =
  /(?:^|[^\p{L}])(?:loop(?:ed|ing)?|bring(?:ing)?|brought|keep(?:ing)?|kept|let(?:ting)?|copy(?:ing)?|copied)[ \t]+in[ \t]+$/iu;
const ASCII_WORD = /^[A-Za-z]+$/;
const MONTH_WORD = new RegExp(`^${MONTHS}$`, "u");
const QUOTED = /["'`][^"'`\s]+["'`]$/u;
/** Common English surnames that are everyday words (`Stone`, `Young`, `White`, `Baker`). */
const SURNAME_WORDS = words(
  "baker banks barber bell berry bird bishop black bond booth bridges brook brooks brown buck " +
    "burns bush butler cage cannon carpenter chambers chance chase church clay cook cooper cox " +
    "crane cross day dean duke field fields fish fisher ford forest fountain fox frank french " +
    "frost fuller gates gill glass gold golden good grant gray green grey gross hale hall hand " +
    "hardy hart hawk hay head heath hill hills hood hope house hunt hunter keen king knight lake " +
    "lamb land lane law lee little long lord love marsh mason mayor miller mills moon moor moss " +
    "noble north page park parks pike pool pope porter potter power price pride read reed rice " +
    "rich ring rivers rock rose royal rush sage salt sharp shepherd short silver singer small " +
    "smart smith snow south sparks spear spring stark steel sterling stone street strong summers " +
    "swan swift tanner temple thorn tower towers turner walker wall ward warren waters watts " +
    "weaver wells west white wild winter winters wise wolf wood woods wren wright young berg",
);
/** An everyday English word (SCOWL's) that is no common surname (`indication`, not `baker`). */
function everydayNoSurname(w: string): boolean {
  const lower = w.toLowerCase();
  return COMMON_ENGLISH_WORDS.has(lower) && !SURNAME_WORDS.has(lower);
}
/**
 * Whether a first name that is an everyday word (`LONE_EVERYDAY_NAMES`), alone or before everyday
 * words (`Grant Access`), is read as the words between `start` and `end`: opening a sentence, a
 * quote, a link's text or a code comment, unless a verb only a person does follows (`Jack will
 * call`, `Mark said`, `Hope will help` stays); after a capitalised word other than a greeting or a
 * request (`Ask Mark`; `Prior Art`, `You Will Need`, `Click Grant Access` stay); after a
 * determiner (`the Grace Period`) or the infinitive's `be` (`to be Frank`; `this is Frank`, `to
 * be Frank who signs` stay names).
 */
function readAsWords(text: string, start: number, end: number): boolean {
  const before = text.slice(Math.max(0, start - 40), start);
  if (
    (SENTENCE_START.test(before) || QUOTE_OR_CODE_OPENS.test(before)) &&
    !PERSON_DID.test(text.slice(end, end + 40))
  )
    return true;
  const prior = WORD_BEFORE.exec(before)?.[1];
  if (prior === undefined) return false;
  if (/^\p{Lu}/u.test(prior) && !addressing(prior) && !POLITE_REQUEST.test(before)) return true;
  return (
    DETERMINERS.has(prior.toLowerCase()) ||
    (TO_BE.test(before) && !WHO_AFTER.test(text.slice(end, end + 8)))
  );
}
/** The infinitive's `be`, an adjective's place (`to be Frank`, `let me be Frank`). */
const TO_BE = /(?:^|[^\p{L}])(?:to|me|us)[ \t]+be[ \t]+$/iu;
/** A person the `be` names (`it has to be Frank who signs`). */
const WHO_AFTER = /^,?[ \t]+who(?![\p{L}\p{N}])/u;
/** A quote or a link's text opening after a space or a bracket, an arrow or a code comment. */
const QUOTE_OR_CODE_OPENS = /(?:(?:^|[\s([])["“'‘`[]|=>[ \t]*|\/\/[ \t]*)$/u;
/** Words that open a sentence addressing the person after them (`Ask Mark`, `Thanks Will`). */
const ADDRESSING_WORDS = words(
  `${CHAT_ADDRESSING} call email phone message text remind invite meet`,
);
function addressing(word: string): boolean {
  const lower = word.toLowerCase();
  return GREETING_WORDS.has(lower) || REQUEST_VERB_WORDS.has(lower) || ADDRESSING_WORDS.has(lower);
}
/**
 * What only a person does, said or to be done in their own person (`Jack will call`, `Mark said`,
 * `Grant asked`); not `will pay`, `is due`, `confirmed`, which a grant, a bill or a bank does too.
 */
const PERSON_VERBS =
  "said says asked asks wrote writes replied replies told tells agreed agrees mentioned suggested explained promised emailed phoned thinks thought";
const PERSON_WILL = "call email phone reply sign join attend";
/** What a person is to do, as a note assigns it (`ms kowalski to sign`, `priya to send the list`). */
const PERSON_TASKS = `${PERSON_WILL} send review approve confirm check`;
const PERSON_TO_DO = `[ \\t]+to[ \\t]+(?:${alternation(PERSON_TASKS)})(?![\\p{L}\\p{N}])`;
const PERSON_TO = new RegExp(`^${PERSON_TO_DO}`, "u");
/** A person's verb after a name (`PERSON_DID`: right after the text read). */
const PERSON_ACT = `[ \\t]+(?:${alternation(PERSON_VERBS)}|will[ \\t]+(?:${alternation(PERSON_WILL)}))(?![\\p{L}\\p{N}])`;
const PERSON_DID = new RegExp(`^${PERSON_ACT}`, "u");
/**
 * A first name in lower case before a person's verb, what a note assigns them or their birth, as
 * chats write it (`priya said the fee is fine`, `ok so tom asked`, `anna kowalski will call`,
 * `priya to send the list`, `vladimir petrov, dob 1971-05-02`), after a relative or someone close
 * (`my cousin ravi`, `his wife anna`) or a note's `by` (`approved by raj`): a first name of the
 * lexicon that is no everyday word in any sense (`will said`, `mark asked`, `my friend will help`,
 * `approved by email` stay), not after an article (`the server said`), with a surname that is none
 * either, or the second of two words (`so priya said`).
 */
// Found from the verb back: a pattern that read the words first and the verb after them was tried
// at every word of a text, the costliest name pattern over prose.
const PERSON_ACT_AFTER_WORD = new RegExp(
  `(?<=\\p{Ll})(?:${PERSON_ACT}|${PERSON_TO_DO}|,?[ \\t]+(?:dob|born)(?![\\p{L}\\p{N}]))`,
  "gu",
);
const LOWER_WORDS_BEFORE = new RegExp(
  `(?<![\\p{L}\\p{N}'’@#/_.-])(${LOWER_NAME_WORD})(?:[ \\t]+(${LOWER_NAME_WORD}))?$`,
  "u",
);
/** Relatives and those close to someone, whose name follows them (`my cousin ravi`). */
const CLOSE_ONES =
  "cousin brother sister wife husband son daughter mother father mom mum dad friend colleague coworker co-worker boss manager partner fiancé fiancée fiance fiancee uncle aunt nephew niece grandma grandpa grandmother grandfather grandson granddaughter neighbor neighbour roommate flatmate girlfriend boyfriend";
const LOWER_AFTER_CLOSE_ONE = new RegExp(
  `(?<![\\p{L}\\p{N}])(?:[Mm]y|[Hh]is|[Hh]er|[Oo]ur|[Tt]heir|[Yy]our)[ \\t]+(?:${alternation(CLOSE_ONES)})(?:[ \\t]*,)?[ \\t]+(${LOWER_NAME_WORD})(?:[ \\t]+(${LOWER_NAME_WORD}))?`,
  "dgu",
);
/** Who did what a note records, after `by` (`approved by raj`, `signed off by anna kowalski`). */
const NOTED_BY =
  "approved signed reviewed checked verified submitted requested prepared authorised authorized initiated created confirmed sent paid raised opened closed assigned escalated";
const LOWER_AFTER_BY = new RegExp(
  `(?<![\\p{L}\\p{N}])(?:${inTheirCases(NOTED_BY, { capitals: false })})(?:[ \\t]+off)?[ \\t]+by[ \\t]+(${LOWER_NAME_WORD})(?:[ \\t]+(${LOWER_NAME_WORD}))?`,
  "dgu",
);
/** A determiner or an article: a word after one names a thing (`the server said`). */
function thingWord(w: string | undefined): boolean {
  return (
    w !== undefined && (DETERMINERS.has(w.toLowerCase()) || THING_ARTICLES.has(w.toLowerCase()))
  );
}
/**
 * A first name in lower case that is no everyday word in any sense: SCOWL's, the lexicon's names
 * that are words (`mark`, `server`), places.
 */
function lowerFirstName(w: string): boolean {
  return writtenFirstName(w) && !everyday(w) && !LONE_EVERYDAY_NAMES.has(capitalised(w));
}
function lowerNamesBeforeVerb(text: string): PiiSpan[] {
  const out: PiiSpan[] = [];
  for (const act of execAll(PERSON_ACT_AFTER_WORD, text)) {
    const from = Math.max(0, act.index - 80);
    const m = LOWER_WORDS_BEFORE.exec(text.slice(from, act.index));
    // Words longer than the window are no name's.
    if (!m || (m.index === 0 && from > 0)) continue;
    const [, first, second] = m;
    const start = from + m.index;
    const prior = WORD_BEFORE.exec(text.slice(Math.max(0, start - 20), start))?.[1];
    let at: number;
    if (lowerFirstName(first!) && !thingWord(prior)) {
      at = start;
      out.push(span("NAME", at, second !== undefined && plainSurname(second) ? m[0] : first!));
    } else if (second !== undefined && lowerFirstName(second) && !thingWord(first)) {
      at = act.index - second.length;
      out.push(span("NAME", at, second));
    } else continue;
    // The first of a pair who did it together (`tom and priya said`).
    const paired = LOWER_PAIRED.exec(text.slice(Math.max(0, at - 40), at));
    if (paired && lowerFirstName(paired[1]!))
      out.push(span("NAME", at - paired[0].length, paired[1]!));
  }
  for (const m of [...execAll(LOWER_AFTER_CLOSE_ONE, text), ...execAll(LOWER_AFTER_BY, text)]) {
    const [, first, second] = m;
    if (!lowerFirstName(first!)) continue;
    const start = m.indices![1]![0];
    const whole = second !== undefined && plainSurname(second);
    out.push(span("NAME", start, whole ? text.slice(start, m.index + m[0].length) : first!));
  }
  return out;
}
/** A word in lower case and the conjunction that pairs it with the next name. */
const LOWER_PAIRED = /(?<![\p{L}\p{N}'’@#/_.-])(\p{Ll}[\p{Ll}'’]+)[ \t]+(?:and|&)[ \t]+$/u;
/** The last join of a list of names, a conjunction (`Fatima and Omar`, `Anna, Tom and Priya`). */
const PAIR_JOIN = new RegExp(`^,?[ \\t]+(?:${LIST_CONJUNCTIONS})[ \\t]+$`, "u");
const COMMA_JOIN = /^,[ \t]*$/u;
const AMPERSAND_JOIN = /^[ \t]*&[ \t]*$/u;
/** A list's word and its join before (Kessler, …), not a greeting before its comma (Love, Anna). */
function listedBefore(before: string): boolean {
  const word = LIST_BEFORE.exec(before)?.[1];
  return word !== undefined && !GREETING_WORDS.has(word.toLowerCase());
}
/**
 * First names that are also abbreviations with their dot (`Ed.` an edition, `Pat.` a patent,
 * `Jan.` January, `Art.` an article, `Max.` a maximum, `Gen.` a general, `Val.` a value).
 */
const ABBREVIATING_NAMES = words("Ed Pat Jan Art Max Gen Val Aug Jun Jul Mar Al Di Vic Fran Sal");
function loneFirstNames(text: string): PiiSpan[] {
  const found: { at: number; word: string; afterListed: boolean; listed: boolean }[] = [];
  for (const m of execAll(LONE_FIRST_NAME, text)) {
    const word = m[1]!.replace(/['’]s$/u, "");
    // Most capitalised words are none of the lexicon's: plain letters are looked up as they are.
    if (ASCII_WORD.test(word) && !FIRST_NAMES.has(word.toLowerCase())) continue;
    if (!writtenFirstName(word) || LONE_NOT_NAMES.has(word) || NAME_LABEL_WORDS.has(word)) continue;
    // A month as its language writes it (bis Mai 2026, am 3. Juli): German's are capitalised.
    if (MONTH_WORD.test(word)) continue;
    const end = m.index + word.length;
    const before = text.slice(Math.max(0, m.index - 40), m.index);
    const after = text.slice(end, end + 40);
    if (/^[ \t]\p{Lu}/u.test(after)) continue;
    // An abbreviation (Jur. 12.03.2020, 2nd Ed. with notes), or a table cell's whole value, which
    // the tables' rules read. Before a word in lower case a first name's dot ends a sentence as
    // chats write them (`I spoke to Anna. she said ok`, `with Tom and Anna. cc Tom`).
    if (
      /^\.[ \t]*\p{N}/u.test(after) ||
      (ABBREVIATING_NAMES.has(word) && /^\.[ \t]*\p{Ll}/u.test(after)) ||
      (before.endsWith(">") && after.startsWith("<"))
    )
      continue;
    const prior = WORD_BEFORE.exec(before);
    // A capitalised word before it is of the same name or place (Victoria Station is read whole
    // elsewhere), unless it is an everyday word, a greeting or a request's word of the six
    // languages opening the sentence (Ask Priya, Thanks Tom, Danke Erika, Bitte Erika anrufen).
    if (
      prior &&
      /^\p{Lu}/u.test(prior[1]!) &&
      !(
        (isCommonWord(prior[1]!) || notName(prior[1]!) || addressing(prior[1]!)) &&
        SENTENCE_START.test(before.slice(0, prior.index))
      ) &&
      !POLITE_REQUEST.test(before)
    )
      continue;
    // Quoted alone it is a string's or an identifier's word as often (`tap("Trace", …)`).
    if (
      LONE_EVERYDAY_NAMES.has(word) &&
      (QUOTED.test(before + m[1]! + after.slice(0, 1)) || readAsWords(text, m.index, end))
    )
      continue;
    // After an article or a demonstrative the word names a thing (the Jordan office, this Grace
    // period); after a preposition of place, a place (in Victoria, am Kai), unless it is a
    // person's (in John's office) or a request brings the person in (Llama a Sofía).
    const lowerPrior = prior?.[1]!.toLowerCase();
    const addressed = lowerPrior !== undefined && PERSONAL_A.test(before);
    if (lowerPrior && DETERMINERS.has(lowerPrior) && !addressed) continue;
    if (
      lowerPrior &&
      LONE_PLACE_BEFORE.has(lowerPrior) &&
      word === m[1] &&
      !BRING_IN.test(before) &&
      !addressed
    )
      continue;
    if (notAPerson(text, m.index, end)) continue;
    const afterListed = listedBefore(before);
    found.push({ at: m.index, word, afterListed, listed: afterListed || LIST_AFTER.test(after) });
  }
  // In a list of capitalised words, as often a firm's partners as people (Kessler, Hamill and
  // Nolan; Guyot, Pierre et Fils): many surnames are also first names. A list of first names alone,
  // closed by a conjunction or by commas only, is of people (Meeting with Fatima and Omar; Anna,
  // Tom, Priya will attend), as a firm of such partners reads too (Guyot et Pierre, tél.), and two
  // joined by an ampersand, but one name twice (Priya & Tom approved; Ben & Jerry's reads so too,
  // Johnson & Johnson not); firms close their partners' longer list with a conjunction or an
  // ampersand (Kessler, Hamill & Nolan).
  const out: PiiSpan[] = [];
  for (let k = 0; k < found.length; k++) {
    const here = found[k]!;
    if (!here.listed) {
      out.push(span("NAME", here.at, here.word));
      continue;
    }
    // The list's first word: its words up to the one after the conjunction, each a first name.
    if (here.afterListed) continue;
    let last = k;
    let closed = false;
    while (!closed && last + 1 < found.length) {
      const join = text.slice(found[last]!.at + found[last]!.word.length, found[last + 1]!.at);
      closed =
        PAIR_JOIN.test(join) ||
        (last === k && AMPERSAND_JOIN.test(join) && found[k + 1]!.word !== here.word);
      if (!closed && !COMMA_JOIN.test(join)) break;
      last++;
    }
    const end = found[last]!.at + found[last]!.word.length;
    if ((!closed && last === k) || LIST_AFTER.test(text.slice(end, end + 40))) continue;
    for (const member of found.slice(k, last + 1)) out.push(span("NAME", member.at, member.word));
    k = last;
  }
  return out;
}

/**
 * A name in Chinese, Japanese or Korean writing after a person's label or a greeting, in any of the
 * languages' labels or theirs (`Payee: 田中太郎`, `Beneficiary: 김민준`, `收款人：王伟`, `受取人：田中
 * 太郎様`): these scripts have no capitals to tell a name by and write it without spaces, so the
 * label and the value's length do: two to four Han or Hangul characters, a Japanese surname and
 * given name with kana, or a name in katakana, the whole of the value: up to a mark, the line's
 * end or an honorific (様, さん, 殿, 先生, 씨, 님, 女士, 小姐), not a sentence's first word (`Name:
 * 설정 화면을 여세요`). A firm's, a bank's or a department's word in the value makes it none
 * (`Payee: 阿里巴巴集团`, `受取人：株式会社山田`).
 */
const CJK_NAME_LABELS =
  "Sender|Payer|Remitter|Sent by|姓名|氏名|名前|お名前|이름|성명|收款人|收款方|付款人|受益人|受取人|振込先|名義人|口座名義|예금주|수취인|받는 사람|보내는 사람|签名|署名|联系人|担当者|담당자";
const CJK_CHAR = `[\\p{sc=Han}${KANA}]`;
/**
 * Korean writes a label's particle on it (`이름과 대/소문자`, `이름이 있지만`, `이름입니다`): a name in
 * Hangul starts after the label's mark or a space.
 */
const HANGUL_AFTER_MARK = "(?<=[:：,、 \\t\\u3000])";
/** The honorifics after a name, which start no name (`担当者様へ`: the label's, then `様`). */
const CJK_HONORIFICS = "様|さん|殿|先生|씨|님|女士|小姐";
const CJK_LABELLED_NAME = new RegExp(
  `(?<![\\p{L}\\p{N}])(?:${NAME_LABELS}|${CJK_NAME_LABELS})[ \\t]?[:：,、]?[ \\t\\u3000]{0,2}(?!${CJK_HONORIFICS})((?:${HANGUL_AFTER_MARK}\\p{sc=Hangul}{1,2} \\p{sc=Hangul}{1,3}|\\p{sc=Han}{1,3}[ \\u3000]${CJK_CHAR}{1,4}|\\p{sc=Han}{2,4}|${HANGUL_AFTER_MARK}\\p{sc=Hangul}{2,4}|\\p{sc=Han}{1,3}[${KANA}]{1,4}|[${KATAKANA}]{2,8}(?:[・ \\u3000][${KATAKANA}]{2,8})?))(?=[ \\u3000]?(?:${CJK_HONORIFICS})|[ \\t]{0,2}(?:[,，、;；()（）\\[\\]<>/|.。!！?？]|\\r?\\n|$))`,
  "gu",
);
const CJK_ORGANISATION =
  /公司|集团|集團|株式会社|有限|銀行|银行|会社|회사|은행|商店|大学|大學|学校|協会|协会|部门|部門|事務所|재단|센터|센타/u;
/** A character every value of `CJK_LABELLED_NAME` holds: without one the label scan is skipped. */
const CJK_NAME_CHAR = new RegExp(`[\\p{sc=Han}\\p{sc=Hangul}${KATAKANA}]`, "u");
function cjkLabelledNames(text: string): PiiSpan[] {
  const out: PiiSpan[] = [];
  // The label alternation is tried at every position: most texts hold no CJK character at all.
  if (!CJK_NAME_CHAR.test(text)) return out;
  for (const m of execAll(CJK_LABELLED_NAME, text)) {
    const value = m[1]!;
    const end = m.index + m[0].length;
    if (CJK_ORGANISATION.test(value + text.slice(end, end + 8))) continue;
    out.push(span("NAME", end - value.length, value));
  }
  return out;
}

/**
 * A Chinese name in running text between what brings a person in and what is theirs or done to
 * them (`从张伟的账户转出`, `到李娜的钱包`, `给王小明转账`, `向陈大文付款`): a surname of the list, then one or
 * two characters; a word that starts on a surname's character is none (`到钱包的地址`, `白名单的地址`).
 */
/**
 * What brings a person in before a Chinese name: a preposition, a clause's start, or a word of time
 * or a conjunction opening one (`于是张先生`, `昨天张伟打电话`, `经过张伟同意`).
 */
const HAN_NAME_START = `[从向给到和与跟把对替由於于]|^|[\\s，。、：:,;；!！?？"“'‘(（]|于是|於是|然后|然後|但是|所以|因为|因為|随后|隨後|后来|後來|今天|昨天|明天|刚才|剛才|今日|昨日|经过|經過`;
const HAN_NAME_IN_TEXT = new RegExp(
  `(?:${HAN_NAME_START})([${HAN_SURNAMES}]\\p{sc=Han}{1,2}?)(?=的(?:账户|帐户|賬戶|帳戶|钱包|錢包|银行卡|銀行卡|卡号|卡號|地址|电话|電話|手机|手機|邮箱|郵箱|护照|護照|身份证|身份證)|转账|轉賬|轉帳|汇款|匯款|付款|打款)`,
  "gu",
);
/**
 * A Chinese name before what only a person does, where a clause opens, a preposition brings them
 * in or their role is said before (`张伟说合同没问题`, `昨天张伟打电话给我`, `我和张伟见面了`,
 * `区域经理王强说`, `张伟表示同意`, `经过李娜同意`): said (not `说明`, `说法`), phoned, signed, replied, met,
 * contacted, talked, stated, thought, asked for, agreed, pointed out.
 */
const HAN_ROLES_BEFORE =
  "经理|經理|律师|律師|老师|老師|医生|醫生|教授|主任|总监|總監|同事|客户|客戶|朋友";
const HAN_NAME_BEFORE_ACT = new RegExp(
  `(?:${HAN_NAME_START}|${HAN_ROLES_BEFORE})([${HAN_SURNAMES}]\\p{sc=Han}{1,2}?)(?=说(?![明法服])|說(?![明法服])|打了?电话|打了?電話|签了?字|簽了?字|回复了?我|回覆了?我|答应了?|答應了?|见了?面|見了?面|联系了?我|聯繫了?我|通了?电话|通了?電話|谈过|談過|商量|表示|认为|認為|要求|同意|指出)`,
  "gu",
);
/** A Chinese title after a surname or a name: a person's (`先生`, `女士`), a role's (`经理`, `律师`, `王总`). */
const HAN_TITLES =
  "先生|女士|小姐|经理|經理|总监|總監|律师|律師|老师|老師|医生|醫生|教授|博士|主任|总(?![是共之的体體部结結计計额額数數量和价價])|總(?![是共之的体體部结結计計额額数數量和价價])";
const HAN_TITLE_IN = new RegExp(HAN_TITLES, "u");
/**
 * A Chinese name or surname before a title after what brings a person in (`请联系张伟先生`,
 * `给王先生转账`, `公司的李女士`, `感谢李经理的帮助`, `王总已经签字`): a verb of contact or thanks, a
 * preposition, `的`, or a clause's start.
 */
const HAN_NAME_BEFORE_HONORIFIC = new RegExp(
  `(?:${HAN_NAME_START}|[问找的]|联系|聯繫|聯絡|告诉|告訴|通知|感谢|感謝|谢谢|謝謝)([${HAN_SURNAMES}]\\p{sc=Han}{0,2}?)(?=${HAN_TITLES})`,
  "gu",
);
/**
 * Words that start on a surname's character and name no one: a payment's and everyday words,
 * places, brands (`钱包`, wallet, starts on the surname `钱`; `白名单`, `金库`, `余额`, `马上`, `莫斯科`).
 */
const HAN_NOT_NAMES = words(
  "钱包 錢包 白名单 白名單 黑名单 黑名單 金库 金庫 金额 金額 余额 餘額 高管 程序 方案 方面 付款 付費 付费 欧盟 歐盟 黄金 黃金 石油 万一 萬一 马上 馬上 于是 任何 任务 任務 向量 常用 平台 江湖 龙头 龍頭 周边 週邊 段落 史上 雷达 雷達 孙子 孫子 包括 齐全 齊全 温度 溫度 康复 易于 甘肃 宋体 石家庄 武汉 武漢 金融 金融机构 韩国 韓國 梁山 汤圆 方法 高级 高級 高速 陈旧 陳舊 黄色 黃色 白色 金色 蔡司 董事 董事会 董事長 董事长 严格 嚴格 严重 嚴重 孟加拉 欧洲 歐洲 欧元 歐元 戴尔 莫斯科 洪水 童年 常规 常規 贺卡 賀卡 万科 萬科 钱款 錢款 程式 罗马 羅馬 雷电 曾经 曾經 任意 许多 許多 许可 許可 何时 何時 谢谢 謝謝 项目 項目 区域 區域 车间 車間 班主 常务 常務 公司 文件 安全 于是 於是 江西 金牌 高层 高層",
);
/**
 * A Japanese name before an honorific in running text (`田中さんに送金`, `山田太郎様の口座`): two to
 * four Han characters after a character of no other name's script; a role's or a household's word
 * is none (`店長さん`, `担当者様`, `八百屋さん`, `ご家族様`, `取引先様`).
 */
const JAPANESE_NAME_IN_TEXT =
  /(?<![\p{sc=Han}々ー\p{sc=Katakana}])(\p{sc=Han}[\p{sc=Han}々]{1,3})(?=さん|様|さま|氏|くん|ちゃん)/gu;
const JAPANESE_ROLE_END = /[屋者長員手家主師士官客族親先工]$/u;
const JAPANESE_NOT_NAMES = words(
  "学生 先生 院生 研修生 留学生 担当 御社 貴社 弊社 当社 得意 恋人 友人 主人 個人 本人 外国人 仲人 婦人 夫人 近所 隣人 各位 会社 法人 団体 店舗 病院 銀行 役所 受取人 名義人 代理人 保証人 相続人 申込人 請求人 管理人 差出人 届出人 依頼人 支払人 送金人 受益人 契約人",
);
/**
 * A Korean name of three syllables before an honorific in running text (`김민준 씨에게`, `박서연님의 계좌`):
 * a surname of the list, then two syllables of given names (`마케팅님`, `홍보팀 님` are none); a role's
 * word is none (`변호사님`, `이사장님`, `신청자님`, `정회원님`).
 */
const KOREAN_NAME_IN_TEXT = new RegExp(
  `(?<![\\p{sc=Hangul}])([${HANGUL_SURNAMES}][${HANGUL_GIVEN_SYLLABLES}]{2})(?=[ ]?(?:씨|님))`,
  "gu",
);
const KOREAN_ROLE_END = /[사장관생]$/u;
const KOREAN_NOT_NAMES = words(
  "이용자 구매자 신청자 정회원 연구원 공무원 은행원 조교수 부교수 정교수 전문가 주주님 고객사 하느님 하나님",
);
/** A word of `HAN_NOT_NAMES`, whole or as the value's first two characters (`钱包的`). */
function hanNotName(value: string): boolean {
  return HAN_NOT_NAMES.has(value) || HAN_NOT_NAMES.has(value.slice(0, 2));
}
/**
 * The name in a value that starts on such a word, where the word opens the clause before it
 * (`于是张` before `先生`: `于` is a surname too, and the match took the word): what follows the word
 * if it starts on a surname, or nothing.
 */
function hanNameAfterWord(value: string): string {
  const rest = HAN_NOT_NAMES.has(value) ? "" : value.slice(2);
  return rest && HAN_SURNAMES.includes(rest[0]!) ? rest : "";
}
function cjkNamesInText(text: string): PiiSpan[] {
  const out: PiiSpan[] = [];
  if (!CJK_NAME_CHAR.test(text)) return out;
  for (const m of execAll(HAN_NAME_IN_TEXT, text)) {
    const value = m[1]!;
    if (hanNotName(value)) continue;
    // A surname and its honorific (`给王先生转账`): the rule below takes the surname.
    if (/先生|女士|小姐/u.test(value)) continue;
    out.push(span("NAME", m.index + m[0].length - value.length, value));
  }
  for (const m of execAll(HAN_NAME_BEFORE_HONORIFIC, text)) {
    let value = m[1]!;
    const end = m.index + m[0].length;
    // A surname's character alone starts a role's word as often (`班主任`, a class teacher).
    if (hanNotName(value.length > 1 ? value : text.slice(end - 1, end + 1)))
      value = hanNameAfterWord(value);
    if (value) out.push(span("NAME", end - value.length, value));
  }
  for (const m of execAll(HAN_NAME_BEFORE_ACT, text)) {
    let value = m[1]!;
    if (hanNotName(value)) value = hanNameAfterWord(value);
    // A surname and its title (`于是张先生打了电话`): the rule above takes the surname.
    if (value && !HAN_TITLE_IN.test(value))
      out.push(span("NAME", m.index + m[0].length - value.length, value));
  }
  for (const m of execAll(JAPANESE_NAME_IN_TEXT, text)) {
    const value = m[1]!;
    if (JAPANESE_ROLE_END.test(value) || JAPANESE_NOT_NAMES.has(value)) continue;
    if (CJK_ORGANISATION.test(value)) continue;
    out.push(span("NAME", m.index, value));
  }
  for (const m of execAll(KOREAN_NAME_IN_TEXT, text)) {
    const value = m[1]!;
    if (KOREAN_ROLE_END.test(value) || KOREAN_NOT_NAMES.has(value)) continue;
    out.push(span("NAME", m.index, value));
  }
  return out;
}

/**
 * An Irish surname of `O'` alone or after one capitalised word, its given name (`Spoke with
 * O'Brien`, `Conan O'Brien called`): `O'` and a capitalised word is a surname's form and no
 * English word's; the given name need not be in the lexicon. Not before a capitalised word (`O'Hare
 * Airport`, `O'Reilly Media`: a place or firm named after one), in a list of capitalised words (a
 * firm's partners) nor after an article (`an O'Reilly book`).
 */
const GAELIC_SURNAME =
  /(?<![\p{L}\p{N}'’.@#/_=<-])(?:(\p{Lu}\p{Ll}+)[ \t]+)?(O['’]\p{Lu}\p{Ll}{2,}(?:-\p{Lu}\p{Ll}+)?)(?![\p{L}\p{N}@_/-])/gu;
function gaelicSurnames(text: string): PiiSpan[] {
  const out: PiiSpan[] = [];
  if (!text.includes("O'") && !text.includes("O’")) return out;
  for (const m of execAll(GAELIC_SURNAME, text)) {
    const end = m.index + m[0].length;
    const after = text.slice(end, end + 40);
    // In a list of capitalised words, a firm's partners as often (Ritchie, Osinski and O'Reilly).
    if (/^[ \t]+\p{Lu}/u.test(after) || LIST_AFTER.test(after)) continue;
    if (listedBefore(text.slice(Math.max(0, m.index - 40), m.index))) continue;
    const given = m[1];
    const prior = WORD_BEFORE.exec(text.slice(Math.max(0, m.index - 20), m.index))?.[1];
    if (thingWord(given ?? prior)) continue;
    const person =
      given !== undefined &&
      !isCommonWord(given) &&
      !notName(given) &&
      !HONORIFIC.test(given) &&
      !GREETING_WORDS.has(given.toLowerCase());
    out.push(person ? span("NAME", m.index, m[0]) : span("NAME", end - m[2]!.length, m[2]!));
  }
  return out;
}

/**
 * A plain first name, then a surname that is no everyday word either, after a greeting or sign-off
 * in lower case.
 */
function casualNames(text: string): PiiSpan[] {
  const out: PiiSpan[] = [];
  for (const m of execAll(CASUAL_NAME, text)) {
    const [first, last] = splitOn(m[1]!, BLANK);
    if (!plainFirstName(first!)) continue;
    const whole = last && plainSurname(last);
    out.push(span("NAME", m.index + m[0].lastIndexOf(m[1]!), whole ? m[1]! : first!));
  }
  return out;
}

/**
 * Labels of a person in notes, tickets and reviews, read before a name in lower case and before a
 * capitalised first name alone (`Owner: Tom`), which no rule for capitals takes: a longer
 * capitalised name after them is found as anywhere else.
 */
const LOWER_NAME_LABELS =
  "Cc|Bcc|Author|Owner|Reviewer|Reviewed by|Requester|Requestor|Requested by|Submitted by|Assignee|Assigned to|Approver|Checked by|Verified by|Applicant";

/**
 * Words that go on a note's line after a person's name (`signed: tom for the board`, `witness: anna
 * kowalski and…`, `reviewed by: j. smith on 3 May`, `signed: tom who…`): prepositions, `and` and
 * `who`, never a surname.
 */
const LABELLED_NEXT = "for and on at from of per with via who";

/**
 * One to four words where a name may be written in lower case or capitalised, the first maybe an
 * initial with its dot, or up to three (`j. smith`, `j. r. smith`, `j.r. smith`; a first name's
 * dot is the sentence's: `signed: tom.`), a surname's particles not counted among them (`maria de
 * la cruz`).
 */
const NAME_VALUE = `(?:\\p{LC}\\.(?:[ \\t]?\\p{LC}\\.){0,2}|\\p{LC}[\\p{LC}'’-]*)(?:[ \\t](?:${PARTICLE}[ \\t])?\\p{LC}[\\p{LC}'’-]*){0,3}`;

/** A label's colon, then its value: which of its words are a name is read after (`nameWords`). */
const LABEL_VALUE = `[ \\t]?:[ \\t]*(${NAME_VALUE})`;

/** The labels of a person's name in any case, but the bare `name` (below). */
const PERSON_LABELS = [
  ...NAME_LABELS.split("|").filter((label) => label !== "Name"),
  LOWER_NAME_LABELS,
];
/**
 * A label of a person, or a bare `name`, and its value to the last whole word, whatever follows;
 * where a name ends in it is read after the match (`NAME_VALUE_END`, `PERSON_VALUE_END`).
 */
const LABELLED_VALUE = new RegExp(
  `(?<![\\p{L}\\p{N}])(?:(Name)|${PERSON_LABELS.join("|")})${LABEL_VALUE}(?![\\p{L}\\p{N}'’-])`,
  "giu",
);
/**
 * Where a value ends as a name does (`signed: j. smith`, `signed: tom, on behalf of…`): its line or
 * clause, or what sets a name apart (`lowerNameEnd`). A bare `name:` labels workflows, teams and
 * things as often as people, so its value must end there (`name: jane doe and the team` stays); a
 * person's label's value may also go on into its line with a preposition (`signed: tom for the
 * board`).
 */
const NAME_VALUE_END = new RegExp(lowerNameEnd(",;.", ",.;"), "iuy");
const PERSON_VALUE_END = new RegExp(lowerNameEnd(",;.", ",.;", LABELLED_NEXT), "iuy");
/**
 * Articles before a lower-case `mr`, `dr` that make it a thing's abbreviation (the mr, an mr):
 * narrower than `DETERMINERS`, whose possessives lead a person as often (`our mrs white`).
 */
const THING_ARTICLES = words("the a an this that each every which");
/**
 * Where a titled name in lower case ends: as after a person's label, or before a verb that tells
 * what the person did or will do (`mr brown said`, `dr green will call`, `mrs white has signed`):
 * the title says a person is named, so also the verbs a firm does too, and the auxiliaries.
 */
const TITLED_VALUE_END = new RegExp(
  lowerNameEnd(
    ",;.",
    ",.;",
    `${LABELLED_NEXT} ${PERSON_VERBS} called calls confirmed signed approved sent will would has had is was can could should must`,
  ),
  "iuy",
);

/** Words that end a note's line after a name and are no surname (`owner: tom today`). */
const TRAILING_WORDS = words(
  `today tomorrow yesterday tonight now later soon again too also only here there ${LABELLED_NEXT}`,
);

/**
 * The last word of a name's value in lower case, where a surname that is also an everyday word
 * stands (`signed: anna baker`, `witness: tom brown for the board`, `signed: j. king`): any word
 * of two letters or more but a function word, a form's instruction or a word that ends a note's
 * line.
 */
function lastSurname(word: string): boolean {
  return !(
    word.length < 2 ||
    HEADING_WORDS.has(word.toUpperCase()) ||
    FORM_INSTRUCTIONS.has(word) ||
    TRAILING_WORDS.has(word) ||
    notName(word) ||
    PARTICLE_WORD.test(word)
  );
}

/**
 * A person's role, then its verb, in a sentence (`the beneficiary is jane doe`, `the payee will be
 * tom`), read as the role's label with its colon is, the whole value a name's.
 */
const ROLE_IS_VALUE = new RegExp(
  `(?<![\\p{L}\\p{N}])(?:${PERSON_ROLES}|owner|assignee)[ \\t]+(?:is|was|will be)[ \\t]+(${NAME_VALUE})(?![\\p{L}\\p{N}'’-])`,
  "giu",
);

/**
 * A name in lower case after its label (`signed: tom`, `witness: j. smith`, `signed: anna baker`;
 * `signed: see above` and `attn: accounts payable` stay), read up to where the value ends as a
 * name does and, after a person's label, also to its last word where prose goes on after the name
 * with nothing that ends it (`owner: anna kowalski finance team lead`).
 */
function lowerLabelledNames(text: string): PiiSpan[] {
  const out: PiiSpan[] = [];
  for (const m of execAll(LABELLED_VALUE, text)) {
    const bare = m[1] !== undefined;
    const at = m.index + m[0].length - m[2]!.length;
    out.push(
      ...valueNames(text, at, m[2]!, bare ? NAME_VALUE_END : PERSON_VALUE_END, {
        prose: !bare,
        lastSurname: true,
      }),
    );
  }
  for (const m of execAll(ROLE_IS_VALUE, text)) {
    const at = m.index + m[0].length - m[1]!.length;
    out.push(
      ...valueNames(text, at, m[1]!, PERSON_VALUE_END, {
        prose: false,
        lastSurname: true,
        whole: true,
      }),
    );
  }
  return out;
}

/**
 * The name at the start of a value at `at` (`NAME_VALUE`): read up to the last of its words where
 * `valueEnd` holds, and with `prose` also to its last word whatever follows (`nameWords`); with
 * `lastSurname`, the last word where the value ends may be a surname that is an everyday word;
 * with `whole`, every word before that end must be the name's (`this is jane.`, not `this is
 * amber alert`); with `named`, a name surely follows, and its first name may be an everyday word
 * (`je m'appelle jean`).
 */
function valueNames(
  text: string,
  at: number,
  value: string,
  valueEnd: RegExp,
  reading: { prose: boolean; lastSurname: boolean; whole?: boolean; named?: boolean },
): PiiSpan[] {
  const out: PiiSpan[] = [];
  const words = splitOn(value, BLANK);
  const ends = wordEnds(words);
  // The most words before an end, all of them a name's with `whole`.
  let ended = 0;
  for (let k = words.length; k > 0 && !ended; k--) {
    valueEnd.lastIndex = at + ends[k - 1]!;
    if (valueEnd.test(text) && (!reading.whole || nameWords(words.slice(0, k), false) === k))
      ended = k;
  }
  const readings = ended ? [words.slice(0, ended)] : [];
  if (reading.prose && ended < words.length) readings.push(words);
  for (const read of readings) {
    const kept = nameWords(read, reading.lastSurname && read.length === ended, reading.named);
    // A capitalised value reaches here too: a firm's name is none (`Payee: Ernst & Young GmbH`).
    if (!kept || companyAfter(text, at + ends[kept - 1]!)) continue;
    out.push(span("NAME", at, value.slice(0, ends[kept - 1])));
    // A second person's name after a conjunction where the value ends (`signed: tom and anna`,
    // `unterschrieben: tom und anna kowalski`): all of the value's words after it a name's, none
    // an everyday word (`name: tom and jerry show` stays a title's).
    const rest = read.slice(kept + 1);
    if (
      read.length === ended &&
      rest.length &&
      LIST_CONJUNCTION_WORD.test(read[kept]!) &&
      nameWords(rest, false, reading.named) === rest.length
    ) {
      const from = at + ends[kept]! + 1;
      out.push(span("NAME", from, text.slice(from, at + ends[ended - 1]!)));
    }
  }
  return out;
}

/**
 * How people introduce themselves or another, in the six languages and Dutch, Portuguese, Russian
 * and Greek (`my name is jane`, `her name is anna kowalski`, `je m'appelle marie dupont`, `il
 * s'appelle paul`, `меня зовут Иван`): verbs that only name, after
 * which a name may go on into prose (`my name is anna kowalski and I…`); and in English `i'm`, `i
 * am` and `this is`, which lead other words as often, so the name must end its clause or go on
 * with a preposition or `here`, `speaking`, `calling` (`hi, this is jane from accounts`, `i'm tom.`;
 * `this is amber alert` stays). `je suis`, `ich bin`, `soy`, `sono` lead adjectives as often, and
 * are left out.
 */
const NAMING_VERBS = [
  "(?:my|his|her|their) name is|(?:my|his|her|their) name['’]s|call me|(?:he|she)(?: is|['’]s) called",
  "je m['’]appelle|(?:il|elle) s['’]appelle|(?:mon|son) nom est",
  "ich hei(?:ß|ss)e|(?:er|sie) hei(?:ß|ss)t|(?:mein|sein|ihr) name ist",
  "me llamo|se llama|(?:mi|su) nombre es",
  "mi chiamo|si chiama|il (?:mio|suo) nome è",
  "(?:mijn|zijn|haar) naam is|ik heet|(?:hij|zij) heet",
  "meu nome é|o nome del[ea] é|me chamo|se chama|chamo-me|chama-se",
  "(?:меня|его|её|ее) зовут",
  "με λένε|(?:τον|τη|την) λένε|ονομάζομαι|ονομάζεται",
].join("|");
const INTRODUCED_NAME = new RegExp(
  `(?<![\\p{L}\\p{N}'’-])(?:(${NAMING_VERBS})|i['’]m|i am|this is)[ \\t]+(${NAME_VALUE})(?![\\p{L}\\p{N}'’-])`,
  "giu",
);
const INTRODUCED_END = new RegExp(
  lowerNameEnd(",;.!?", ",.;!?", `${LABELLED_NEXT} here speaking calling`),
  "iuy",
);

/** The name after an introduction, in any case (`nameWords`). */
function introducedNames(text: string): PiiSpan[] {
  const out: PiiSpan[] = [];
  for (const m of execAll(INTRODUCED_NAME, text)) {
    const at = m.index + m[0].length - m[2]!.length;
    out.push(
      ...valueNames(text, at, m[2]!, INTRODUCED_END, {
        prose: m[1] !== undefined,
        lastSurname: false,
        whole: m[1] === undefined,
        named: m[1] !== undefined,
      }),
    );
  }
  return out;
}

/**
 * An initial leading a name: a letter in lower case, its dot optional (`j smith`, `j. smith`), or a
 * capital with its dot (`J. Smith`); a capital alone is as often an article or a grade (`Owner: A
 * Customer`, `I'm A student`).
 */
const INITIAL = /^(?:\p{Ll}\.?|\p{Lu}\.)$/u;
/** Initials written together (`j.r.`, `J.R.R.`), one word of a value. */
const JOINED_INITIALS = /^(?:\p{L}\.){2,3}$/u;
const DOTTED_INITIAL = /^\p{L}\.$/u;

/**
 * How many of a labelled or introduced value's words are a name: a plain first name (after a verb
 * that only names, any first name of the lexicon: `named`), or an initial before a surname, then
 * the words after it up to one that is an everyday or other word, the value's last word kept if it
 * may be a surname and the value `ends` where a name does; 0 for none.
 */
function nameWords(words: readonly string[], ends: boolean, named = false): number {
  // A place whose words read as a first name and a surname (`owner: hong kong office`) is no
  // name; a name before it ends there (`owner: tom hong kong`).
  const place = eastAsianPlaceWord(words);
  if (place === 0) return 0;
  if (place > 0) return nameWords(words.slice(0, place), true, named);
  const initial = INITIAL.test(words[0]!) || JOINED_INITIALS.test(words[0]!);
  // A first name that leads places before more words is the place's (`Attn: River Plate`).
  const first =
    !notNameIn(words, 0) && (named ? anyFirstName(words[0]!) : plainFirstName(words[0]!));
  if (!initial && !first) {
    // A romanized Chinese, Korean or Japanese name in lower case (`payee: wang xiaoming`, `my name
    // is li na`), read as the capitalised ones are; not a firm's (`owner: wang xiaoming gmbh`).
    const asian = eastAsianName(words.slice(0, 4).map(capitalised));
    return asian && !words.slice(0, asian + 1).some((w) => COMPANY_WORDS.has(w.toUpperCase()))
      ? asian
      : 0;
  }
  // An initial's further initials with their dots lead the name with it (`j. r. smith`).
  let lead = 1;
  while (initial && lead < words.length && DOTTED_INITIAL.test(words[lead]!)) lead++;
  let kept = lead;
  while (kept < words.length) {
    // A surname's particles go with the word after them (`anna van der berg`), not alone (`tom de`).
    let next = kept;
    while (next < words.length - 1 && PARTICLE_WORD.test(words[next]!)) next++;
    const last = ends && next === words.length - 1;
    if (!plainSurname(words[next]!) && !(last && lastSurname(words[next]!))) break;
    kept = next + 1;
  }
  // A firm named after people (`anna meyer gmbh`).
  if (words.slice(0, kept + 1).some((w) => COMPANY_WORDS.has(w.toUpperCase()))) return 0;
  return initial && kept === lead ? 0 : kept;
}

/**
 * A name's parts in a form's fields, where one word is a whole value: surname and given names in
 * the six languages and Dutch, Russian and Greek, with their colon (`Surname: Okafor`, `NOM :
 * DUPONT`, `Nachname: Müller`, `Cognome: Rossi`), a record's keys in JSON, YAML or a query
 * string (`"last_name": "Doe"`, `firstName=Jane`), and a page's form fields (`<input
 * name="last-name" value="Doe">`).
 */
const NAME_PART_LABEL =
  "surname|last[ _-]?name|family[ _-]?name|given[ _-]?names?|first[ _-]?names?|forenames?|middle[ _-]?names?|maiden[ _-]?name|birth[ _-]?name|full[ _-]?name|(?:customer|client|holder|account[ _-]?holder|beneficiary|payee|recipient|sender|contact|employee|tenant|patient|applicant)[ _-]?name|nachname|familienname|vornamen?|geburtsname|nom|nom de famille|nom de naissance|nom d['’]usage|pr[ée]noms?|apellidos?|primer apellido|segundo apellido|nombres?|cognome|nome|achternaam|naam|voorna(?:am|men)|фамилия|имя|отчество|επώνυμο|όνομα";
/** A name's part, or `name`, which also names things: its words must then read as a person's. */
const NAME_LABEL = `(?:${NAME_PART_LABEL}|name)`;
const NAME_PART = new RegExp(`^(?:${NAME_PART_LABEL})$`, "iu");
/** A column's header or a page's field key that names a name's part, or `name`. */
const NAME_KEY = new RegExp(`^(?:${NAME_LABEL})$`, "iu");
/** One word of a form's value, whole (`Nome` is not `Nom` before `e`). */
const FIELD_WORD = "\\p{L}[\\p{L}'’-]*(?![\\p{L}'’-])";
/**
 * A label with its colon, then one to four words, none a next label's (`Cognome: Rossi Nome:`),
 * a surname's particles not counted among them (`name: maria de la cruz`).
 */
const NAME_FIELD = new RegExp(
  `(?<![\\p{L}\\p{N}_])(${NAME_LABEL})\\s?[:：]\\s*(${FIELD_WORD}(?:[ ](?:${PARTICLE}[ ])?${FIELD_WORD}(?!\\s?[:：])){0,3})`,
  "giu",
);
/** What a form writes in a field for its filler, in the six languages and Dutch. */
const FORM_INSTRUCTIONS = words(
  "required optional mandatory obligatory obbligatorio facoltativo obligatoire facultatif obligatorio opcional erforderlich pflichtfeld freiwillig verplicht optioneel none unknown tbd pending blank empty missing",
);

/**
 * Words in lower case after a field's label that are the form's instruction or everyday words
 * (`Nome: obbligatorio`, `name: same as above`), not a person's name.
 */
function formInstruction(values: readonly string[]): boolean {
  return (
    values.some((w) => FORM_INSTRUCTIONS.has(w)) ||
    (values.every(isCommonWord) && !values.some(isFirstName))
  );
}

/**
 * Words that are a form's labels and everyday words around them, one a label at least (`Name,
 * Surname and date of birth`): no name.
 */
function formLabels(words: readonly string[]): boolean {
  let labels = 0;
  for (const w of words) {
    if (NAME_KEY.test(w)) labels++;
    else if (!isCommonWord(w)) return false;
  }
  return labels > 0;
}

/** Where a field's value ends the line: its end, a line break or a punctuation mark. */
const VALUE_END = /^[ \t]*(?:$|[\r\n.,;|<)\]}])/u;
/**
 * A record's key and its value in quotes, or in a query string; the key's words joined as code,
 * spreadsheets and forms join them (`last_name`, `last-name`, `"Last Name"`, `last+name=`).
 */
const NAME_RECORD = new RegExp(
  `(?<![\\p{L}\\p{N}_])["']?(${NAME_LABEL.replaceAll("[ _-]?", "(?:[ _+-]|%20)?")})["']?\\s*[:=]\\s*(?:["']([^"'\\n]{1,80})["']|(?<==)([^&\\s"'#]{1,80}))`,
  "giu",
);

/**
 * How a field's value is written: capitalised, as a form's (read up to its first word in lower
 * case); in lower case and alone on its line, as chats and quick forms type it (`name: jane doe`);
 * in any case, as a record's.
 */
type FieldCase = "capitalised" | "lower" | "any";

/**
 * The name in a field's value under its label, from the value's start: its length, or 0 when the
 * value is no person's name (a team, a company, a form's instruction; under a bare `name`, words
 * that do not read as a person's).
 */
function nameInField(label: string, value: string, writing: FieldCase): number {
  // Surname first, its comma a separator (`"Doe, Jane"`).
  let words = splitOn(value, VALUE_WORD_SEPARATOR).filter(Boolean);
  if (writing === "capitalised") {
    const n = words.findIndex((w) => !/^\p{Lu}/u.test(w));
    words = n < 0 ? words : words.slice(0, n);
  }
  if (writing === "lower") {
    if (formInstruction(words)) return 0;
    // Prose after the name ends it at a function word (`name: tom for now`, `name: bob the
    // builder`), as after a person's label, but not a particle's article (`maria de los angeles`).
    const prose = words.findIndex(
      (w, i) =>
        i > 0 &&
        HEADING_WORDS.has(w.toUpperCase()) &&
        !PARTICLE_WORD.test(w) &&
        !PARTICLE_WORD.test(words[i - 1]!),
    );
    if (prose > 0) words = words.slice(0, prose);
  }
  if (!words.length || !words.every((w) => /^\p{L}[\p{L}'’.-]*$/u.test(w))) return 0;
  // No name starts on a function word (`surname: and`, `name: the`).
  if (HEADING_WORDS.has(words[0]!.toUpperCase())) return 0;
  if (
    words.some(
      (w, k) => notNameIn(words, k) || teamOrProductWord(w) || COMPANY_WORDS.has(w.toUpperCase()),
    )
  )
    return 0;
  // After a bare `name` the words must read as a person's (a workflow's or a product's name does not).
  if (!NAME_PART.test(label) && !looksPersonal(words)) return 0;
  // Up to the last word kept, found word after word (`Annabel Ann` ends on the second `Ann`).
  let end = 0;
  for (const w of words) end = value.indexOf(w, end) + w.length;
  return end;
}

function fieldNames(text: string): PiiSpan[] {
  const out: PiiSpan[] = [];
  const keep = (at: number, label: string, value: string, writing: FieldCase) => {
    const length = nameInField(label, value, writing);
    if (length) out.push(span("NAME", at, value.slice(0, length)));
  };
  for (const m of execAll(NAME_FIELD, text)) {
    const end = m.index + m[0].length;
    // A value in lower case, as chats and quick forms type it, is read when it is all the line
    // holds (`name: jane doe`), not when prose goes on after it.
    const whole = /^\p{Ll}/u.test(m[2]!) && VALUE_END.test(text.slice(end, end + 3));
    keep(end - m[2]!.length, m[1]!, m[2]!, whole ? "lower" : "capitalised");
  }
  for (const m of execAll(NAME_RECORD, text)) {
    const value = m[2] ?? m[3]!;
    keep(m.index + m[0].lastIndexOf(value), m[1]!.replace(/\+|%20/g, " "), value, "any");
  }
  for (const tag of execAll(HTML_INPUT, text)) {
    const key = [...execAll(INPUT_KEY, tag[0])].map((k) => k[1]!).find((k) => NAME_KEY.test(k));
    const value = INPUT_VALUE.exec(tag[0]);
    if (key && value)
      keep(tag.index + value.index + value[0].length - value[1]!.length - 1, key, value[1]!, "any");
  }
  return out;
}

/** A form's field as a page writes it: its key in `name` or `id`, its value in `value`. */
const HTML_INPUT = /<input\b[^<>]{1,400}>/giu;
const INPUT_KEY = /\s(?:name|id)\s*=\s*["']([^"'<>]{1,40})["']/giu;
const INPUT_VALUE = /\svalue\s*=\s*["']([^"'<>]{1,80})["']/iu;

/** A column's header that names a date of birth. */
const DOB_COLUMN =
  /^(?:date[ _-]?of[ _-]?birth|dob|d\.o\.b\.|birth[ _-]?date|birthday|geburtsdatum|geb\.?[ -]?datum|date[ _-]de[ _-]naissance|fecha[ _-]de[ _-]nacimiento|data[ _-]di[ _-]nascita|geboortedatum|дата рождения|ημερομηνία γέννησης)$/iu;
/** A date as a table's cell holds one: numeric in any order, or with its month's name. */
const DATE_CELL =
  /^(?:\d{1,4}[./ -]\d{1,2}[./ -]\d{1,4}|\d{8}|\d{1,2}\.?[ -]\p{L}{3,9}\.?[ -]\d{2,4}|\p{L}{3,9}\.? \d{1,2},? \d{4})$/u;
/** How a table's cells are separated: CSV, semicolons (as European spreadsheets write), tabs, pipes. */
const CELL_SEPARATORS = [",", ";", "\t", "|"] as const;
/** A Markdown table's rule under its header (`|---|:--:|`). */
const TABLE_RULE = /^[\s|:-]+$/u;

/** A column's label that names a name's part or a date of birth. */
function isColumnLabel(label: string): boolean {
  return NAME_KEY.test(label) || DOB_COLUMN.test(label);
}

/**
 * A cell's value under its column's label, at `at`: a name under a name's part (short, as a
 * name's cell is), a date under a date of birth's.
 */
function cellSpan(label: string, at: number, value: string): PiiSpan | undefined {
  if (NAME_KEY.test(label)) {
    if (value.split(" ").length > 4) return undefined;
    const length = nameInField(label, value, "any");
    return length ? span("NAME", at, value.slice(0, length)) : undefined;
  }
  return DOB_COLUMN.test(label) && DATE_CELL.test(value) ? span("DOB", at, value) : undefined;
}

/** A line's cells between `separator`s, with where each starts; a quoted cell may hold one. */
function cellsOf(line: string, separator: string): Array<{ at: number; value: string }> {
  const cells: Array<{ at: number; value: string }> = [];
  let start = 0;
  let quoted = false;
  for (let i = 0; i <= line.length; i++) {
    const c = line[i];
    if (c === '"') quoted = !quoted;
    else if (i === line.length || (c === separator && !quoted)) {
      const raw = line.slice(start, i);
      const trimmed = raw.trim();
      const unquoted = /^".*"$/su.test(trimmed) ? trimmed.slice(1, -1).trim() : trimmed;
      cells.push({ at: start + raw.indexOf(unquoted), value: unquoted });
      start = i + 1;
    }
  }
  return cells;
}

/**
 * A table's rows under its header (CSV, semicolon- or tab-separated, a Markdown or a pipe table,
 * as exports and reports paste them): a cell under a column whose header names a name's part
 * (`first_name`, `Surname`, `Nom`, `Cognome`; under `Name`, words that read as a person's) is a
 * name, one under a date of birth's header (`dob`, `Date of birth`, `Geburtsdatum`) in a date's
 * shape a date of birth. The rows are the lines after the header with as many cells, up to the
 * first that has not.
 */
function tableColumns(text: string): PiiSpan[] {
  const out: PiiSpan[] = [];
  // A line's text and where the next starts; past the text's end when it is the last.
  const lineAt = (at: number) => {
    const end = text.indexOf("\n", at);
    const next = end < 0 ? text.length + 1 : end + 1;
    return { line: text.slice(at, next - 1).replace(/\r$/u, ""), next };
  };
  for (let h = 0; h <= text.length;) {
    const { line: header, next } = lineAt(h);
    h = next;
    if (next > text.length) break;
    for (const separator of CELL_SEPARATORS) {
      if (!header.includes(separator)) continue;
      const labels = cellsOf(header, separator).map((c) => c.value);
      // A header's cells are short labels, not a sentence's clauses (`Name, Surname and age are…`).
      if (labels.length < 2 || labels.some((l) => l.length > 40 || l.split(" ").length > 4))
        continue;
      if (!labels.some(isColumnLabel)) continue;
      let r = next;
      const rule = lineAt(r);
      if (TABLE_RULE.test(rule.line) && rule.line.includes("-")) r = rule.next;
      for (; r <= text.length;) {
        const row = lineAt(r);
        const cells = cellsOf(row.line, separator);
        if (cells.length !== labels.length) break;
        cells.forEach((cell, c) => {
          const found = cellSpan(labels[c]!, r + cell.at, cell.value);
          if (found) out.push(found);
        });
        r = row.next;
      }
      // The line that ended the rows may head the next table.
      h = r;
      break;
    }
  }
  return out;
}

/**
 * Two cells side by side in a record's row without a header (`Jane,Doe,jane@example.com`): each one
 * word, a comma with no space after it (a sentence's comma has one), or a semicolon, tab or pipe.
 * The match starts on the line's start or the first cell's separator, where white space after a
 * comma, semicolon or pipe but only spaces after a tab are read, and only spaces stand before the
 * next separator: a tab is both a separator and white space, and a run of tabs read from each of
 * its tabs would take time in its length squared. Started on a separator, not on every letter with
 * the separator looked behind, the scan costs half as much.
 */
const ROW_PAIR =
  /(?:^[ \t]*|[,;|][ \t]*|\t[ ]*)(\p{L}[\p{Ll}'’-]+)[ ]*(?=(?:,|([;\t|])[ \t]*)(\p{L}[\p{Ll}'’-]+)[ \t]*(?:[,;\t|]|\r?$))/gmu;

/**
 * A phone number as a contact list's cell holds one: international with its `+`, or in North
 * America's groups (an amount or an id of bare digits is no contact).
 */
const PHONE_CELL = /^(?:\+\d[\d ()-]{6,}\d|\(?\d{3}\)?[ .-]?\d{3}[ .-]\d{4})$/u;

/**
 * Whether a row holds a contact's or a birth's value: an e-mail address anywhere on it, or, split by
 * its separator, a cell that is a written date or a phone number.
 */
function recordRow(line: string, separator: string): boolean {
  if (line.includes("@")) return true;
  return line.split(separator).some((cell) => {
    const value = cell.trim().replace(/^"(.*)"$/u, "$1");
    // A date of digits alone (`19850403`) is as often an amount or an id.
    return (DATE_CELL.test(value) && !/^\d+$/u.test(value)) || PHONE_CELL.test(value);
  });
}

/** A word a row's surname cell may hold: capitalised, no everyday, company, team or heading word. */
function surnameCell(word: string): boolean {
  return (
    !notName(word) &&
    !everyday(word) &&
    !teamOrProductWord(word) &&
    !COMPANY_WORDS.has(word.toUpperCase()) &&
    !HEADING_WORDS.has(word.toUpperCase())
  );
}

/**
 * A name in a row of three cells or more with no header: a first name of the lexicon beside a
 * surname's cell, in either order (`Jane,Doe,…`, `Doe;Jane;…`), as exports and pasted records
 * write them.
 */
function rowNames(text: string): PiiSpan[] {
  const out: PiiSpan[] = [];
  // The line of the last pair and its cells per separator, counted once a line.
  let lineEnd = -1;
  let cells = new Map<string, number>();
  let lineStart = 0;
  // Per separator, whether the line holds a contact's or a birth's value, read once a line.
  let recorded = new Map<string, boolean>();
  for (const m of execAll(ROW_PAIR, text)) {
    const [a, b] = [m[1]!, m[3]!];
    const separator = m[2] ?? ",";
    if (m.index >= lineEnd) {
      lineStart = text.lastIndexOf("\n", m.index) + 1;
      const end = text.indexOf("\n", m.index + 1);
      lineEnd = end < 0 ? text.length : end;
      cells = new Map();
      recorded = new Map();
      for (let i = lineStart; i < lineEnd; i++) {
        const c = text[i]!;
        if (c === "," || c === ";" || c === "\t" || c === "|")
          cells.set(c, (cells.get(c) ?? 0) + 1);
      }
    }
    // Three cells or more: two separators.
    if ((cells.get(separator) ?? 0) < 2) continue;
    // A cell in lower case only in a row that holds a contact's or a birth's value, as exports of
    // sign-up lists write them (`jane,doe,jane@example.com`, `jane,doe,1985-04-03`): a list of
    // words in lower case is no record.
    if (/^\p{Ll}/u.test(a) || /^\p{Ll}/u.test(b)) {
      if (!recorded.has(separator))
        recorded.set(separator, recordRow(text.slice(lineStart, lineEnd), separator));
      if (!recorded.get(separator)) continue;
    }
    if (!((plainFirstName(a) && surnameCell(b)) || (plainFirstName(b) && surnameCell(a)))) continue;
    // The second cell is read ahead, not taken: it may pair with the cell after it.
    const end = m.index + m[0].trimEnd().length;
    out.push(span("NAME", end - a.length, a), span("NAME", text.indexOf(b, end), b));
  }
  return out;
}

/** A page's table: its rows, their cells, its end; the tags in any case. */
const HTML_ROW = /<tr\b[^<>]{0,200}>/giu;
const HTML_CELL = /<(t[dh])\b[^<>]{0,200}>/giu;
const HTML_CELL_END = /<\/t[dh]\s*>/iu;
const HTML_TABLE_END = /<\/table\s*>/giu;
/** Tags before a cell's text (`<td><b>Doe</b></td>`), which the text is read after. */
const LEADING_TAGS = /^(?:\s|<[^<>]{0,200}>)*/u;
/** Longer than this, a cell holds no name's or date's value alone. */
const HTML_CELL_MAX = 400;

/** A row's cells: whether each is a header's (`th`), and its text with where it starts, if it is text alone. */
function htmlCells(
  text: string,
  from: number,
  to: number,
): Array<{ header: boolean; at: number; value: string | undefined }> {
  const row = text.slice(from, to);
  const openers = [...execAll(HTML_CELL, row)];
  return openers.map((o, k) => {
    const start = o.index + o[0].length;
    const next = k + 1 < openers.length ? openers[k + 1]!.index : row.length;
    let content = row.slice(start, next);
    const end = HTML_CELL_END.exec(content);
    if (end) content = content.slice(0, end.index);
    const header = o[1]!.toLowerCase() === "th";
    if (content.length > HTML_CELL_MAX) return { header, at: from + start, value: undefined };
    const lead = LEADING_TAGS.exec(content)![0].length;
    let inner = content.slice(lead).trimEnd();
    // The tags after it, from the end: a pattern anchored there alone would be tried at every start.
    while (inner.endsWith(">") && inner.lastIndexOf("<") >= 0)
      inner = inner.slice(0, inner.lastIndexOf("<")).trimEnd();
    return {
      header,
      at: from + start + lead,
      value: inner && !inner.includes("<") ? inner : undefined,
    };
  });
}

/**
 * A page's table (`<table>`, as e-mails and exported reports hold one): under a row of header
 * cells (`<th>`) that names a name's part or a date of birth, the cells of its column in the rows
 * after it, up to the table's end; and a row of two cells whose first is such a label (`<tr><th>
 * Surname</th><td>Okafor</td></tr>`). The same rules as a text table's cells decide.
 */
function htmlTableCells(text: string): PiiSpan[] {
  const out: PiiSpan[] = [];
  const rows = [...execAll(HTML_ROW, text)].map((m) => m.index + m[0].length);
  if (!rows.length) return out;
  const tableEnds = [...execAll(HTML_TABLE_END, text)].map((m) => m.index);
  let nextEnd = 0;
  let labels: string[] | undefined;
  let labelsEnd = Infinity;
  rows.forEach((from, r) => {
    while (nextEnd < tableEnds.length && tableEnds[nextEnd]! < from) nextEnd++;
    const to = Math.min(rows[r + 1] ?? text.length, tableEnds[nextEnd] ?? text.length);
    if (from > labelsEnd) labels = undefined;
    const cells = htmlCells(text, from, to);
    const label = (c: { value: string | undefined }) => (c.value ?? "").replace(/\s*[:：]$/u, "");
    if (cells.length >= 2 && cells.every((c) => c.header)) {
      const heads = cells.map(label);
      labels = heads.some(isColumnLabel) ? heads : undefined;
      labelsEnd = tableEnds[nextEnd] ?? Infinity;
      return;
    }
    const keep = (head: string, cell: { at: number; value: string | undefined }) => {
      const found = cell.value === undefined ? undefined : cellSpan(head, cell.at, cell.value);
      if (found) out.push(found);
    };
    if (labels && cells.length === labels.length)
      cells.forEach((cell, c) => {
        if (!cell.header) keep(labels![c]!, cell);
      });
    else if (cells.length === 2 && !cells[1]!.header) keep(label(cells[0]!), cells[1]!);
  });
  return out;
}

/**
 * Greek first names as Greeks write and call them (Γιώργος, Γιάννης, Νίκος, Κατερίνα): faker's
 * Greek list holds mostly the church forms (Γεώργιος, Ιωάννης). Not the ones that are also
 * everyday words (Ελπίδα, Χαρά, Ζωή, Νίκη: hope, joy, life, victory).
 */
const GREEK_FIRST_NAMES = [
  ...words(
    "γιώργος γιάννης νίκος κώστας κωνσταντίνος δημήτρης παναγιώτης βασίλης χρήστος θανάσης " +
      "μιχάλης σπύρος βαγγέλης αντώνης στέλιος στυλιανός μανώλης λευτέρης τάσος σωτήρης αλέξης " +
      "θοδωρής παύλος πέτρος απόστολος άγγελος στάθης ηλίας κυριάκος φώτης αριστοτέλης μάριος " +
      "μάρκος λάμπρος χαράλαμπος χάρης πάνος γρηγόρης στράτος στέφανος σταύρος ορέστης " +
      "περικλής σωκράτης προκόπης τηλέμαχος φίλιππος ηρακλής θωμάς λουκάς μάνος νεκτάριος " +
      "ραφαήλ τιμόθεος ζήσης μιλτιάδης άρης αχιλλέας οδυσσέας " +
      "μαρία ελένη αικατερίνη κατερίνα βασιλική βάσω σοφία αγγελική γεωργία δήμητρα " +
      "κωνσταντίνα παρασκευή βούλα ευαγγελία ιωάννα χριστίνα αναστασία δέσποινα ειρήνη " +
      "φωτεινή αθηνά ευτυχία χρυσούλα σταυρούλα αλεξάνδρα άννα ευγενία θεοδώρα κυριακή " +
      "αργυρώ παναγιώτα μαργαρίτα ελισάβετ στυλιανή στέλλα αφροδίτη πηνελόπη δανάη αντωνία " +
      "μαρίνα ξανθή ουρανία ρένα τασούλα φανή χαρίκλεια γιάννα νεφέλη αλίκη ιφιγένεια",
  ),
];

/**
 * First names common where the languages read are spoken that neither faker's locales nor
 * compromise's lexicon hold: German-speaking (Jürgen, Heike), Nordic (Øystein, Sigurður), Irish,
 * Scottish and Welsh (Saoirse, Ciarán, Eilidh, Rhys), French (Maëlle, Solène), Spanish, Catalan
 * and Basque (Aitor, Itziar, Jaume, Begoña), Italian, Dutch and Frisian (Ruud, Hylke), and English
 * ones of recent decades (Brayden, Nevaeh). Not the ones that are also everyday words of the
 * languages read (`Elke` is Dutch for each, `Reto` Spanish for a challenge, `Pau` Portuguese for a
 * stick, `Graça`, `Remedios`, `Jade`, `Poppy`, `Maverick`, `Una`, `Non`, `Beat`, `Res`).
 */
const MORE_FIRST_NAMES = words(
  [
    "jürgen jörg uwe detlef günther rüdiger thorsten heike ute dörte gerd reinhard siegfried volker götz jochen hartmut ekkehard eberhard friedhelm",
    "hannelore waltraud roswitha anke antje frauke gesa jutta bärbel käthe gunda hiltrud irmgard edeltraud annegret gerlinde wiltrud lieselotte",
    "heinz heiko holger wulf ingo bodo ottmar wendelin vroni resi zenzi kathi urs ueli köbi vreni seraina corsin flurin ladina",
    "ågot øystein ørjan åse ståle tormod geir trond terje svein sigrun ragnhild gunnhild grete pål",
    "ólafur sigríður guðrún þór þórunn halldór hrafn ásgeir eyjólfur hallgrímur sigurður ragnar bjarni ósk",
    "saoirse aoife ciarán oisín siobhán caoimhe róisín pádraig tadhg dónal bríd gráinne orla sinéad mairéad eoghan cathal donal fiachra ruairí",
    "colm cian darragh eamon éamon fionnuala clodagh nuala máire bláthnaid éabha ailbhe meabh méabh ríona sorcha dearbhla",
    "hamish alasdair ailsa morag catriona mhairi eilidh ishbel seonaid",
    "ffion rhys gethin dafydd bronwen cerys iestyn llinos sioned anwen gwion rhodri emyr meirion huw elis osian llŷr owain eirlys carys angharad mair siân lowri alun gruffydd bryn",
    "maëlle solène maïwenn mathéo ghislaine laetitia",
    "iñaki aitor unai josu itziar ainhoa nekane arantxa begoña macarena mireia oriol jaume ferran quim txema chema paco manolo fito",
    "nunzia rosaria pierpaolo mariangela ruud jikke wietske hylke",
    "brayden shaniqua lakisha trevon nevaeh brantley kinsley everleigh ryker jaxson finnegan callum cormac tilly kirsty",
  ].join(" "),
);

/** Tags of everyday words that are also surnames (Brown, Baker, Young); the rest never are (However). */
const SURNAME_TAGS = new Set([
  "Noun",
  "Singular",
  "Adjective",
  "Comparative",
  "Color",
  "Uncountable",
  "Actor",
]);

/**
 * First names known to compromise's English lexicon (its `FirstName`, `MaleName` and `FemaleName`
 * tags: about 3,100 names of many origins) and those of faker's locales for the cultures it covers
 * thinly (first-names.ts, about 13,500) and the hand lists above, read once; also without their
 * accents (Văn, Thị written Van, Thi). Its tagger is not used: running it per text cost most of
 * the redaction's CPU. The lexicon's other words (`of`, `period`, `legal`) are everyday words: in
 * capitals they are a heading's, not a name's. `WORD_NAMES` it lacks are names capitalised only
 * (`NAMES_ONLY_CAPITALISED`).
 */
const { FIRST_NAMES, NAMES_ONLY_CAPITALISED, COMMON_WORDS, NOUN_LIKE } = (() => {
  const lexicon = (
    nlp as unknown as { model(): { one: { lexicon: Record<string, unknown> } } }
  ).model().one.lexicon;
  const names = new Set<string>();
  const common = new Set<string>();
  const nounLike = new Set<string>();
  for (const [word, tag] of Object.entries(lexicon)) {
    const tags = Array.isArray(tag) ? tag : [tag];
    if (tags.some((t) => t === "FirstName" || t === "MaleName" || t === "FemaleName"))
      names.add(word);
    // Companies named after their founder (DuPont, Ford) keep the name a surname too.
    else if (!tags.some((t) => t === "Person" || t === "LastName" || t === "Organization")) {
      common.add(word);
      if (tags.every((t) => SURNAME_TAGS.has(t as string))) nounLike.add(word);
    }
  }
  // Song and Sim are Korean surnames that are everyday words: the East Asian rules read them.
  const everydayWords = words(EVERYDAY_WORDS);
  const surnames = new Set([...words(CHINESE_SURNAMES), ...words(KOREAN_SURNAMES)]);
  const everydaySurnames = new Set([...everydayWords].filter((w) => surnames.has(w)));
  for (const word of [
    ...LOCALE_FIRST_NAMES.split(" "),
    ...GREEK_FIRST_NAMES,
    ...MORE_FIRST_NAMES,
  ]) {
    if (!everydaySurnames.has(word)) names.add(word);
    // Văn and Thế without their accents are also the particle `van` and the article `the`; Hán,
    // Sáng, Băng the words han, sang, bang.
    const plain = withoutAccents(word);
    if (!PARTICLE_WORD.test(plain) && !common.has(plain) && !everydayWords.has(plain))
      names.add(plain);
  }
  // The lexicon holds `frank` as a name already, in lower case too.
  const wordsOnly = new Set([...WORD_NAMES].filter((w) => !names.has(w)));
  for (const word of wordsOnly) names.add(word);
  return {
    NAMES_ONLY_CAPITALISED: wordsOnly as ReadonlySet<string>,
    FIRST_NAMES: names as ReadonlySet<string>,
    COMMON_WORDS: common as ReadonlySet<string>,
    NOUN_LIKE: nounLike as ReadonlySet<string>,
  };
})();

/** A Russian or Ukrainian name's case endings (Иваном, Марией, Анны): the lexicon holds the nominative. */
const CYRILLIC_ENDING = /(?:ом|ем|ой|ей|ою|ею|ым|им|а|я|у|ю|е|ы|и)$/u;
const CYRILLIC_STEMS: ReadonlySet<string> = new Set(
  [...FIRST_NAMES]
    .filter((n) => /^\p{Script=Cyrillic}{4,}$/u.test(n))
    .map((n) => n.replace(/[аяйьо]$/u, "")),
);

/**
 * Greek first names in each case (Γιώργου, Γιώργο, Γιώργε; Γιάννη; Μαρίας; Ελένης; Αργυρώς), read
 * without accents and with σ for ς: the genitive moves the accent (Γεώργιος, Γεωργίου). Each
 * name's own forms only: Ήλιος (the sun) is not a form of Ηλίας.
 */
const greekPlain = (word: string) => withoutAccents(word).replace(/ς/gu, "σ");
/** Each nominative ending's other forms: -ος gives -ου, -ο, -ε; -ης, -ας, -ες lose their σ; -α, -η, -ω take one. */
const GREEK_CASES: ReadonlyArray<[RegExp, (plain: string) => string[]]> = [
  [/οσ$/u, (p) => ["ου", "ο", "ε"].map((e) => p.slice(0, -2) + e)],
  [/[ηαε]σ$/u, (p) => [p.slice(0, -1)]],
  [/[αηω]$/u, (p) => [`${p}σ`]],
];
const GREEK_FORMS: ReadonlySet<string> = new Set(
  [...FIRST_NAMES]
    .filter((n) => /^\p{Script=Greek}+$/u.test(n))
    .flatMap((n) => {
      const plain = greekPlain(n);
      const rule = GREEK_CASES.find(([ending]) => ending.test(plain));
      return [plain, ...(rule ? rule[1](plain) : [])];
    }),
);

/** In the lexicon as written, without its accents (José, Zoë: the lexicon has jose, zoe) or declined. */
function isFirstName(word: string): boolean {
  const lower = word.normalize("NFC").toLowerCase();
  if (NAMES_ONLY_CAPITALISED.has(lower)) return word !== lower;
  if (FIRST_NAMES.has(lower) || FIRST_NAMES.has(withoutAccents(lower))) return true;
  if (/^\p{Script=Greek}+$/u.test(lower)) return GREEK_FORMS.has(greekPlain(lower));
  if (!/^\p{Script=Cyrillic}+$/u.test(lower)) return false;
  return CYRILLIC_STEMS.has(lower) || CYRILLIC_STEMS.has(lower.replace(CYRILLIC_ENDING, ""));
}

/** An everyday English word of the lexicon, in any case (`OF`, `Period`). */
function isCommonWord(word: string): boolean {
  return COMMON_WORDS.has(word.toLowerCase());
}

/** An everyday word or one of its inflections the lexicon leaves out (looked, looking, arrives). */
function everydayWordForm(word: string): boolean {
  const w = word.toLowerCase();
  return [
    w,
    w.replace(/s$/u, ""),
    w.replace(/e?d$/u, ""),
    w.replace(/ing$/u, ""),
    w.replace(/ing$/u, "e"),
  ].some((form) => COMMON_WORDS.has(form));
}

/** Given-name syllables of pinyin (a joined given name is read only as pinyin: Jianguo, Xiaoming). */
const PINYIN_NAME_SYLLABLES: ReadonlySet<string> = (() => {
  const never = words(PINYIN_NOT_IN_NAMES);
  return new Set([...words(PINYIN_SYLLABLES)].filter((s) => !never.has(s)));
})();
const CHINESE_NAME_SYLLABLES: ReadonlySet<string> = new Set([
  ...PINYIN_NAME_SYLLABLES,
  ...words(OTHER_CHINESE_SYLLABLES),
]);
const KOREAN_NAME_SYLLABLES = words(KOREAN_SYLLABLES);
/** Korean given names whose second syllable starts on a vowel (Ha-eun, Ji-a, Ye-eun). */
const KOREAN_VOWEL_SECOND = words("a ae ah eon eui eun ui");
const CHINESE_SURNAME_SET = words(CHINESE_SURNAMES);
const KOREAN_SURNAME_SET = words(KOREAN_SURNAMES);
const JAPANESE_SURNAME_SET = words(JAPANESE_SURNAMES);
const JAPANESE_GIVEN_SET = words(JAPANESE_GIVEN_NAMES);
const EVERYDAY = words(EVERYDAY_WORDS);
const PLACES = words(EAST_ASIAN_PLACES);
/** Places of several words, as the words read (hong kong, wan chai). */
const PLACE_PHRASES = [...PLACES].filter((p) => p.includes("_")).map((p) => p.replace(/_/g, " "));
const PLACE_PHRASE_WORDS: ReadonlySet<string> = new Set(PLACE_PHRASES.flatMap((p) => p.split(" ")));
/** The surnames and the Japanese given names: a name's form holds one. */
const NAME_LEXICON: ReadonlySet<string> = new Set([
  ...CHINESE_SURNAME_SET,
  ...KOREAN_SURNAME_SET,
  ...JAPANESE_SURNAME_SET,
  ...JAPANESE_GIVEN_SET,
]);
/** Every word of the lexicons: compromise's tags do not make these everyday words (it has wang, jun). */
const EAST_ASIAN_WORDS: ReadonlySet<string> = new Set([
  ...CHINESE_NAME_SYLLABLES,
  ...KOREAN_NAME_SYLLABLES,
  ...CHINESE_SURNAME_SET,
  ...KOREAN_SURNAME_SET,
  ...JAPANESE_SURNAME_SET,
  ...JAPANESE_GIVEN_SET,
]);

/**
 * Hepburn's morae (shi, chi, tsu, fu, ji; ky, ny…; a doubled consonant; n before a consonant or
 * at the end), with long vowels written ō, ou, oo or oh: the shape of a Japanese name beyond the
 * lexicons (Kurosawa, Kakuei). Not si, ti, tu, hu, zi, di, du, which Hepburn does not write and
 * Italian and Spanish words do.
 */
const HEPBURN =
  /^(?:(?!s[iy]|t[iuy]|hu|z[iy]|d[iuy]|w[iue]|y[ie])(?:[kgsztdnhbpmrwy]|[kgnhbpmr]y|sh|ch|ts|j|f)?[aeiouāīūēō]|(?<=[aeiouāīūēō])h(?![aeiouy])|n(?![aeiouy])|m(?=[bpm])|k(?=k)|s(?=s)|t(?=t|ch)|p(?=p))+$/u;

/** A word as the lexicons hold it: lower case, without a possessive, ü as u (Lü, Lyu, Lu). */
function lexiconForm(word: string): string {
  const lower = /^[\x20-\x7e]*$/u.test(word)
    ? word.toLowerCase()
    : word.normalize("NFC").toLowerCase().replace(/ü/gu, "u");
  return lower.endsWith("s") ? lower.replace(/['’]s$/u, "") : lower;
}

/** Two syllables of a set joined (Jianguo = jian+guo); `vowelSecond` says which may start on a vowel. */
function twoSyllables(
  word: string,
  syllables: ReadonlySet<string>,
  vowelSecond: ReadonlySet<string>,
): boolean {
  for (let i = 1; i < word.length && i <= 6; i++) {
    const second = word.slice(i);
    if (!syllables.has(word.slice(0, i)) || !syllables.has(second)) continue;
    if (!/^[aeiou]/u.test(second) || vowelSecond.has(second)) return true;
  }
  return false;
}

const NO_SYLLABLES: ReadonlySet<string> = new Set();

/**
 * A Chinese given name: one syllable, two joined as pinyin writes them (a second syllable that
 * starts on a vowel needs pinyin's apostrophe: Xi'an, not Xian), or two hyphenated as Hong Kong,
 * Taiwan and Singapore write them (Tai-man, Ying-jeou).
 */
function chineseGiven(w: string): boolean {
  const parts = splitOn(w, SYLLABLE_SEPARATOR);
  if (parts.length === 2) return parts.every((p) => CHINESE_NAME_SYLLABLES.has(p));
  return (
    parts.length === 1 &&
    (CHINESE_NAME_SYLLABLES.has(w) || twoSyllables(w, PINYIN_NAME_SYLLABLES, NO_SYLLABLES))
  );
}

/** A Korean given name: two syllables, hyphenated or joined (Ji-hoon, Jihoon, Seo-yeon, Haeun). */
function koreanGiven(w: string): boolean {
  const parts = w.split("-");
  if (parts.length === 2) return parts.every((p) => KOREAN_NAME_SYLLABLES.has(p));
  return parts.length === 1 && twoSyllables(w, KOREAN_NAME_SYLLABLES, KOREAN_VOWEL_SECOND);
}

/** The romanized name cultures: a surname of the lexicon and the shape of a given name. */
const EAST_ASIAN_CULTURES: ReadonlyArray<{
  surnames: ReadonlySet<string>;
  given: (w: string) => boolean;
  /** Given names of a lexicon rather than of a shape: one may come first though an everyday word (Mai Tanaka). */
  listed: boolean;
}> = [
  { surnames: CHINESE_SURNAME_SET, given: chineseGiven, listed: false },
  { surnames: KOREAN_SURNAME_SET, given: koreanGiven, listed: false },
  { surnames: JAPANESE_SURNAME_SET, given: (w) => JAPANESE_GIVEN_SET.has(w), listed: true },
];

/**
 * An everyday word of the corpus languages (`Long`, `Sun`, `Park`, `Lake`, `Mio`), or a place:
 * the lexicons' own words by the hand list alone, the others also by compromise's lexicon.
 */
function everyday(w: string): boolean {
  return (
    EVERYDAY.has(w) ||
    PLACES.has(w) ||
    (!EAST_ASIAN_WORDS.has(w) && (isCommonWord(w) || NOT_NAMES.has(capitalised(w))))
  );
}

/**
 * Whether `first second` is a romanized Chinese, Korean or Japanese name, in either order: a
 * surname of the lexicon with a given name of its culture's shape (Wang Wei, Zhang Xiaoming, Park
 * Ji-hoon, Jihoon Park, Yuki Tanaka, Tanaka Yuki). Surnames that are everyday words (He, Sun,
 * Long, Ma, Song, Park, Moon, Han, Ho, So, Law) need a given name that is neither an everyday word
 * nor a Western first name of several syllables (Sun Yat-sen, Park Ji-hoon, Tang Wei; not Sun
 * Microsystems, Long Term, Park Lane, Song Title, Ma Luca); a given name of a shape written first
 * must not be an everyday word (not Like Wang), one of the Japanese lexicon may unless the surname
 * is one too (Mai Tanaka). Japanese names also pair a name of the lexicons with a word of
 * Hepburn's shape, neither an everyday word (Yuki Kurosawa, Kurosawa Akira; not Kawasaki Ninja).
 */
function eastAsianPair(first: string, second: string): boolean {
  const a = lexiconForm(first);
  const b = lexiconForm(second);
  // A Western first name of several syllables is not one here (Ma Luca); one of one is (Tang Wei).
  const plainGiven = (g: string, original: string) =>
    !everyday(g) &&
    (/-/u.test(original) ||
      JAPANESE_GIVEN_SET.has(g) ||
      CHINESE_NAME_SYLLABLES.has(g) ||
      !isFirstName(original));
  for (const { surnames, given, listed } of EAST_ASIAN_CULTURES) {
    if (surnames.has(a) && given(b) && (!everyday(a) || plainGiven(b, second))) return true;
    if (given(a) && surnames.has(b) && (!everyday(b) || plainGiven(a, first)))
      if (!everyday(a) || (listed && !everyday(b))) return true;
  }
  const japanese = (w: string) => JAPANESE_SURNAME_SET.has(w) || JAPANESE_GIVEN_SET.has(w);
  const shaped = (w: string) => w.length >= 4 && HEPBURN.test(w) && !everyday(w);
  return ((japanese(a) && shaped(b)) || (shaped(a) && japanese(b))) && !everyday(a) && !everyday(b);
}

/**
 * A Chinese or Korean name in three words, a surname then two syllables (Chan Tai Man, Kim Jong
 * Un, Lim Boon Keng): a surname that is an everyday word takes no everyday syllable.
 */
function eastAsianTriple(first: string, second: string, third: string): boolean {
  const [a, b, c] = [first, second, third].map(lexiconForm) as [string, string, string];
  const cultures: Array<[ReadonlySet<string>, ReadonlySet<string>]> = [
    [CHINESE_SURNAME_SET, CHINESE_NAME_SYLLABLES],
    [KOREAN_SURNAME_SET, KOREAN_NAME_SYLLABLES],
  ];
  if (
    !cultures.some(
      ([surnames, syllables]) => surnames.has(a) && syllables.has(b) && syllables.has(c),
    )
  )
    return false;
  return !everyday(a) || (!everyday(b) && !everyday(c));
}

/** Every form holds a surname or a Japanese given name of the lexicons in its first two words. */
function mayBeEastAsian(names: readonly string[]): boolean {
  return (
    names.length >= 2 &&
    (NAME_LEXICON.has(lexiconForm(names[0]!)) || NAME_LEXICON.has(lexiconForm(names[1]!)))
  );
}

/**
 * How many of the words, from the first, are a romanized East Asian name (2 or 3), or 0; `before`
 * is the word right before them, for a place they would end (Lok Ma Chau). The words are
 * capitalised as the text writes them or in capitals (WANG Wei).
 */
function eastAsianName(names: readonly string[], before = ""): number {
  if (!mayBeEastAsian(names)) return 0;
  if (!names.every((w) => /^\p{Lu}/u.test(w))) return 0;
  let n = 0;
  if (
    names.length >= 3 &&
    eastAsianTriple(names[0]!, names[1]!, names[2]!) &&
    // The third word starts the next name rather (Wang Wei Li Na).
    !(names.length >= 4 && eastAsianPair(names[2]!, names[3]!))
  )
    n = 3;
  else if (eastAsianPair(names[0]!, names[1]!)) n = 2;
  if (n === 0) return 0;
  const used = names.slice(0, n).map(lexiconForm);
  if (used.some((w) => PLACES.has(w))) return 0;
  const phrase = ` ${[before.toLowerCase(), ...used, lexiconForm(names[n] ?? "")].join(" ")} `;
  if (PLACE_PHRASES.some((p) => phrase.includes(` ${p} `))) return 0;
  return n;
}

/**
 * A known first name, then one to three capitalised words (a particle allowed before each). Tried
 * from every capitalised word (a lookahead: "Nguyen Van An" or "Partner Anna Smith" must not use up
 * the words a name starts on).
 */
const UNLABELLED_NAME = new RegExp(
  `(?<![\\p{L}\\p{N}'’-])(?=(\\p{Lu}[\\p{Ll}'’]+(?:-\\p{L}[\\p{Ll}'’]+)?)(${MIDDLE_INITIAL}(?: (?:${PARTICLE} )?${NAME_WORD}){1,3})(?![\\p{L}\\p{N}]))`,
  "gu",
);
/** The same in capitals (JOHN SMITH, MARIA GARCIA LOPEZ). */
const UNLABELLED_CAPS = new RegExp(
  `(?<![\\p{L}\\p{N}'’-])(?=(${CAPS_WORD}(?: (?:${PARTICLE.toUpperCase()} )?${CAPS_WORD}){1,3})(?![\\p{L}\\p{N}]))`,
  "gu",
);
/** Initials then a surname, not after a word (Part A. Definitions is a heading). */
const UNLABELLED_INITIALS = new RegExp(
  `(?<![\\p{L}\\p{N}.'’-])(?=(${INITIALS_NAME})(?![\\p{L}\\p{N}]))`,
  "gu",
);
/** Surname first, at the start of a line, clause or list item (Smith, John; SMITH, John anywhere). */
const UNLABELLED_SURNAME_FIRST = new RegExp(
  `(?<![\\p{L}\\p{N}'’-])(?=(${SURNAME_FIRST})(?![\\p{L}\\p{N}]))`,
  "gu",
);
const CLAUSE_START = /(?:^|[\n:;(]\s*|[.!?]\s+)$/u;
const CONJUNCTION_BEFORE =
  /(?:^|[\n:;(,]\s*|\b(?:and|or|with|by|from|to|und|oder|mit|von|et|ou|avec|par|y|o|con|por|e|da|en|of|door) )$/u;

/**
 * A surname in capitals before its given names, or given names before it, as Chinese, Korean and
 * Japanese names are written in international documents (WANG Wei, CHAN Tai Man, PARK Ji-hoon,
 * Yuki TANAKA).
 */
const CAPITAL_SURNAME_NAME = new RegExp(
  `(?<![\\p{L}\\p{N}'’-])(?=(\\p{Lu}{2,}(?: ${NAME_WORD}){1,2}|${NAME_WORD} \\p{Lu}{2,})(?![\\p{L}\\p{N}'’-]))`,
  "gu",
);

/** WANG as Wang, Ji-hoon and Wang as written. */
function titleCase(word: string): string {
  return word === word.toUpperCase() ? word.charAt(0) + word.slice(1).toLowerCase() : word;
}

/** A word of a company's name (Enterprises, Holdings, Partners), in any case. */
function companyWord(word: string): boolean {
  return word.length > 3 && COMPANY_WORDS.has(word.toUpperCase());
}

/** The word right before `at`, when only a space is between. */
function wordBefore(text: string, at: number): string {
  return (
    /(?<![\p{L}'’-])(\p{L}[\p{L}'’-]*) $/u.exec(text.slice(Math.max(0, at - 24), at))?.[1] ?? ""
  );
}

/** Whether the words at `start` begin a place of several words (Hong Kong, Wong Tai Sin). */
function eastAsianPlace(text: string, start: number, words: readonly string[]): boolean {
  return holdsEastAsianPlace([wordBefore(text, start), ...words]);
}
/** Whether the words hold a place of several words (hong kong office). */
function holdsEastAsianPlace(words: readonly string[]): boolean {
  return eastAsianPlaceWord(words) >= 0;
}
/** Where among the words the first place of several words starts (`tom hong kong` → 1), or -1. */
function eastAsianPlaceWord(words: readonly string[]): number {
  if (!words.some((w) => PLACE_PHRASE_WORDS.has(w.toLowerCase()))) return -1;
  const lower = words.map((w) => w.toLowerCase());
  for (let k = 0; k < lower.length - 1; k++) {
    if (!PLACE_PHRASE_WORDS.has(lower[k]!)) continue;
    const from = ` ${lower.slice(k).join(" ")} `;
    if (PLACE_PHRASES.some((p) => from.startsWith(` ${p} `))) return k;
  }
  return -1;
}

/**
 * A romanized East Asian name at the start of the words (eastAsianName), as a span; not where the
 * words go on as a company's, a street's or a place's name (Sun Yat-sen University, Zhang Wei
 * Holdings Ltd, 12 Wang Road), nor after a saint's or a house number.
 */
function eastAsianAt(text: string, start: number, written: readonly string[]): PiiSpan | null {
  // Lookups read WANG as Wang; the span keeps the words as written. A particle ends the name.
  const upTo = written.findIndex((w) => !/^\p{Lu}/u.test(w));
  const words = (upTo < 0 ? written : written.slice(0, upTo)).map(titleCase);
  if (!mayBeEastAsian(words)) return null;
  const n = eastAsianName(words, wordBefore(text, start));
  if (n === 0) return null;
  const next = written[n];
  if (next && (notName(next) || companyWord(next))) return null;
  // A surname that is also a listed word (Law) was weighed as an everyday word already.
  if (written.slice(0, n).some((w) => notName(w) && !EVERYDAY.has(lexiconForm(w)))) return null;
  const kept = written.slice(0, n);
  if (notAPerson(text, start, start + kept.join(" ").length)) return null;
  return nameSpan(text, start, kept);
}

/** A street, a saint's place or a company's name where the words start or end. */
function notAPerson(text: string, start: number, end: number): boolean {
  return (
    companyAfter(text, end) ||
    SAINT_BEFORE.test(text.slice(Math.max(0, start - 7), start)) ||
    // After a house number the words are a street named after someone (9807 Louisa Fall).
    /\d[\p{L}]? $/u.test(text.slice(Math.max(0, start - 3), start))
  );
}

/**
 * Names without a label: a first name of the lexicon followed by capitalised words, unless the
 * words continue as a company name ("Ontiveros y Atencio S.L.") or are words that are not names;
 * the same in capitals, unless a word is a company's or an everyday one (GRANT OF LICENCE);
 * initials then a surname; a surname then a comma and given names.
 */
function unlabelledNames(text: string): PiiSpan[] {
  const out: PiiSpan[] = [];
  for (const m of execAll(UNLABELLED_NAME, text)) {
    const words = `${m[1]}${m[2]}`.split(" ");
    // Jean-Pierre, Hans-Jürgen: a first name of the lexicon in either part.
    if (!m[1]!.split("-").some(isFirstName)) {
      const found = eastAsianAt(text, m.index, words);
      if (found) out.push(found);
      continue;
    }
    while (words.length > 1 && SUFFIX_WORD.test(words.at(-1)!)) words.pop();
    if (
      words.length < 2 ||
      words.some(
        (w, k) => NOT_NAMES.has(w) || companyWord(w) || (k === 0 && PLACE_LEADING_NAMES.has(w)),
      )
    )
      continue;
    if (words.slice(1).some((w) => HONORIFIC_WORDS.has(w))) continue;
    // Before initials, a title or a salutation that is also a first name (Frau V. Kalinowski,
    // Gentile C. Balzano, Cher B. Nicolas) leads the name; it is not its first word.
    if (
      MIDDLE_INITIAL_WORD.test(words[1]!) &&
      (HONORIFIC.test(words[0]!) || NAME_LABEL_WORDS.has(words[0]!))
    )
      continue;
    if (notAPerson(text, m.index, m.index + `${m[1]}${m[2]}`.length)) continue;
    if (SAINT_BEFORE.test(`${m[1]} `)) continue;
    if (eastAsianPlace(text, m.index, words)) continue;
    // A first name that is an everyday word before everyday words that are no surname is read as
    // the words where it would be alone (`Grant Access`, `Skip Navigation`; `Mark Stone` stays a
    // name).
    if (
      LONE_EVERYDAY_NAMES.has(words[0]!) &&
      words.slice(1).every(everydayNoSurname) &&
      readAsWords(text, m.index, m.index + words.join(" ").length)
    )
      continue;
    // A salutation that is also a first name (Cher, Hoi) before whom it greets is no name
    // (`Cher Client`, `Hoi Allemaal`).
    if (NAME_LABEL_WORDS.has(words[0]!) && words.slice(1).every(greetedGroup)) continue;
    // A salutation that is also a first name (Gentile, Cara) before another first name greets
    // the name after it (Gentile Anna Rossi).
    if (NAME_LABEL_WORDS.has(words[0]!) && words[1]!.split("-").some(isFirstName)) {
      out.push(nameSpan(text, m.index + words[0]!.length + 1, words.slice(1)));
      continue;
    }
    out.push(nameSpan(text, m.index, words));
  }
  for (const m of execAll(CAPITAL_SURNAME_NAME, text)) {
    const words = m[1]!.split(" ");
    const found = eastAsianAt(text, m.index, words);
    if (found) out.push(found);
  }
  for (const m of execAll(UNLABELLED_CAPS, text)) {
    const words = m[1]!.split(" ");
    if (!words[0]!.split("-").some(isFirstName)) {
      const found = eastAsianAt(text, m.index, words);
      if (found) out.push(found);
      continue;
    }
    // The name ends before the first word that cannot be one (JOHN SMITH SHALL → JOHN SMITH).
    let n = 1;
    while (n < words.length) {
      const w = words[n]!;
      if (COMPANY_WORDS.has(w) || notName(w) || HONORIFIC_WORDS.has(titleCase(w))) break;
      if (isCommonWord(w) && !w.split("-").some(isFirstName) && !SUFFIX_WORD.test(w)) break;
      n++;
    }
    if (n < words.length && COMPANY_WORDS.has(words[n]!)) continue;
    const kept = words.slice(0, n);
    while (kept.length > 1 && SUFFIX_WORD.test(kept.at(-1)!)) kept.pop();
    if (kept.length < 2) continue;
    if (n === words.length && companyAfter(text, m.index + m[1]!.length)) continue;
    if (eastAsianPlace(text, m.index, kept)) continue;
    out.push(nameSpan(text, m.index, kept));
  }
  for (const m of execAll(UNLABELLED_INITIALS, text)) {
    const words = m[1]!.split(" ");
    const surname = words.at(-1)!;
    // A surname that is an everyday word is one after its particle or as a common surname (`J. van
    // den Berg`, `J.P. Baker`); other everyday words after letters are an acronym's (`U.S. Army`).
    const everyday =
      ((isCommonWord(surname) && !SURNAME_WORDS.has(surname.toLowerCase())) ||
        (everydayNoSurname(surname) && !isFirstName(surname))) &&
      !(words.length > 2 && PARTICLE_WORD.test(words.at(-2)!));
    if (notName(surname) || everyday || COMPANY_WORDS.has(surname)) continue;
    const initials = (m[1]!.match(/\p{Lu}\./gu) ?? []).length;
    // One initial is also a list's or a heading's letter (Annex B. Pricing): only where a name
    // starts a line, a clause or follows a conjunction; "M." alone is Monsieur.
    const before = text.slice(Math.max(0, m.index - 6), m.index);
    if (initials < 2 && (m[1]!.startsWith("M.") || !CONJUNCTION_BEFORE.test(before))) continue;
    if (companyAfter(text, m.index + m[1]!.length)) continue;
    out.push(nameSpan(text, m.index, words));
  }
  for (const m of execAll(UNLABELLED_SURNAME_FIRST, text)) {
    const value = m[1]!;
    const surname = value.slice(0, value.indexOf(","));
    const caps = surname === surname.toUpperCase();
    const initialsGiven = /^\p{Lu}\./u.test(value.slice(value.indexOf(", ") + 2));
    // In mixed case where a clause starts, or after a conjunction before initials (Smith, J. and
    // Jones, K.).
    if (
      !caps &&
      !CLAUSE_START.test(text.slice(Math.max(0, m.index - 4), m.index)) &&
      !(initialsGiven && CONJUNCTION_BEFORE.test(text.slice(Math.max(0, m.index - 6), m.index)))
    )
      continue;
    // A surname in capitals that ends a name (Ji-hoon PARK, Seo-yeon LEE) is not the next one's.
    if (caps && eastAsianName([wordBefore(text, m.index), titleCase(surname)]) === 2) continue;
    if (!surnameFirst(value)) continue;
    // Surnames joined by a conjunction are a firm's name (Durgan, Fay and Dickens); a surname in
    // capitals before given names, or one before initials, is how registers and lists write a
    // person (SMITH, John and Wang Wei; Smith, J. and Jones, K.), not a firm.
    const end = m.index + value.length;
    if (!caps && !initialsGiven && /^,? (?:and|y|e|und|et|en|&) /u.test(text.slice(end, end + 6)))
      continue;
    out.push(nameSpan(text, m.index, value.split(" ")));
  }
  return out;
}

/** The name detectors' patterns, for the linearity check of their tests. */
export const NAME_PATTERNS: readonly RegExp[] = [
  ...NAME_CONTEXTS.map((c) => c.re),
  DESCRIBED_NAME,
  NAME_BEFORE_ROLE,
  UNLABELLED_NAME,
  UNLABELLED_CAPS,
  UNLABELLED_INITIALS,
  UNLABELLED_SURNAME_FIRST,
  LISTED_NAME,
  CAPITAL_SURNAME_NAME,
  NAME_FIELD,
  NAME_RECORD,
  HTML_INPUT,
  HTML_ROW,
  HTML_CELL,
  HTML_TABLE_END,
  LEADING_TAGS,
  LOWER_TITLED,
  SPEAKER,
  LOWER_SPEAKER,
  SIGNATURE_LINE,
  WRITER_HERE,
  PERSON_ACT_AFTER_WORD,
  LOWER_WORDS_BEFORE,
  LOWER_AFTER_CLOSE_ONE,
  LOWER_AFTER_BY,
  ROLE_IS_VALUE,
  LONE_FIRST_NAME,
  GAELIC_SURNAME,
  CJK_LABELLED_NAME,
  HAN_NAME_IN_TEXT,
  HAN_NAME_BEFORE_HONORIFIC,
  JAPANESE_NAME_IN_TEXT,
  KOREAN_NAME_IN_TEXT,
];

const BASE58 = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz";
/** The XRP Ledger's base58: the same scheme, its characters in another order. */
const XRP_BASE58 = "rpshnaf39wBUDNEGHJKLM4PQRST7VWXYZ2bcdeCg65jkm8oFqi1tuvAxyz";

/**
 * A base58 string's value as big-endian bytes: `size` of them, or undefined when it needs more;
 * without a size, as few as hold it.
 */
function base58Bytes(chars: string, size?: number, alphabet = BASE58): Buffer | undefined {
  let n = 0n;
  for (const c of chars) n = n * 58n + BigInt(alphabet.indexOf(c));
  const digits = n.toString(16);
  const hex = digits.padStart(
    size === undefined ? digits.length + (digits.length % 2) : size * 2,
    "0",
  );
  return size === undefined || hex.length === size * 2 ? Buffer.from(hex, "hex") : undefined;
}

/**
 * A base58check address, 25 bytes unless said, whose last 4 are its double SHA-256's first 4:
 * Bitcoin's legacy and script addresses, and those of the chains that kept its scheme (Litecoin,
 * Dogecoin, Dash, Tron, and the XRP Ledger in its own alphabet, its X-addresses 35 bytes).
 */
function isBase58Check(address: string, alphabet = BASE58, size = 25): boolean {
  const bytes = base58Bytes(address, size, alphabet);
  if (!bytes) return false;
  const once = createHash("sha256").update(bytes.subarray(0, -4)).digest();
  const twice = createHash("sha256").update(once).digest();
  return twice.subarray(0, 4).equals(bytes.subarray(-4));
}

/**
 * A Cardano Byron address (`Ae2…`, `DdzFF…`, and its testnets'): base58 of the CBOR `[24(bytes),
 * crc]`, the CRC-32 of those bytes, as a CBOR unsigned integer of its shortest form.
 */
function isByronAddress(address: string): boolean {
  const bytes = base58Bytes(address)!;
  if (bytes.length < 40 || bytes.readUIntBE(0, 3) !== 0x82d818) return false;
  const wide = bytes[3] === 0x59;
  if (!wide && bytes[3] !== 0x58) return false;
  const start = wide ? 6 : 5;
  const end = start + (wide ? bytes.readUInt16BE(4) : bytes[4]!);
  return bytes.subarray(end).equals(cborUint(crc32(bytes.subarray(start, end))));
}

/** An unsigned integer as CBOR writes it, in its shortest form. */
function cborUint(n: number): Buffer {
  if (n < 0x18) return Buffer.from([n]);
  const size = n < 0x100 ? 1 : n < 0x10000 ? 2 : 4;
  const out = Buffer.alloc(1 + size);
  out[0] = 0x18 + Math.log2(size);
  out.writeUIntBE(n, 1, size);
  return out;
}

/** How many bytes a Monero base58 block of so many characters holds (11 characters, 8 bytes). */
const MONERO_BLOCK_BYTES = [0, -1, 1, 2, -1, 3, 4, 5, -1, 6, 7, 8];

/**
 * A Monero address (standard, subaddress or integrated): Monero's base58 in blocks of 11
 * characters, its last 4 bytes the first 4 of the Keccak-256 of the rest.
 */
function isMoneroAddress(address: string): boolean {
  const blocks: Buffer[] = [];
  for (let i = 0; i < address.length; i += 11) {
    const chars = address.slice(i, i + 11);
    const size = MONERO_BLOCK_BYTES[chars.length]!;
    const bytes = size > 0 ? base58Bytes(chars, size) : undefined;
    if (!bytes) return false;
    blocks.push(bytes);
  }
  const data = Buffer.concat(blocks);
  const body = data.subarray(0, -4);
  return Buffer.from(keccak_256(body).subarray(0, 4)).equals(data.subarray(-4));
}

/**
 * A Solana address has no checksum: 32 bytes in base58, as many other keys and hashes are, so it
 * is taken only after a word that names it (`Solana:`, `SOL wallet`, `Phantom`).
 */
const SOLANA_NAME = /\b(?:solana|sol|phantom|solflare)\b/iu;
const SOLANA_LABEL = new RegExp(`${SOLANA_NAME.source}[^\\n]{0,24}$`, "iu");

const BECH32 = "qpzry9x8gf2tvdw0s3jn54khce6mua7l";
const BECH32_GENERATORS = [0x3b6a57b2n, 0x26508e6dn, 0x1ea119fan, 0x3d4233ddn, 0x2a1462b3n];
const CASHADDR_GENERATORS = [
  0x98f2bc8e61n,
  0x79b76d99e2n,
  0xf33e5fb3c4n,
  0xae2eabe2a8n,
  0x1e4f43e470n,
];

/**
 * The checksum bech32 and Bitcoin Cash's cashaddr share: 5-bit values through a BCH code of
 * `bits` bits given by its generators.
 */
function polymod(values: readonly number[], generators: readonly bigint[], bits: bigint): bigint {
  const mask = (1n << (bits - 5n)) - 1n;
  let chk = 1n;
  for (const v of values) {
    const top = chk >> (bits - 5n);
    chk = ((chk & mask) << 5n) ^ BigInt(v);
    generators.forEach((g, bit) => {
      if ((top >> BigInt(bit)) & 1n) chk ^= g;
    });
  }
  return chk;
}

/** The prefixes of SegWit's addresses: Bitcoin's and Litecoin's, on their main and test networks. */
const SEGWIT_PREFIXES = new Set(["bc", "tb", "ltc", "tltc"]);

/**
 * A bech32 address by its checksum over its prefix and data: SegWit's (Bitcoin `bc1`, Litecoin
 * `ltc1`, their testnets' `tb1`, `tltc1`) by BIP-173 for witness v0 and BIP-350's bech32m for
 * v1+, and Cardano's Shelley addresses (`addr1`, `stake1`, the testnets' `addr_test1`,
 * `stake_test1`), always bech32 and longer than BIP-173's 90 characters.
 */
function isBech32(address: string): boolean {
  const split = address.lastIndexOf("1");
  const hrp = address.slice(0, split);
  const prefix = [...hrp].map((c) => c.charCodeAt(0));
  const data = [...address.slice(split + 1)].map((c) => BECH32.indexOf(c));
  const chk = polymod(
    [...prefix.map((c) => c >> 5), 0, ...prefix.map((c) => c & 31), ...data],
    BECH32_GENERATORS,
    30n,
  );
  const segwit = SEGWIT_PREFIXES.has(hrp);
  return chk === (segwit && data[0] !== 0 ? 0x2bc830a3n : 1n);
}

/**
 * A Bitcoin Cash address (`bitcoincash:q…`, the prefix often left out): its 40-bit checksum over
 * the prefix and the payload, the prefix counted when it is not written.
 */
function isCashAddr(address: string): boolean {
  const values = [..."bitcoincash"].map((c) => c.charCodeAt(0) & 31);
  values.push(0, ...[...address.replace(/^bitcoincash:/, "")].map((c) => BECH32.indexOf(c)));
  return polymod(values, CASHADDR_GENERATORS, 40n) === 1n;
}

/** The human-readable parts of the bech32 addresses read (Bitcoin's, Litecoin's, Cardano's). */
const BECH32_SHAPED = /^(?:(?:bc|tb|t?ltc)1|(?:addr|stake)(?:_test)?1)/;

function cryptoAddresses(text: string): PiiSpan[] {
  return [
    // `0X…` too: the prefix is case-insensitive where addresses are parsed (EIP-55 checksums only
    // the hex digits' case).
    ...matches(/\b0[xX][0-9a-fA-F]{40}\b/g, text),
    // By their checksums: a hash's 26 to 35 hex digits are often base58 too. Every chain that
    // kept Bitcoin's base58check of a version byte and a 20-byte hash, whatever the version's
    // first character (Bitcoin, Litecoin, Dogecoin's `D`, `9`, `A`, Dash's `X`, `7`, Tron's `T`),
    // and the testnets' (`m`, `n`, `2`, Litecoin's `Q`, `tb1`): as much a person's as the main
    // network's.
    ...[
      ...matches(
        /\b(?:(?:bc|tb|t?ltc)1[02-9ac-hj-np-z]{25,59}|(?:addr|stake)(?:_test)?1[02-9ac-hj-np-z]{50,110}|[1-9A-HJ-NP-Za-km-z]{26,35})\b/g,
        text,
      ),
    ].filter(
      ([, v]) =>
        (BECH32_SHAPED.test(v) && isBech32(v)) ||
        isBase58Check(v) ||
        // Zcash's transparent addresses (`t1…`, `t3…`, testnet `tm…`): a version of two bytes.
        (v.length === 35 && isBase58Check(v, BASE58, 26)),
    ),
    // The XRP Ledger's X-addresses: `X…` on its main network, `T…` on its test networks.
    ...[
      ...matches(/\b(?:r[1-9A-HJ-NP-Za-km-z]{24,34}|[XT][1-9A-HJ-NP-Za-km-z]{46})\b/g, text),
    ].filter(([, v]) => isBase58Check(v, XRP_BASE58, v.startsWith("r") ? 25 : 35)),
    ...[...matches(/\b[1-9A-HJ-NP-Za-km-z]{55,130}\b/g, text)].filter(([, v]) => isByronAddress(v)),
    ...[...matches(/\b(?:bitcoincash:)?[qp][02-9ac-hj-np-z]{41}\b/g, text)].filter(([, v]) =>
      isCashAddr(v),
    ),
    // An ENS name resolves to its owner's address on chain: as identifying as the address.
    ...(ENS_SUFFIX.test(text) ? matches(ENS_NAME, text) : []),
    ...[...matches(/\b[48][1-9A-HJ-NP-Za-km-z]{94}(?:[1-9A-HJ-NP-Za-km-z]{11})?\b/g, text)].filter(
      ([, v]) => isMoneroAddress(v),
    ),
    ...(SOLANA_NAME.test(text)
      ? [...matches(/\b[1-9A-HJ-NP-Za-km-z]{32,44}\b/g, text)].filter(
          ([i, v]) => SOLANA_LABEL.test(text.slice(Math.max(0, i - 40), i)) && base58Bytes(v, 32),
        )
      : []),
  ].map(([i, v]) => span("CRYPTO", i, v));
}

const ENS_SUFFIX = /\.eth/iu;
/** An ENS name (`vitalik.eth`, `pay.alice.eth`): labels of 3 or more before `.eth`, as ENS registers. */
const ENS_NAME =
  /(?<![\p{L}\p{N}._@-])(?:[\p{L}\p{N}-]+\.)*[\p{L}\p{N}-]{3,}\.eth(?![\p{L}\p{N}-]|\.[\p{L}\p{N}])/giu;

/** Dates the numbering plans would accept as numbers (`2025-08-01`, `01.08.2025`). */
const DATE_SHAPED = /^(?:\d{4}-\d{2}-\d{2}|\d{1,2}[./-]\d{1,2}[./-]\d{2,4})$/;

/**
 * The numbering plans accept many short digit runs (order numbers, amounts, postcodes): a phone
 * number here has at least 8 digits, is not glued to a word or code before it (`INV-2022-98549`),
 * and is not shaped like a date or a decimal amount.
 */
function looksLikePhone(text: string, start: number, value: string): boolean {
  if ((value.match(/\d/g) ?? []).length < 8) return false;
  // A bracket before it is a call's or a note's: glued to the word before it (`increaseTo(1700000000)`).
  const before = text[start - 1] === "(" ? text[start - 2] : text[start - 1];
  if (/[\p{L}\p{N}-]/u.test(before ?? "")) return false;
  // A number written with its country code is dialled, not filed: a label before it (`reference:
  // +44 20 …`, a caller's reference) does not make it a document's.
  if (
    !value.startsWith("+") &&
    DOCUMENT_NUMBER_LABEL.test(text.slice(Math.max(0, start - 48), start))
  )
    return false;
  // A Brazilian CEP (5-3) after its mark or a state's abbreviation is an address's postcode.
  if (/^\d{5}-?\d{3}$/.test(value) && CEP_BEFORE.test(text.slice(Math.max(0, start - 8), start)))
    return false;
  // Digits apart by `/` in a link's path are its segments (`…/i/399657/68221862`), as for cards,
  // and digits glued to more of a segment are an id's (`…/159795115-ed62440a.png`); a number that
  // is a segment is still read (`https://wa.me/4915123456789`).
  if (
    (value.includes("/") || /^[-_][\p{L}\p{N}]/u.test(text.slice(start + value.length))) &&
    inLink(text, start)
  )
    return false;
  return (
    !DATE_SHAPED.test(value) &&
    !/^\d+[.,]\d{1,2}$/.test(value) &&
    // A decimal (`40.712776`, a coordinate), or decimals apart by a dash or a slash (`0.445-0.475`,
    // a range; `0.998 / 0.992`): no plan writes a number with a single dot after at most three
    // digits.
    !/^\d{1,3}\.\d+(?:[ \t]?[-–/][ \t]?\d{1,3}\.\d+)*$/.test(value) &&
    // A date written without separators (`20250403`), as builds and file names carry it.
    !/^(?:19|20)\d{2}(?:0[1-9]|1[0-2])(?:0[1-9]|[12]\d|3[01])$/.test(value) &&
    // A round quantity in one run, with no trunk prefix nor country code (`86400000` ms, a day;
    // `30000000`): read as German numbers missing their 0; a phone written so is labelled.
    !/^[1-9]\d*0000$/.test(value) &&
    // An SSN's shape (3-2-4), valid or not: no national plan groups a number so.
    !SSN_SHAPED.test(value) &&
    // A year then a separator (`2025/00817`, `2024-11-24-001`): no national plan of the
    // configured regions starts a number so; an EIN (`12-3456789`) is a company's.
    !/^(?:19|20)\d{2}[/.-]/.test(value) &&
    // A US ZIP+4 (62704-1234) ends an address: no plan writes a number 5-4.
    !/^\d{5}-\d{4}$/.test(value) &&
    !/^\d{2}-\d{7}$/.test(value) &&
    !HOLDS_DATE.test(value) &&
    // Figures apart by slashes (`260 / 257 / 130 ms`): a plan writes one slash at most, after the
    // area code (`0221/123456`).
    value.indexOf("/") === value.lastIndexOf("/")
  );
}

/**
 * A date within a number, year first with dashes or day and month first with dots or slashes
 * (`7.0.0 / 2018-07-16`, a release's heading, `0.15.9 - 2024-12-18`, `29.07.2026`, `07/29/2026`):
 * no plan writes four digits that read as a year after two groups that read as a day and a month.
 */
const HOLDS_DATE =
  /(?<!\d)(?:(?:19|20)\d{2}-(?:0[1-9]|1[0-2])-(?:0[1-9]|[12]\d|3[01])|(?:0?[1-9]|[12]\d|3[01])([./])(?:0?[1-9]|[12]\d|3[01])\1(?:19|20)\d{2})(?!\d)/u;

const CEP_BEFORE = new RegExp(`(?:\\bCEP:?|[-–/] ?${BRAZIL_STATE},?)\\s*$`, "u");

/**
 * Numbers of documents and companies, not people's phones, follow these labels; a company's number
 * also follows where it is registered (`registered in England and Wales (No. 08123456)`).
 */
const DOCUMENT_NUMBER_LABEL =
  /\b(?:(?:registered|incorporated)(?: in \p{Lu}\p{L}+(?: (?:and|&) \p{Lu}\p{L}+)?)?,? \(?(?:under )?(?:company )?(?:no|nr|number)|company|registration|reg|invoice|order|PO|tax|VAT|EIN|CUSIP|ISIN|ISBN|ISSN|EAN|GTIN|UPC|policy|contract|case|docket|claim|ticket|reference|ref|batch|lot|serial|tracking|shipment|parcel|FedEx|UPS|USPS|DHL|DOI|arXiv|PMID|SKU|patent|Rechnung|Bestellung|Vertrag|Police|Aktenzeichen|Sendung|facture|commande|contrat|dossier|factura|pedido|póliza|contrato|expediente|fattura|ordine|polizza|contratto|pratica)\.?(?: (?:no|nr|n°|number|id|ref))?\.?[:#\s]*$/iu;

/**
 * A phone label right before a number, in the six languages, Portuguese and Dutch, and as signatures
 * abbreviate it (`T:`, `M:`, `F:`, only with the colon: a capital alone before a number is often a
 * model or a form),
 * and a person's number in English (`my number is`, `her mobile no.`; `your number is` names a
 * ticket as often): after one, a number in a format the configured regions' plans do not know (a
 * Brazilian `(11) 2345-6789`, a 10-digit Indian mobile) is redacted all the same.
 */
const PHONE_LABEL =
  /\b(?:(?:tel|tél|phone|telephone|téléphone|telefon|teléfono|telefono|telefone|telemóvel|telemovel|celular|telefoon|telefoonnummer|mobiel|telf|mobile|mob|mobil|cell|cellphone|handy|portable|móvil|movil|cellulare|cel|fax|ph|whatsapp)\.?(?: (?:no|nr|n°|number|#))?\.?\s?[:.]?|call(?: (?:me|us|him|her|them))?(?: (?:at|on))?|(?:text|reach|ring) (?:me|us|him|her|them)(?: (?:at|on))?|(?:my|his|her|their|our) (?:(?:phone|mobile|cell|home|work|direct) )?(?:number|no\.?)(?: is|['’]s)?:?|dial|erreichbar unter|unter der Nummer|appelez(?:-moi|-nous)?(?: au| le)?|joignable au|ll[áa]m(?:e|ame|enos) al|chiam(?:a|are|ami|ateci) (?:il|al))\s*$|(?<![\p{L}\p{N}.])[TMF]\s?:\s*$/iu;

/**
 * A local number after a phone label, 5 to 7 digits (`Tel: 555-1234`, `Fax 12 34 56`): without a
 * label, that many digits are too many other things to be read as a phone.
 */
const LOCAL_PHONE =
  /(?<![\p{L}\p{N}+.,/-])\(?\d(?:[ ()./-]{0,2}\d){4,6}(?!\p{N}|[ ()./-]{1,2}\d)/gu;

function localPhones(text: string): PiiSpan[] {
  const out: PiiSpan[] = [];
  for (const [i, v] of matches(LOCAL_PHONE, text))
    if (!DATE_SHAPED.test(v) && PHONE_LABEL.test(text.slice(Math.max(0, i - 24), i)))
      out.push(span("PHONE", i, v));
  return out;
}

/**
 * Stretches of text that can hold a phone number: at least 8 digits with the separators phone
 * formats use. libphonenumber reads only these (with a little context), not the whole text: its
 * matcher over every region was most of the redaction's CPU after names.
 */
const PHONE_CANDIDATE =
  /\+?\(?\d(?:[ \t()./-]{0,3}\d){7,16}(?:[ \t]*(?:ext\.?|x|#)[ \t]*\d{1,5})?/g;

/** A stretch that can hold a phone number, and where a read of it may take context from. */
interface PhoneCandidate {
  start: number;
  value: string;
  contextFrom: number;
}

/**
 * The stretches of `PHONE_CANDIDATE`, each cut where a date starts and taken up again after it
 * (`1.2.0 (2026-07-29)`, a release's heading; `2026-07-29 030 12345678`, a log's line): no plan
 * writes a date's digits, and a number read across a date was refused whole or cut short. What
 * stands before a date is a stretch if it holds 8 digits. A read takes two characters before its
 * stretch as context (`+`, a letter it refuses after), none of the date's: read with a date's last
 * digit, a number is read as one that fails. A stretch holds 17 digits at most: where one goes on
 * (`0171 1234567\t030 12345678`, two columns' numbers), the reader passes `next()` the end of the
 * last number it read in it, and the stretches are taken up again there.
 */
function* phoneCandidates(text: string): Generator<PhoneCandidate, void, number | undefined> {
  let afterDate = 0;
  for (let m = execFrom(PHONE_CANDIDATE, text, 0); m;) {
    const contextFrom = Math.max(afterDate, m.index - 2);
    const date = HOLDS_DATE.exec(m[0]);
    let next = m.index + m[0].length;
    if (!date) {
      const resumeAt = yield { start: m.index, value: m[0], contextFrom };
      if (resumeAt !== undefined && resumeAt > m.index) next = resumeAt;
    } else {
      const before = m[0].slice(0, date.index).replace(/[ \t()./-]+$/u, "");
      if ((before.match(/\d/g) ?? []).length >= 8)
        yield { start: m.index, value: before, contextFrom };
      next = afterDate = m.index + date.index + date[0].length;
    }
    m = execFrom(PHONE_CANDIDATE, text, next);
  }
}

/** A stretch cut at its 17 digits: another group of digits follows it. */
const STRETCH_GOES_ON = /^[ \t()./-]{0,3}\d/u;
const RUN_SEPARATORS = " \t()./-";

/** Where the run of digits going on at `from` ends: each digit at most three separators after the last. */
function runEnd(text: string, from: number): number {
  let end = from;
  for (let at = from; ;) {
    let digit = at;
    while (digit < text.length && digit - at < 3 && RUN_SEPARATORS.includes(text[digit]!)) digit++;
    if (!/\d/u.test(text[digit] ?? "")) return end;
    end = at = digit + 1;
  }
}

/**
 * What one text's phone scan may cost. A read is one call of libphonenumber on a candidate's window
 * for one region; it gives up after `PHONE_TRIES` numbers that fail to parse (each inner split of
 * the window is one: `1 1 1 …` split on every space cost 18 per read). Each `PHONE_WINDOW` of text
 * gets `PHONE_READS_PER_WINDOW` reads (an ordinary text needs at most about half, a page of
 * numbers of the last configured region more); the candidates of a window past its reads are
 * redacted whole as PHONE without reading them (fail closed: digit-heavy text loses precision,
 * never recall).
 */
export const PHONE_TRIES = 4;
export const PHONE_WINDOW = 1024;
export const PHONE_READS_PER_WINDOW = 64;

export interface PhoneScan {
  spans: PiiSpan[];
  /** libphonenumber reads made (the work the budget bounds). */
  reads: number;
}

/**
 * A candidate covered by a more specific span found before (a card, an IBAN, an account number)
 * is not read: a phone number there would lose the overlap anyway. An international candidate is
 * read once; a national one per configured region, up to the first region that reads it whole.
 */
export function scanPhones(
  text: string,
  regions: readonly CountryCode[],
  specific: readonly PiiSpan[] = [],
): PhoneScan {
  const out: PiiSpan[] = [];
  const seen = new Set<string>();
  const readsIn = new Map<number, number>();
  let reads = 0;
  // Candidates come in text order: walk the specific spans by start, keeping the furthest end.
  const byStart = [...specific].sort((a, b) => a.start - b.start);
  let next = 0;
  let furthestEnd = -1;
  // libphonenumber throws and catches an error per number that fails to parse: capturing their
  // stacks, never read, was most of its time on digit-heavy text.
  const stackTraceLimit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  try {
    const candidates = phoneCandidates(text);
    // Where a stretch cut short is taken up again, handed back to the candidates.
    let resumeAt: number | undefined;
    for (let step = candidates.next(); !step.done; step = candidates.next(resumeAt)) {
      resumeAt = undefined;
      const { start: cStart, value, contextFrom } = step.value;
      const cEnd = cStart + value.length;
      while (next < byStart.length && byStart[next]!.start <= cStart)
        furthestEnd = Math.max(furthestEnd, byStart[next++]!.end);
      if (furthestEnd >= cEnd) continue;
      const goesOn = STRETCH_GOES_ON.test(text.slice(cEnd, cEnd + 4));
      // Taken whole unread, a stretch cut short takes the rest of its run: none of it is sent.
      const takeWhole = () => {
        const end = goesOn ? runEnd(text, cEnd) : cEnd;
        if (goesOn) resumeAt = end;
        out.push(span("PHONE", cStart, text.slice(cStart, end)));
      };
      if (UNREADABLE_CANDIDATE.test(withoutOpenBracket(value))) {
        // Every number a read could find in it, `looksLikePhone` refuses: not read.
        if (phoneLabelled(text, cStart, value)) takeWhole();
        continue;
      }
      const windowReads = readsIn.get(Math.floor(cStart / PHONE_WINDOW)) ?? 0;
      if (windowReads >= PHONE_READS_PER_WINDOW) {
        // A date holds no longer number that could be a phone's.
        if (!DATE_SHAPED.test(value)) takeWhole();
        continue;
      }
      const from = contextFrom;
      const window = text.slice(from, cEnd + 1);
      // `+` reads without a region; `00` is an international prefix only in a region that dials it.
      const international = value.startsWith("+");
      const readAs = international || !regions.length ? [undefined] : regions;
      let made = 0;
      let whole = false;
      // Where a stretch cut short is read again: after its last number, or where a number that
      // reaches the cut starts (read short: `(212) 555-01` of `… (212) 555-0199`).
      let readAgainAt = cStart;
      for (const region of readAs) {
        made++;
        const found = findPhoneNumbersInText(window, readOptions(region))
          .map((f) => ({
            ...numberBounds(text, from + f.startsAt, from + f.endsAt),
            valid: f.number.isValid(),
          }))
          .filter((f) => f.valid && looksLikePhone(text, f.start, text.slice(f.start, f.end)));
        for (const f of found) {
          if (goesOn && f.end >= cEnd) {
            if (readAgainAt === cStart || f.start < readAgainAt) readAgainAt = f.start;
            continue;
          }
          if (f.end > readAgainAt) readAgainAt = f.end;
          if (seen.has(`${f.start}:${f.end}`)) continue;
          seen.add(`${f.start}:${f.end}`);
          out.push(span("PHONE", f.start, text.slice(f.start, f.end)));
        }
        // Another region cannot do better than a number spanning the whole candidate.
        whole = found.some((f) => f.start <= cStart + 1 && f.end >= cEnd);
        if (whole) break;
      }
      if (goesOn && readAgainAt > cStart) resumeAt = readAgainAt;
      else if (!whole && phoneLabelled(text, cStart, value)) takeWhole();
      readsIn.set(Math.floor(cStart / PHONE_WINDOW), windowReads + made);
      reads += made;
    }
  } finally {
    Error.stackTraceLimit = stackTraceLimit;
  }
  return { spans: out, reads };
}

/**
 * A read's number without the white space or the unmatched bracket it may start with (` 2018-11-07`
 * after `7.0.1 /`, `(2026-07-29` in a release's heading): the checks read the number as written.
 */
function numberBounds(text: string, start: number, end: number): { start: number; end: number } {
  while (start < end && /\s/u.test(text[start]!)) start++;
  while (end > start && /\s/u.test(text[end - 1]!)) end--;
  if (text[start] === "(" && !text.slice(start, end).includes(")")) start++;
  return { start, end };
}

/** A candidate without a bracket it opens and does not close (`(2026-07-29`). */
function withoutOpenBracket(candidate: string): string {
  return candidate.startsWith("(") && !candidate.includes(")") ? candidate.slice(1) : candidate;
}

/** A number that is no date, after a phone's label: a phone's whatever the reads find. */
function phoneLabelled(text: string, start: number, candidate: string): boolean {
  return (
    !DATE_SHAPED.test(candidate) && PHONE_LABEL.test(text.slice(Math.max(0, start - 24), start))
  );
}

/**
 * Candidates no read can give a phone number of: a date (`2027-04-01`, `01.08.2025`), or a year
 * and dashed digits (`2023-40111`, an invoice's or a case's number). Whatever a read finds in one
 * starts on the year and a separator, or after a digit or a dash, or holds fewer than 8 digits,
 * all of which `looksLikePhone` refuses; reading them was most of the phone scan's reads over the
 * corpora (each read once per configured region).
 */
const UNREADABLE_CANDIDATE = new RegExp(`${DATE_SHAPED.source}|^(?:19|20)\\d{2}(?:-\\d+)+$`);

/**
 * `maxTries` is the matcher's own bound for degenerate text (PhoneNumberMatcher's options), which
 * the package's typings of findPhoneNumbersInText leave out.
 */
function readOptions(region: CountryCode | undefined): { defaultCountry?: CountryCode } {
  const options: { defaultCountry?: CountryCode; maxTries: number } = { maxTries: PHONE_TRIES };
  if (region) options.defaultCountry = region;
  return options;
}

/**
 * Where each of Unicode's runs of decimal digits (`\p{Nd}`, ten long, 0 to 9) begins, beyond ASCII
 * (Unicode 17, all below U+20000): Arabic-Indic, Devanagari, full-width, the mathematical bold and
 * monospace digits beyond the Basic Multilingual Plane, …. A table rather than a scan of the code
 * space at load, which every redaction thread would pay; a test checks it against the runtime's
 * `\p{Nd}`.
 */
export const DIGIT_RUNS: readonly number[] = [
  0x660, 0x6f0, 0x7c0, 0x966, 0x9e6, 0xa66, 0xae6, 0xb66, 0xbe6, 0xc66, 0xce6, 0xd66, 0xde6, 0xe50,
  0xed0, 0xf20, 0x1040, 0x1090, 0x17e0, 0x1810, 0x1946, 0x19d0, 0x1a80, 0x1a90, 0x1b50, 0x1bb0,
  0x1c40, 0x1c50, 0xa620, 0xa8d0, 0xa900, 0xa9d0, 0xa9f0, 0xaa50, 0xabf0, 0xff10, 0x104a0, 0x10d30,
  0x10d40, 0x11066, 0x110f0, 0x11136, 0x111d0, 0x112f0, 0x11450, 0x114d0, 0x11650, 0x116c0, 0x116d0,
  0x116da, 0x11730, 0x118e0, 0x11950, 0x11bf0, 0x11c50, 0x11d50, 0x11da0, 0x11de0, 0x11f50, 0x16130,
  0x16a60, 0x16ac0, 0x16b50, 0x16d70, 0x1ccf0, 0x1d7ce, 0x1d7d8, 0x1d7e2, 0x1d7ec, 0x1d7f6, 0x1e140,
  0x1e2f0, 0x1e4f0, 0x1e5f1, 0x1e950, 0x1fbf0,
];

/** The other scripts' digits by the ASCII digit they write. */
const OTHER_DIGITS: ReadonlyMap<string, string> = new Map(
  DIGIT_RUNS.flatMap((zero) =>
    Array.from({ length: 10 }, (_, d) => [String.fromCodePoint(zero + d), String(d)] as const),
  ),
);

/**
 * What the view leaves out of the text: characters that join or hyphenate unseen (zero-width space
 * and joiners, word joiner, BOM, soft hyphen), and a digit beyond the Basic Multilingual Plane
 * (`𝟒`, two UTF-16 units), whose first unit the view writes as its ASCII digit and whose second it
 * leaves out.
 */
const LEFT_OUT = /[\u00ad\u200b-\u200d\u2060\ufeff]|(?=\p{Nd})[\u{10000}-\u{1ffff}]/gu;

/**
 * HTML's named character references for Latin-1 (U+00A0 to U+00FF, in order), as pasted e-mails
 * and pages write accented letters and spaces (`M&uuml;ller`, `Jane&nbsp;Doe`).
 */
const LATIN1_ENTITIES =
  "nbsp iexcl cent pound curren yen brvbar sect uml copy ordf laquo not shy reg macr deg plusmn sup2 sup3 acute micro para middot cedil sup1 ordm raquo frac14 frac12 frac34 iquest Agrave Aacute Acirc Atilde Auml Aring AElig Ccedil Egrave Eacute Ecirc Euml Igrave Iacute Icirc Iuml ETH Ntilde Ograve Oacute Ocirc Otilde Ouml times Oslash Ugrave Uacute Ucirc Uuml Yacute THORN szlig agrave aacute acirc atilde auml aring aelig ccedil egrave eacute ecirc euml igrave iacute icirc iuml eth ntilde ograve oacute ocirc otilde ouml divide oslash ugrave uacute ucirc uuml yacute thorn yuml";
const NAMED_ENTITIES: ReadonlyMap<string, string> = new Map([
  ...LATIN1_ENTITIES.split(" ").map((name, i) => [name, String.fromCharCode(0xa0 + i)] as const),
  ...Object.entries({ amp: "&", lt: "<", gt: ">", quot: '"', apos: "'", ndash: "–", mdash: "—" }),
  ...Object.entries({ lsquo: "‘", rsquo: "’", ldquo: "“", rdquo: "”", OElig: "Œ", oelig: "œ" }),
  ...Object.entries({ Scaron: "Š", scaron: "š", Yuml: "Ÿ", euro: "€" }),
]);
/** A character reference: named, decimal or hexadecimal. */
const ENTITY = "&(?:#[0-9]{1,7}|#[xX][0-9a-fA-F]{1,6}|[A-Za-z][A-Za-z0-9]{1,7});";
/** The character a reference stands for, if it is one unit of the Basic Multilingual Plane. */
function entityChar(entity: string): string | undefined {
  const body = entity.slice(1, -1);
  if (!body.startsWith("#")) return NAMED_ENTITIES.get(body);
  const code = /^#[xX]/u.test(body) ? parseInt(body.slice(2), 16) : parseInt(body.slice(1), 10);
  return code > 0 && code <= 0xffff && !(code >= 0xd800 && code <= 0xdfff)
    ? String.fromCharCode(code)
    : undefined;
}
const LEFT_OUT_OR_ENTITY = new RegExp(`${LEFT_OUT.source}|${ENTITY}`, "gu");

/**
 * The view's positions, and its end, at the text's: `leftOut` are the text's units the view does
 * not hold, in order.
 */
function offsetsWithout(leftOut: readonly number[], length: number): Int32Array {
  const offsets = new Int32Array(length - leftOut.length + 1);
  let kept = 0;
  let from = 0;
  for (const at of [...leftOut, length]) {
    for (let i = from; i < at; i++) offsets[kept++] = i;
    from = at + 1;
  }
  offsets[kept] = length;
  return offsets;
}

/**
 * The text the detectors read: the redaction's own placeholders blanked, invisible characters
 * left out (`offsets` maps each of the view's positions, and its end, back to the text's; null when
 * nothing was), and what word processors and PDF copies put inside numbers read as what it stands
 * for: full-width forms (`４１１１`, `ｊａｎｅ＠…`, as Japanese and Chinese texts write them) and other
 * scripts' digits as ASCII, no-break, figure, thin, narrow and ideographic spaces as a space, the
 * Unicode dashes and the minus sign as `-`, a line break between two digits (a number wrapped
 * across lines) as a space, and HTML's character references as their characters (`M&uuml;ller`,
 * `Jane&nbsp;Doe`, `jane&#64;example.com`, as pasted e-mails and pages write them; the reference's
 * character stands for its `&`, the rest is left out). Each stands for one UTF-16 unit, so the
 * view keeps the text's offsets, but for a digit beyond the Basic Multilingual Plane: its ASCII
 * digit stands for its first unit.
 */
function detectionView(text: string): { view: string; offsets: Int32Array | null } {
  let view = text.replace(PLACEHOLDER, (p) => " ".repeat(p.length));
  const leftOut: number[] = [];
  view = view.replace(
    view.includes("&") ? LEFT_OUT_OR_ENTITY : LEFT_OUT,
    (c: string, at: number) => {
      // A character reference reads as its character, written where its `&` is; the rest left out.
      if (c.startsWith("&")) {
        const char = entityChar(c);
        if (char === undefined) return c;
        for (let k = 1; k < c.length; k++) leftOut.push(at + k);
        return char;
      }
      if (c.length === 1) {
        leftOut.push(at);
        return "";
      }
      leftOut.push(at + 1);
      return OTHER_DIGITS.get(c)!;
    },
  );
  view = view
    .replace(/[\uff01-\uff5e]/g, (c) => String.fromCharCode(c.charCodeAt(0) - 0xfee0))
    .replace(/(?![0-9])\p{Nd}/gu, (d) => OTHER_DIGITS.get(d) ?? d)
    .replace(/[\u00a0\u2007\u2009\u200a\u202f\u3000]/g, " ")
    .replace(/[\u2010-\u2015\u2212]/g, "-")
    .replace(/(?<=\d)\n(?=\d)/g, " ");
  return { view, offsets: leftOut.length > 0 ? offsetsWithout(leftOut, text.length) : null };
}

/** Every piece of personal data found, non-overlapping, in text order. */
/**
 * Social networks and messengers a person's handle is given on. The short or everyday names
 * (`X`, `TG`, `Signal`, `Line`, `Slack`) lead only a handle written with its `@`.
 */
const NAMED_NETWORKS =
  "Telegram|Twitter|Instagram|Discord|Skype|WeChat|Snapchat|TikTok|Keybase|GitHub|GitLab|Bluesky|Mastodon|Reddit|LinkedIn|Facebook|Farcaster|Warpcast|WhatsApp";
const SHORT_NETWORKS = "X|TG|IG|Insta|FB|Signal|Line|Threads|Slack";
/** What a network's name may be followed by before its handle (`Telegram handle:`, `X id`). */
const HANDLE_KIND =
  "(?: (?:handle|username|user ?name|user ?id|id|account|profile|nick(?:name)?))?";
/** A handle without its `@`: letters, digits, `_`, `.` and `-` inside, Discord's old `#1234`. */
const HANDLE_EDGE = "[\\p{L}\\p{N}_]";
const HANDLE_INSIDE = "[\\p{L}\\p{N}_.-]{0,37}";
const DISCORD_TAG = "(?:#\\d{4})?";
const BARE_HANDLE = `${HANDLE_EDGE}(?:${HANDLE_INSIDE}${HANDLE_EDGE})${DISCORD_TAG}`;
/** A handle with its `@`, not an e-mail address's (nothing of a local part before the `@`). */
const AT_HANDLE = `(?<!${LOCAL_PART})@${HANDLE_EDGE}(?:${HANDLE_INSIDE}${HANDLE_EDGE})?${DISCORD_TAG}`;
/** Where a handle ends: not inside a longer one, an address or a path (`@jane.doe`, `@x/y`). */
const HANDLE_END = "(?![\\p{L}\\p{N}_@/]|[.-][\\p{L}\\p{N}_])";
/** A network's name anywhere, or a word that says a handle follows: whether a form can match. */
const NETWORK_NAMED = new RegExp(NAMED_NETWORKS, "iu");
const HANDLE_SAID = /handle|user ?name|nick/iu;
const PROFILE_HOSTS =
  "t\\.me|telegram\\.me|instagram\\.com|facebook\\.com|tiktok\\.com/@|x\\.com|twitter\\.com|linkedin\\.com/in|warpcast\\.com|bsky\\.app/profile";
/** Code hosts, whose links of one segment are a profile's. */
const CODE_HOSTS = "github\\.com|gitlab\\.com";
const PROFILE_HOST = new RegExp(`(?:${PROFILE_HOSTS}|${CODE_HOSTS})/`, "iu");

/** Whether an `@` in the text starts a handle: none before it of an address's local part. */
function holdsAtHandle(text: string): boolean {
  for (let at = text.indexOf("@"); at >= 0; at = text.indexOf("@", at + 1))
    if (
      (at === 0 || !LOCAL_PART_CHAR.test(text[at - 1]!)) &&
      /[\p{L}\p{N}_]/u.test(text[at + 1] ?? "")
    )
      return true;
  return false;
}

/**
 * The forms a handle is given in, each tried only where its gate finds what it needs (every text
 * with an e-mail address has an `@`); the first group is the handle, `bare` ones may lack the `@`.
 */
const HANDLE_FORMS: ReadonlyArray<{
  re: RegExp;
  bare: boolean;
  gate: "at" | "named" | "said" | "host";
  /** An `@` with nothing around it that says a handle follows. */
  mention?: true;
}> = [
  // After the network's name: `Telegram: @jsmith_88`, `twitter @janedoe`, `X handle is @jd`.
  {
    re: new RegExp(
      `(?<![\\p{L}\\p{N}])(?:${NAMED_NETWORKS}|${SHORT_NETWORKS})${HANDLE_KIND}[ \\t]*[:：]?[ \\t]*(?:(?:is|at|on)[ \\t]+)?(${AT_HANDLE})${HANDLE_END}`,
      "giu",
    ),
    bare: false,
    gate: "at",
  },
  // Without its `@` after a named network and its colon: `Skype: jane.doe.77`, `Discord: tom#1234`.
  {
    re: new RegExp(
      `(?<![\\p{L}\\p{N}])(?:${NAMED_NETWORKS})${HANDLE_KIND}[ \\t]*[:：][ \\t]*(${BARE_HANDLE})${HANDLE_END}`,
      "giu",
    ),
    bare: true,
    gate: "named",
  },
  // Before the network: `contact @jsmith on Telegram`.
  {
    re: new RegExp(
      `(${AT_HANDLE})${HANDLE_END}[ \\t]+(?:on|via|at|in)[ \\t]+(?:${NAMED_NETWORKS}|${SHORT_NETWORKS})(?![\\p{L}\\p{N}])`,
      "giu",
    ),
    bare: false,
    gate: "at",
  },
  // Said to be one: `my handle is @cryptoanna`, `her telegram username: anna_k`.
  {
    re: new RegExp(
      `(?<![\\p{L}\\p{N}])(?:my|his|her|their|your|our)[ \\t]+(?:(?:${NAMED_NETWORKS}|${SHORT_NETWORKS})[ \\t]+)?(?:handle|username|user name|nick(?:name)?)[ \\t]*(?:is|:)[ \\t]*(${AT_HANDLE}|${BARE_HANDLE})${HANDLE_END}`,
      "giu",
    ),
    bare: true,
    gate: "said",
  },
  // Written to: `DM me @jsmith`, `ping @anna_k`, `follow us at @veriflow`.
  {
    re: new RegExp(
      `(?<![\\p{L}\\p{N}])(?:DM|PM|message|ping|follow|contact|reach|add)(?:[ \\t]+(?:me|us|him|her|them))?(?:[ \\t]+(?:at|on|via))?[ \\t]+(${AT_HANDLE})${HANDLE_END}`,
      "giu",
    ),
    bare: false,
    gate: "at",
  },
  // A mention in running text, as chats, tickets and changelogs write one (`thanks @jdoe`, `cc
  // @anna.k`, `by [@samchungy](…)`): not in a code span, nor a decorator or a call (`@Injectable()`).
  {
    re: new RegExp(`(?<![\\p{L}\\p{N}\`{@])(${AT_HANDLE})${HANDLE_END}(?![ \\t]*\\()`, "gu"),
    bare: false,
    gate: "at",
    mention: true,
  },
  // A code host's link of one segment, a person's or an organisation's profile
  // (`github.com/ljharb`, `gitlab.com/jdoe`); a project's has two or more (`github.com/o/r`).
  {
    re: new RegExp(
      `(?<![\\p{L}\\p{N}.-])(?:https?://)?(?:www\\.)?(?:${CODE_HOSTS})/(${BARE_HANDLE})(?![\\p{L}\\p{N}_@]|[./-][\\p{L}\\p{N}_])`,
      "giu",
    ),
    bare: true,
    gate: "host",
  },
  // A profile's link on a network whose links name a person (`t.me/jsmith`,
  // `linkedin.com/in/jane-doe-123`, `x.com/janedoe`).
  {
    re: new RegExp(
      `(?<![\\p{L}\\p{N}.-])(?:https?://)?(?:www\\.|m\\.)?(?:${PROFILE_HOSTS})/(${BARE_HANDLE})(?![\\p{L}\\p{N}_])`,
      "giu",
    ),
    bare: true,
    gate: "host",
  },
];
/**
 * What follows a network's name where no handle is given (`Telegram: none`, `x.com/intent`), and
 * the groups a chat notifies (`@here`, `Slack: @channel`).
 */
const NOT_HANDLES = words(
  "none na n.a tbd tba tbc pending unknown http https www intent share sharer home hashtag search explore i groups pages events watch login signup settings privacy help about status features pricing marketplace topics trending collections sponsors orgs organizations enterprise security customer-stories readme team notifications new join site contact " +
    "all everyone here channel",
);
/**
 * What an `@` in running text starts that names no one: a tag of documentation comments (JSDoc's,
 * NatSpec's, PHPDoc's), a CSS or Sass rule, a decorator or annotation without its arguments
 * (`@property`, `@Override`), a TypeScript or linter directive.
 */
const NOT_MENTIONS = words(
  "abstract access alias api async augments author borrows callback class classdesc constant constructor constructs copyright default defaultvalue deprecated desc description emits enum event example exports extends external file fileoverview fires function generator global hideconstructor ignore implements inheritdoc inner instance interface kind lends license link linkcode linkplain listens member memberof method mixes mixin module name namespace override overview package param private prop property protected public readonly requires return returns satisfies see since static summary template this throws todo tutorial type typedef typeparam variation version yields internal alpha beta experimental remarks packagedocumentation privateremarks date preserve " +
    "title notice dev custom var throw uses " +
    "media import font-face keyframes supports charset page layer container apply tailwind include extend use forward each if else for while content debug warn error at-root " +
    "staticmethod classmethod dataclass abstractmethod cached_property contextmanager wraps pytest test before after beforeeach aftereach beforeall afterall suppresswarnings functionalinterface nullable nonnull " +
    "ts-ignore ts-expect-error ts-nocheck ts-check jsx jsxfrag jsximportsource flow format prettier-ignore vite-ignore webpackchunkname",
);

/**
 * A person's handle on a social network or messenger, as NAME (their name there): after the
 * network's name or a word that gives one, and in a profile's link. A handle without its `@` is
 * none where it is an everyday word (`Telegram: yes`, `Skype: see above`).
 */
function handles(text: string): PiiSpan[] {
  const gates = {
    at: holdsAtHandle(text),
    named: NETWORK_NAMED.test(text),
    said: HANDLE_SAID.test(text),
    host: PROFILE_HOST.test(text),
  };
  const out: PiiSpan[] = [];
  for (const { re, bare, gate, mention } of HANDLE_FORMS) {
    if (!gates[gate]) continue;
    for (const m of execAll(re, text)) {
      const value = m[1]!;
      const plain = value
        .replace(/^@/u, "")
        .replace(/#\d{4}$/u, "")
        .toLowerCase();
      if (NOT_HANDLES.has(plain)) continue;
      // A capitalised everyday word alone is a decorator or an annotation (`@Component`, `@Test`);
      // a domain is an address's end (`""@example.com`); one character a placeholder's (`@x`).
      if (
        mention &&
        (NOT_MENTIONS.has(plain) ||
          plain.length < 2 ||
          (/^@\p{Lu}\p{Ll}+$/u.test(value) &&
            (isCommonWord(plain) || COMMON_ENGLISH_WORDS.has(plain))) ||
          DOMAIN_END.test(plain))
      )
        continue;
      if (bare && !value.startsWith("@") && !/[\d_.-]/u.test(plain) && isCommonWord(plain))
        continue;
      out.push(span("NAME", m.index + m[0].lastIndexOf(value), value));
    }
  }
  return out;
}

export function findPii(text: string, options: RedactionOptions = DEFAULT_REDACTION): PiiSpan[] {
  const { view: masked, offsets } = detectionView(text);
  const specific = [
    ...emails(masked),
    ...(options.cryptoAddresses ? cryptoAddresses(masked) : []),
    ...ibans(masked),
    ...cards(masked),
    ...ssns(masked),
    ...nationalIds(masked),
    ...ips(masked),
    ...bankAccounts(masked),
    ...datesOfBirth(masked),
    ...tableColumns(masked),
    ...htmlTableCells(masked),
  ];
  const candidates = [
    ...specific,
    ...scanPhones(masked, options.phoneRegions, specific).spans,
    ...localPhones(masked),
    ...addresses(masked),
    ...names(masked),
    ...handles(masked),
  ].filter((s) => s.value.trim().length > 0);
  candidates.sort(
    (a, b) => PRIORITY[a.type] - PRIORITY[b.type] || b.end - b.start - (a.end - a.start),
  );
  const taken = new Intervals();
  for (const c of candidates) if (!taken.overlaps(c.start, c.end)) taken.add(c);
  // At the text's offsets, the values as written (restoring puts back exactly what it held).
  return taken.spans.map((s) => {
    const start = offsets ? offsets[s.start]! : s.start;
    // The view's last character stood for one unit of the text, or for both of an astral digit's.
    const last = offsets ? offsets[s.end - 1]! : s.end - 1;
    const end = last + (isHighSurrogate(text.charCodeAt(last)) ? 2 : 1);
    return { ...s, start, end, value: text.slice(start, end) };
  });
}

/**
 * Non-overlapping spans kept sorted by start: an overlap test and an insertion are a binary search
 * (a 256 KiB text holds thousands of spans; a linear scan per candidate was quadratic).
 */
class Intervals {
  readonly spans: PiiSpan[] = [];

  /** Index of the first span that ends after `start`. */
  private firstEndingAfter(start: number): number {
    let lo = 0;
    let hi = this.spans.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.spans[mid]!.end <= start) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  overlaps(start: number, end: number): boolean {
    const next = this.spans[this.firstEndingAfter(start)];
    return next !== undefined && next.start < end;
  }

  add(span: PiiSpan): void {
    this.spans.splice(this.firstEndingAfter(span.start), 0, span);
  }
}

/**
 * Replaces every piece of personal data by a typed placeholder, numbered per type in order of
 * appearance; the same value gets the same placeholder. Throws RedactionError (fail closed) when a
 * detector fails: the caller then sends nothing.
 */
export function redact(
  text: string,
  options: RedactionOptions = DEFAULT_REDACTION,
  start: Map<string, string> = new Map(),
): Redaction {
  let spans: PiiSpan[];
  try {
    spans = findPii(text, options);
  } catch (err) {
    throw new RedactionError("a personal-data detector failed; nothing was sent", { cause: err });
  }
  const placeholders = new Map(start);
  const byValue = new Map([...start].map(([p, v]) => [`${p.replace(/_\d+\]$/, "")}:${v}`, p]));
  // Never one the map holds or the text already carries as written (a client quoting `[NAME_1]`
  // must not have it stand for someone else's name too): the next free number of the type, so a
  // quoted `[EMAIL_99999999999999999999]` costs no arithmetic past what numbers can hold.
  const taken = new Set([...start.keys(), ...(text.match(PLACEHOLDER) ?? [])]);
  const next = new Map<PiiType, number>();
  const counts = new Map<PiiType, number>();
  let out = "";
  let at = 0;
  for (const s of spans) {
    const key = `[${s.type}:${s.value}`;
    let placeholder = byValue.get(key);
    if (!placeholder) {
      let n = next.get(s.type) ?? 0;
      do n++;
      while (taken.has(`[${s.type}_${n}]`));
      next.set(s.type, n);
      placeholder = `[${s.type}_${n}]`;
      byValue.set(key, placeholder);
      placeholders.set(placeholder, s.value);
    }
    counts.set(s.type, (counts.get(s.type) ?? 0) + 1);
    out += text.slice(at, s.start) + placeholder;
    at = s.end;
  }
  out += text.slice(at);
  return {
    text: out,
    placeholders,
    counts: PII_TYPES.filter((t) => counts.has(t)).map((type) => ({
      type,
      count: counts.get(type)!,
    })),
  };
}

/**
 * The placeholders the texts carry as written, each standing for itself: as the `start` of a
 * redaction, no value gets one of them, whichever of the texts quoted it (the instructions reach
 * the model beside the text, and the output is restored from one map).
 */
export function quotedPlaceholders(...texts: string[]): Map<string, string> {
  return new Map(texts.flatMap((t) => t.match(PLACEHOLDER) ?? []).map((p) => [p, p]));
}

/** Counts of several redactions added up by type, in PII_TYPES order. */
export function sumCounts(...lists: ReadonlyArray<Redaction["counts"]>): Redaction["counts"] {
  const total = new Map<PiiType, number>();
  for (const { type, count } of lists.flat()) total.set(type, (total.get(type) ?? 0) + count);
  return PII_TYPES.filter((t) => total.has(t)).map((type) => ({ type, count: total.get(type)! }));
}

/** Puts the original values back where the output kept placeholders. */
export function restore(text: string, placeholders: ReadonlyMap<string, string>): string {
  return text.replace(PLACEHOLDER, (p) => placeholders.get(p) ?? p);
}
