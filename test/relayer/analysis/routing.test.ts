import { expect } from "chai";
import { GENERAL_MAX_CHARS, routeText } from "../../../relayer/analysis/routing.ts";
import { MODELS } from "../../fixtures/analysis.ts";

const models = { ultra: MODELS.ultra, general: MODELS.general, inHouse: MODELS.in_house };

describe("# analysis routing", function () {
  /** Each text of the first list routed to ultra, each of the second to the general model. */
  const expectTiers = (ultra: string[], general: string[]) => {
    for (const t of ultra) expect(routeText(t, models).tier, t).to.equal("ultra");
    for (const t of general) expect(routeText(t, models).tier, t).to.equal("general");
  };

  it("should send the NDA acronym as a word to ultra, not inside words or in lower case", function () {
    expectTiers(
      ["NDA", "Sign the NDA.", "(NDA)", "NDAs attached", "NDA-based terms"],
      ["AGENDA", "the NDAX index", "SNDA", "nda", "Nda"],
    );
  });

  it("should send the term NDA written otherwise to ultra: dotted, or in words in any case", function () {
    expectTiers(
      [
        "Sign the N.D.A. today",
        "per the N.D.A",
        "This Non-Disclosure Agreement binds",
        "the mutual non-disclosure agreements",
        "NONDISCLOSURE AGREEMENT",
        "a non disclosure agreement",
      ],
      [
        "the non-disclosure of figures",
        "disclosure agreement",
        "SN.D.A.",
        "non-disclosure agreementary",
      ],
    );
  });

  it("should send the agreement named in German, French, Spanish or Italian to ultra, as whole words only", function () {
    expectTiers(
      [
        "Diese Geheimhaltungsvereinbarung gilt ab heute.",
        "Die Vertraulichkeitsvereinbarungen der Parteien",
        "VERTRAULICHKEITS-VEREINBARUNG",
        "laut Verschwiegenheitsvereinbarung",
        "Accord de confidentialité entre les parties",
        "les accords de confidentialite signés",
        "un accord de non-divulgation",
        "Acuerdo de confidencialidad entre",
        "los acuerdos de no divulgación",
        "acuerdo de no divulgacion",
        "Accordo di riservatezza tra le parti",
        "gli accordi di non divulgazione",
      ],
      [
        "der Geheimhaltungsvereinbarungsentwurf",
        "eine Nichtgeheimhaltungsvereinbarung",
        "Vertraulichkeit und Vereinbarung",
        "Geheimhaltung",
        "accord de confidentialités",
        "raccord de confidentialité",
        "un accord de principe",
        "desacuerdo de confidencialidad",
        "acuerdo de confidencialidades",
        "accordo di riservatezzaX",
        "raccordo di riservatezza",
        "la riservatezza",
      ],
    );
  });

  it("should send the agreement named in Dutch, Portuguese, Polish, Russian, Greek or Japanese to ultra", function () {
    expectTiers(
      [
        "De geheimhoudingsovereenkomst tussen partijen",
        "VERTROUWELIJKHEIDSOVEREENKOMSTEN",
        "Acordo de confidencialidade entre as partes",
        "os acordos de não divulgação",
        "acordo de nao divulgacao",
        "Umowa o zachowaniu poufności",
        "zgodnie z umową o poufnosci",
        "по соглашению о конфиденциальности",
        "СОГЛАШЕНИЕ О НЕРАЗГЛАШЕНИИ",
        "της συμφωνίας μη αποκάλυψης",
        "ΣΥΜΦΩΝΙΑ ΕΜΠΙΣΤΕΥΤΙΚΟΤΗΤΑΣ",
        "秘密保持契約書を締結する",
        "機密保持契約",
      ],
      [
        "geheimhoudingsovereenkomstontwerp",
        "een overeenkomst",
        "acordo de confidencialidades",
        "umowa najmu",
        "соглашение о сотрудничестве",
        "Συμφωνία συνεργασίας",
        "秘密",
        "重要な契約",
      ],
    );
  });

  it("should count code points of the text as submitted: 1999 general, 2000 and 2001 in-house", function () {
    expect(GENERAL_MAX_CHARS).to.equal(1999);
    expect(routeText("x".repeat(1999), models).tier).to.equal("general");
    expect(routeText("x".repeat(2000), models).tier).to.equal("in_house");
    expect(routeText("x".repeat(2001), models).tier).to.equal("in_house");
    // 1999 emoji are 3998 UTF-16 units but 1999 characters.
    expect(routeText("😀".repeat(1999), models).tier).to.equal("general");
    // A 2000-character NDA goes to ultra: the term wins over the length.
    expect(routeText(`NDA ${"x".repeat(1996)}`, models).tier).to.equal("ultra");
  });
});
