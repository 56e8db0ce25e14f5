import type { TextAnalysisConfig } from "../integrations/index.ts";
import { codePoints } from "./unicode.ts";

/**
 * Which model analyses a text (spec "Integration configuration keys": text containing the term NDA
 * goes to the ultra model; other text under 2000 characters to a general model; longer text to an
 * in-house model). Exact matching, decided here once:
 *
 * - NDA: the upper-case acronym as a whole word, plural `NDAs` included (`NDA`, `(NDA)`,
 *   `NDA-based`, `NDAs`), also dotted (`N.D.A.`), or the term in words, in any case
 *   (`non-disclosure agreement`, `Nondisclosure Agreements`); not inside other words (`AGENDA`,
 *   `NDAX`, `SNDA`) and not lower-case (`nda` is not the acronym). The same agreement named in the
 *   other languages the redaction reads, in any case, singular or plural, accents optional:
 *   `Geheimhaltungsvereinbarung`, `Vertraulichkeitsvereinbarung`, `Verschwiegenheitsvereinbarung`
 *   (also hyphenated: `Vertraulichkeits-Vereinbarung`), `accord de confidentialité`, `accord de
 *   non-divulgation`, `acuerdo de confidencialidad`, `acuerdo de no divulgación`, `accordo di
 *   riservatezza`, `accordo di non divulgazione`, `geheimhoudingsovereenkomst`,
 *   `vertrouwelijkheidsovereenkomst`, `acordo de confidencialidade`, `acordo de não divulgação`,
 *   `umowa o (zachowaniu) poufności` (its cases: `umowy`, `umową`), `соглашение о неразглашении`,
 *   `соглашение о конфиденциальности` (their cases), `συμφωνία εμπιστευτικότητας`, `συμφωνητικό μη
 *   αποκάλυψης` (their cases, accents optional as capitals drop them); as whole words, not inside a
 *   compound (`Geheimhaltungsvereinbarungsentwurf`, `Nichtgeheimhaltungsvereinbarung`); Japanese
 *   `秘密保持契約` and `機密保持契約` wherever they are (Japanese writes no spaces: `秘密保持契約書` is the
 *   agreement's document). Checked on the text as submitted (no personal data looks like it).
 * - Length: Unicode code points of the text as submitted, before redaction (placeholders change the
 *   length; the client knows what it sent). Under 2000 (at most 1999) → general; 2000 and more →
 *   in-house.
 */
export const GENERAL_MAX_CHARS = 1999;
const NDA_ACRONYM = /(?<![\p{L}\p{N}])(?:NDAs?|N\.D\.A\.?)(?![\p{L}\p{N}])/u;
const NDA_IN_WORDS =
  /(?<![\p{L}\p{N}])(?:non[- ]?disclosure agreements?|(?:Geheimhaltungs|Vertraulichkeits|Verschwiegenheits)-?vereinbarung(?:en)?|accords? de (?:confidentialit[ée]|non[- ]divulgation)|acuerdos? de (?:confidencialidad|no divulgaci[óo]n)|accord[oi] di (?:riservatezza|non divulgazione)|(?:geheimhoudings|vertrouwelijkheids)-?overeenkomst(?:en)?|acordos? de (?:confidencialidade|n[ãa]o[- ]divulga[çc][ãa]o)|umow[aąy] o (?:zachowaniu )?poufno[śs]ci|соглашени(?:е|я|ю|ем|и|й|ям|ями|ях) о (?:неразглашении|конфиденциальности)|συμφων(?:[ιί]α|[ιί]ας|[ιί]ες|ι[ωώ]ν|ητικ[οόαά]|ητικο[υύ]|ητικ[ωώ]ν) (?:εμπιστευτικ[οό]τητας|μη αποκ[αά]λυψης|μη γνωστοπο[ιί]ησης))(?![\p{L}\p{N}])|[秘機]密保持契約/iu;

export type ModelTier = "ultra" | "general" | "in_house";

export interface RouteDecision {
  tier: ModelTier;
  model: string;
  reason: "nda" | "short" | "long";
  characters: number;
}

export function routeText(text: string, models: TextAnalysisConfig["models"]): RouteDecision {
  const characters = codePoints(text);
  if (NDA_ACRONYM.test(text) || NDA_IN_WORDS.test(text))
    return { tier: "ultra", model: models.ultra, reason: "nda", characters };
  if (characters <= GENERAL_MAX_CHARS)
    return { tier: "general", model: models.general, reason: "short", characters };
  return { tier: "in_house", model: models.inHouse, reason: "long", characters };
}
