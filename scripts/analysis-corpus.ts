/**
 * Builds the labelled corpus of the text analysis's redaction (test/fixtures/analysis-corpus.json):
 * 324 texts in six locales (en-US, en-GB, de-DE, fr-FR, es-ES, it-IT), each a realistic
 * document (payment instruction, NDA, employment letter, KYC form, support e-mail, invoice) whose
 * personal data is labelled by type and offset, then 36 English ones (en-HK: minutes, a consulting
 * agreement, a support e-mail, a KYC form) naming Chinese, Korean and Japanese people from a hand
 * list beside places and firms that read as names (Hong Kong, Suzuki Motor Corporation, Park
 * Avenue). Deterministic: faker (pinned version) seeded per
 * locale; phone numbers are drawn until libphonenumber-js accepts them and written in the
 * locale's national or the international format; IBANs and cards carry valid checksums. Each text
 * also holds look-alikes that are not personal data (invoice numbers, amounts, version dates,
 * order ids, company names, customer-since years) so precision is measured too. A third of the NDAs
 * and KYC forms give the year of birth alone (`born in 1985`, `Geburtsjahr: 1985`), and half of the
 * crypto addresses carry an upper-case `0X` prefix. The NDAs also name a party by its role before
 * a birth label (`The Guarantor, born on`, `Der Mieter, geboren`, `La Garante, née le`: no name,
 * a date of birth), the English ones a witness by name (`John Carter, born in 1964`). The names
 * turn through the ways contracts and forms write them (`nameForms`): in capitals, with initials,
 * surname first, with a generational suffix, and from other cultures' locales.
 *
 *   node scripts/analysis-corpus.ts          # writes the corpus
 *   node scripts/analysis-corpus.ts --check  # exits 1 when the committed corpus differs
 */
import {
  fakerDE,
  fakerEN_GB,
  fakerEN_GH,
  fakerEN_IN,
  fakerEN_US,
  fakerES,
  fakerFR,
  fakerIT,
  fakerPL,
  fakerRU,
  fakerTR,
  fakerVI,
  fakerYO_NG,
  fakerZU_ZA,
  type Faker,
} from "@faker-js/faker";
import { electronicFormatIBAN, isValidIBAN } from "ibantools";
import { parsePhoneNumberFromString, type CountryCode } from "libphonenumber-js/max";
import { findPii, PII_TYPES, type PiiType } from "../relayer/analysis/redaction.ts";
import { repoPath, writeOrCheck } from "./generated.ts";

export interface CorpusLabel {
  type: PiiType;
  start: number;
  end: number;
  value: string;
}
export interface CorpusText {
  id: string;
  locale: string;
  kind: string;
  text: string;
  labels: CorpusLabel[];
}

export const CORPUS_FILE = repoPath("test/fixtures/analysis-corpus.json");
const PER_LOCALE = 54;

type Piece = string | { type: PiiType; value: string };
type Values = Record<string, Piece>;

interface Locale {
  code: string;
  country: CountryCode;
  faker: Faker;
  honorific: (female: boolean) => string;
  dob: (d: Date) => string;
  account: (digits: string) => Piece[];
  address: (f: Faker) => string;
  templates: Array<{ kind: string; parts: (v: Values) => Piece[] }>;
}

const pad = (n: number, w = 2) => String(n).padStart(w, "0");
const MONTHS: Record<string, string[]> = {
  en: [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
  ],
  fr: [
    "janvier",
    "février",
    "mars",
    "avril",
    "mai",
    "juin",
    "juillet",
    "août",
    "septembre",
    "octobre",
    "novembre",
    "décembre",
  ],
  es: [
    "enero",
    "febrero",
    "marzo",
    "abril",
    "mayo",
    "junio",
    "julio",
    "agosto",
    "septiembre",
    "octubre",
    "noviembre",
    "diciembre",
  ],
  it: [
    "gennaio",
    "febbraio",
    "marzo",
    "aprile",
    "maggio",
    "giugno",
    "luglio",
    "agosto",
    "settembre",
    "ottobre",
    "novembre",
    "dicembre",
  ],
};

function phone(f: Faker, country: CountryCode): string {
  for (;;) {
    const raw = f.phone.number({ style: "international" });
    const parsed = parsePhoneNumberFromString(raw, country);
    if (parsed?.isValid() && parsed.country === country)
      return f.datatype.boolean() ? parsed.formatInternational() : parsed.formatNational();
  }
}

/** faker's IBANs carry the mod-97 digits but not every country's own BBAN check: draw until valid. */
function iban(f: Faker, country: string): string {
  for (;;) {
    const value = f.finance.iban({ formatted: f.datatype.boolean(), countryCode: country });
    if (isValidIBAN(electronicFormatIBAN(value) ?? "")) return value;
  }
}

function ssn(f: Faker): string {
  let area = f.number.int({ min: 1, max: 899 });
  if (area === 666) area = 667;
  return `${pad(area, 3)}-${pad(f.number.int({ min: 1, max: 99 }))}-${pad(f.number.int({ min: 1, max: 9999 }), 4)}`;
}

const L = (type: PiiType, value: string): Piece => ({ type, value });

/** The look-alikes every text may carry: numbers and dates that are not personal data. */
function distractors(f: Faker): Values {
  return {
    invoice: `INV-${f.number.int({ min: 2019, max: 2026 })}-${pad(f.number.int({ min: 1, max: 99999 }), 5)}`,
    amount: f.finance.amount({ min: 100, max: 90000, dec: 2 }),
    order: `PO ${f.number.int({ min: 100000, max: 999999 })}`,
    company: f.company.name(),
    due: `${f.number.int({ min: 2025, max: 2027 })}-${pad(f.number.int({ min: 1, max: 12 }))}-${pad(f.number.int({ min: 1, max: 28 }))}`,
    version: `v${f.number.int({ min: 1, max: 9 })}.${f.number.int({ min: 0, max: 20 })}`,
  };
}

function build(pieces: Piece[]): { text: string; labels: CorpusLabel[] } {
  let text = "";
  const labels: CorpusLabel[] = [];
  for (const p of pieces) {
    if (typeof p === "string") text += p;
    else {
      labels.push({
        type: p.type,
        start: text.length,
        end: text.length + p.value.length,
        value: p.value,
      });
      text += p.value;
    }
  }
  return { text, labels };
}

/**
 * The date of birth, or (in a third of the NDAs and KYC forms) the year alone after a label that
 * says it is the year of birth; `full` and `year` are the words before each.
 */
const birth = (v: Values, full: string, year: string): Piece[] =>
  v.yearOnly === "1" ? [year, v.dobYear!] : [full, v.dob!];

/** A party's role (as a contract writes it, defined term or not) and its birth labels. */
type Role = [role: string, full: string, year: string];

/**
 * A line naming a party by its role before a birth label ("The Tenant, born on", "Der Mieter,
 * geb."): the role is not a name, the date after it (every other text the year alone) is a date
 * of birth. The role turns with the text.
 */
const roleBorn = (v: Values, roles: Role[], after: string): Piece[] => {
  const [role, full, year] = roles[Number(v.party) % roles.length]!;
  return ["\n", role, ...(v.partyYear === "1" ? [year, v.dob2Year!] : [full, v.dob2!]), after];
};

const english = (us: boolean): Locale["templates"] => [
  {
    kind: "payment_instruction",
    parts: (v) => [
      "Payment instruction ",
      v.invoice!,
      "\nBeneficiary: ",
      v.name!,
      "\nIBAN: ",
      v.iban!,
      "\nAmount: EUR ",
      v.amount!,
      " due ",
      v.due!,
      ". Questions to ",
      v.email!,
      " or ",
      v.phone!,
      ".\nPlease transfer the amount and confirm. Account holder address: ",
      v.address!,
      ".",
    ],
  },
  {
    kind: "nda",
    parts: (v) => [
      "MUTUAL NDA\nThis Non-Disclosure Agreement is made between ",
      v.company!,
      " and ",
      v.name!,
      ' (the "Receiving Party"), residing at ',
      v.address!,
      ...birth(v, ". The Receiving Party, born on ", ". The Receiving Party, born in "),
      ", shall keep the Confidential Information secret. Notices: ",
      v.email!,
      ".",
      ...roleBorn(
        v,
        us
          ? [
              ["The Guarantor", ", born on ", ", born in "],
              ["The guarantor", ", born ", ", born "],
              ["Our Client", ", born on ", ", born "],
              ["The Buyer", ", born ", ", born in "],
            ]
          : [
              ["The Guarantor", ", born on ", ", born in "],
              ["The Lessee", ", born ", ", born "],
              ["The tenant", ", born on ", ", born "],
              ["The Purchaser", ", born ", ", born in "],
            ],
        ", guarantees these obligations.",
      ),
      "\n",
      v.name2!,
      ...(v.partyYear === "1" ? [", born in ", v.dob3Year!] : [", born on ", v.dob3!]),
      ", witnessed the signature.\nSigned by ",
      v.name2!,
      ", for ",
      v.company!,
      ".",
    ],
  },
  {
    kind: "kyc",
    parts: (v) => [
      "KYC form (",
      v.version!,
      ")\nFull name: ",
      v.name!,
      ...birth(v, "\nDate of birth: ", "\nYear of birth: "),
      "\n",
      ...(us ? ["SSN: ", v.ssn!, "\n"] : []),
      "Phone: ",
      v.phone!,
      "\nE-mail: ",
      v.email!,
      "\nCard on file: ",
      v.card!,
      "\nLast login from IP ",
      v.ip!,
      "\nWallet: ",
      v.crypto!,
      "\n",
      ...(v.account as unknown as Piece[]),
      "\nReference ",
      v.order!,
      ". Customer since ",
      v.since!,
      ".",
    ],
  },
  {
    kind: "support_email",
    parts: (v) => [
      "Hello ",
      v.name!,
      ",\n\nthank you for order ",
      v.order!,
      ". We refunded ",
      v.amount!,
      " USD to the card ending in your account; the full number ",
      v.card!,
      " will be removed from our records. ",
      "Your request came from ",
      v.ip!,
      ".\n\nKind regards,\n",
      v.name2!,
      "\n",
      v.company!,
      " support, ",
      v.phone2!,
    ],
  },
  {
    kind: "employment_letter",
    parts: (v) => [
      "Dear ",
      v.name!,
      ",\n\nWe are pleased to offer you the position of analyst at ",
      v.company!,
      ", starting ",
      v.due!,
      ". Please send your bank details (",
      ...(v.account as unknown as Piece[]),
      ") and your current address (",
      v.address!,
      ") to ",
      v.email2!,
      ".\n\nSincerely,\n",
      v.name2!,
    ],
  },
  {
    kind: "invoice",
    parts: (v) => [
      "Invoice ",
      v.invoice!,
      " from ",
      v.company!,
      "\nBill to: ",
      v.name!,
      ", ",
      v.address!,
      "\nTotal: ",
      v.amount!,
      " EUR, payable by ",
      v.due!,
      " to IBAN ",
      v.iban!,
      ".\nContact ",
      v.email!,
      ".",
    ],
  },
];

const LOCALES: Locale[] = [
  {
    code: "en-US",
    country: "US",
    faker: fakerEN_US,
    honorific: (fe) => (fe ? "Ms." : "Mr."),
    dob: (d) =>
      d.getUTCDate() % 2
        ? `${MONTHS.en![d.getUTCMonth()]} ${d.getUTCDate()}, ${d.getUTCFullYear()}`
        : `${pad(d.getUTCMonth() + 1)}/${pad(d.getUTCDate())}/${d.getUTCFullYear()}`,
    account: (digits) => ["account number ", L("BANK_ACCOUNT", digits)],
    address: (f) =>
      `${f.location.streetAddress()}, ${f.location.city()}, ${f.location.state({ abbreviated: true })} ${f.location.zipCode("#####")}`,
    templates: english(true),
  },
  {
    code: "en-GB",
    country: "GB",
    faker: fakerEN_GB,
    honorific: (fe) => (fe ? "Mrs" : "Mr"),
    dob: (d) => `${d.getUTCDate()} ${MONTHS.en![d.getUTCMonth()]} ${d.getUTCFullYear()}`,
    account: (digits) => [
      "sort code and account ",
      L(
        "BANK_ACCOUNT",
        `${digits.slice(0, 2)}-${digits.slice(2, 4)}-${digits.slice(4, 6)} ${digits.slice(0, 8)}`,
      ),
    ],
    address: (f) => `${f.location.streetAddress()}, ${f.location.city()}`,
    templates: english(false),
  },
  {
    code: "de-DE",
    country: "DE",
    faker: fakerDE,
    honorific: (fe) => (fe ? "Frau" : "Herr"),
    dob: (d) => `${pad(d.getUTCDate())}.${pad(d.getUTCMonth() + 1)}.${d.getUTCFullYear()}`,
    account: (digits) => ["Kontonummer ", L("BANK_ACCOUNT", digits)],
    address: (f) => `${f.location.streetAddress()}, ${f.location.zipCode()} ${f.location.city()}`,
    templates: [
      {
        kind: "payment_instruction",
        parts: (v) => [
          "Zahlungsauftrag ",
          v.invoice!,
          "\nBegünstigter: ",
          v.name!,
          "\nIBAN: ",
          v.iban!,
          "\nBetrag: ",
          v.amount!,
          " EUR, fällig am ",
          v.due!,
          ". Rückfragen an ",
          v.email!,
          " oder ",
          v.phone!,
          ".\nAnschrift: ",
          v.address!,
          ".",
        ],
      },
      {
        kind: "nda",
        parts: (v) => [
          "Geheimhaltungsvereinbarung (NDA) zwischen ",
          v.company!,
          " und ",
          v.hname!,
          ...birth(v, ", geboren am ", ", geboren "),
          ", wohnhaft ",
          v.address!,
          ". Mitteilungen an ",
          v.email!,
          ".",
          ...roleBorn(
            v,
            [
              ["Der Mieter", ", geboren am ", ", geboren "],
              ["Die Bürgin", ", geb. ", ", geb. "],
              ["Der Käufer", ", geb. ", ", geboren "],
              ["Die Darlehensnehmerin", ", geboren am ", ", geboren "],
            ],
            ", haftet gesamtschuldnerisch.",
          ),
          "\nGezeichnet: ",
          v.name2!,
        ],
      },
      {
        kind: "kyc",
        parts: (v) => [
          "Kundendaten (",
          v.version!,
          ")\nName: ",
          v.name!,
          ...birth(v, "\nGeburtsdatum: ", "\nGeburtsjahr: "),
          "\nTelefon: ",
          v.phone!,
          "\nE-Mail: ",
          v.email!,
          "\nKarte: ",
          v.card!,
          "\nIP-Adresse ",
          v.ip!,
          "\nWallet ",
          v.crypto!,
          "\n",
          ...(v.account as unknown as Piece[]),
          "\nBestellung ",
          v.order!,
          ". Kunde seit ",
          v.since!,
          ".",
        ],
      },
      {
        kind: "support_email",
        parts: (v) => [
          "Sehr geehrte",
          v.female === "1" ? " Frau " : "r Herr ",
          v.name!,
          ",\n\nwir haben Ihre Bestellung ",
          v.order!,
          " storniert und ",
          v.amount!,
          " EUR auf die Karte ",
          v.card!,
          " erstattet. Anfrage von ",
          v.ip!,
          ".\n\nMit freundlichen Grüßen\n",
          v.name2!,
          "\n",
          v.company!,
          ", Tel. ",
          v.phone2!,
        ],
      },
      {
        kind: "employment_letter",
        parts: (v) => [
          "Liebe",
          v.female === "1" ? " " : "r ",
          v.name!,
          ",\n\nwir freuen uns, Ihnen eine Stelle bei ",
          v.company!,
          " anzubieten. Bitte senden Sie Ihre Bankverbindung (",
          ...(v.account as unknown as Piece[]),
          ") und Ihre Anschrift (",
          v.address!,
          ") an ",
          v.email2!,
          ".\n\nViele Grüße\n",
          v.name2!,
        ],
      },
      {
        kind: "invoice",
        parts: (v) => [
          "Rechnung ",
          v.invoice!,
          " von ",
          v.company!,
          "\nEmpfänger: ",
          v.name!,
          ", ",
          v.address!,
          "\nSumme: ",
          v.amount!,
          " EUR, zahlbar bis ",
          v.due!,
          " auf IBAN ",
          v.iban!,
          ".\nKontakt: ",
          v.email!,
          ".",
        ],
      },
    ],
  },
  {
    code: "fr-FR",
    country: "FR",
    faker: fakerFR,
    honorific: (fe) => (fe ? "Mme" : "M."),
    dob: (d) => `${d.getUTCDate()} ${MONTHS.fr![d.getUTCMonth()]} ${d.getUTCFullYear()}`,
    account: (digits) => ["numéro de compte ", L("BANK_ACCOUNT", digits)],
    address: (f) => `${f.location.streetAddress()}, ${f.location.zipCode()} ${f.location.city()}`,
    templates: [
      {
        kind: "payment_instruction",
        parts: (v) => [
          "Ordre de virement ",
          v.invoice!,
          "\nBénéficiaire : ",
          v.name!,
          "\nIBAN : ",
          v.iban!,
          "\nMontant : ",
          v.amount!,
          " EUR, échéance ",
          v.due!,
          ". Questions : ",
          v.email!,
          " ou ",
          v.phone!,
          ".\nAdresse : ",
          v.address!,
          ".",
        ],
      },
      {
        kind: "nda",
        parts: (v) => [
          "Accord de confidentialité (NDA) entre ",
          v.company!,
          " et ",
          v.hname!,
          ...birth(v, ", né le ", ", né en "),
          ", demeurant au ",
          v.address!,
          ". Notifications : ",
          v.email!,
          ".",
          ...roleBorn(
            v,
            [
              ["Le locataire", ", né le ", ", né en "],
              ["La Garante", ", née le ", ", née en "],
              ["L'acquéreur", ", né le ", ", né en "],
              ["La bailleresse", ", née le ", ", née en "],
            ],
            ", est solidairement responsable.",
          ),
          "\nSigné par ",
          v.name2!,
        ],
      },
      {
        kind: "kyc",
        parts: (v) => [
          "Fiche client (",
          v.version!,
          ")\nNom : ",
          v.name!,
          ...birth(v, "\nDate de naissance : ", "\nAnnée de naissance : "),
          "\nTéléphone : ",
          v.phone!,
          "\nCourriel : ",
          v.email!,
          "\nCarte : ",
          v.card!,
          "\nAdresse IP ",
          v.ip!,
          "\nPortefeuille ",
          v.crypto!,
          "\n",
          ...(v.account as unknown as Piece[]),
          "\nCommande ",
          v.order!,
          ". Client depuis ",
          v.since!,
          ".",
        ],
      },
      {
        kind: "support_email",
        parts: (v) => [
          "Bonjour ",
          v.name!,
          ",\n\nnous avons remboursé ",
          v.amount!,
          " EUR sur la carte ",
          v.card!,
          " (commande ",
          v.order!,
          "). Demande reçue depuis ",
          v.ip!,
          ".\n\nCordialement,\n",
          v.name2!,
          "\n",
          v.company!,
          ", tél. ",
          v.phone2!,
        ],
      },
      {
        kind: "employment_letter",
        parts: (v) => [
          v.female === "1" ? "Chère " : "Cher ",
          v.name!,
          ",\n\nnous avons le plaisir de vous proposer un poste chez ",
          v.company!,
          ". Merci d'envoyer vos coordonnées bancaires (",
          ...(v.account as unknown as Piece[]),
          ") et votre adresse (",
          v.address!,
          ") à ",
          v.email2!,
          ".\n\nCordialement,\n",
          v.name2!,
        ],
      },
      {
        kind: "invoice",
        parts: (v) => [
          "Facture ",
          v.invoice!,
          " de ",
          v.company!,
          "\nDestinataire : ",
          v.name!,
          ", ",
          v.address!,
          "\nTotal : ",
          v.amount!,
          " EUR, à régler avant le ",
          v.due!,
          " sur l'IBAN ",
          v.iban!,
          ".\nContact : ",
          v.email!,
          ".",
        ],
      },
    ],
  },
  {
    code: "es-ES",
    country: "ES",
    faker: fakerES,
    honorific: (fe) => (fe ? "Sra." : "Sr."),
    dob: (d) => `${d.getUTCDate()} de ${MONTHS.es![d.getUTCMonth()]} de ${d.getUTCFullYear()}`,
    account: (digits) => ["número de cuenta ", L("BANK_ACCOUNT", digits)],
    address: (f) => `${f.location.streetAddress()}, ${f.location.zipCode()} ${f.location.city()}`,
    templates: [
      {
        kind: "payment_instruction",
        parts: (v) => [
          "Orden de transferencia ",
          v.invoice!,
          "\nBeneficiario: ",
          v.name!,
          "\nIBAN: ",
          v.iban!,
          "\nImporte: ",
          v.amount!,
          " EUR, vencimiento ",
          v.due!,
          ". Consultas: ",
          v.email!,
          " o ",
          v.phone!,
          ".\nDirección: ",
          v.address!,
          ".",
        ],
      },
      {
        kind: "nda",
        parts: (v) => [
          "Acuerdo de confidencialidad (NDA) entre ",
          v.company!,
          " y ",
          v.hname!,
          ...birth(v, ", nacido el ", ", nacido en "),
          ", domiciliado en ",
          v.address!,
          ". Notificaciones: ",
          v.email!,
          ".",
          ...roleBorn(
            v,
            [
              ["El arrendatario", ", nacido el ", ", nacido en "],
              ["La Fiadora", ", nacida el ", ", nacida en "],
              ["El Comprador", ", nacido el ", ", nacido en "],
              ["La prestataria", ", nacida el ", ", nacida en "],
            ],
            ", responde solidariamente.",
          ),
          "\nFirmado por ",
          v.name2!,
        ],
      },
      {
        kind: "kyc",
        parts: (v) => [
          "Ficha de cliente (",
          v.version!,
          ")\nNombre: ",
          v.name!,
          ...birth(v, "\nFecha de nacimiento: ", "\nAño de nacimiento: "),
          "\nTeléfono: ",
          v.phone!,
          "\nCorreo: ",
          v.email!,
          "\nTarjeta: ",
          v.card!,
          "\nIP ",
          v.ip!,
          "\nMonedero ",
          v.crypto!,
          "\n",
          ...(v.account as unknown as Piece[]),
          "\nPedido ",
          v.order!,
          ". Cliente desde ",
          v.since!,
          ".",
        ],
      },
      {
        kind: "support_email",
        parts: (v) => [
          "Hola ",
          v.name!,
          ",\n\nhemos reembolsado ",
          v.amount!,
          " EUR en la tarjeta ",
          v.card!,
          " (pedido ",
          v.order!,
          "). Solicitud desde ",
          v.ip!,
          ".\n\nAtentamente,\n",
          v.name2!,
          "\n",
          v.company!,
          ", tel. ",
          v.phone2!,
        ],
      },
      {
        kind: "employment_letter",
        parts: (v) => [
          v.female === "1" ? "Estimada " : "Estimado ",
          v.name!,
          ",\n\nnos complace ofrecerle un puesto en ",
          v.company!,
          ". Envíe sus datos bancarios (",
          ...(v.account as unknown as Piece[]),
          ") y su dirección (",
          v.address!,
          ") a ",
          v.email2!,
          ".\n\nSaludos,\n",
          v.name2!,
        ],
      },
      {
        kind: "invoice",
        parts: (v) => [
          "Factura ",
          v.invoice!,
          " de ",
          v.company!,
          "\nDestinatario: ",
          v.name!,
          ", ",
          v.address!,
          "\nTotal: ",
          v.amount!,
          " EUR, a pagar antes del ",
          v.due!,
          " en el IBAN ",
          v.iban!,
          ".\nContacto: ",
          v.email!,
          ".",
        ],
      },
    ],
  },
  {
    code: "it-IT",
    country: "IT",
    faker: fakerIT,
    honorific: (fe) => (fe ? "Sig.ra" : "Sig."),
    dob: (d) => `${d.getUTCDate()} ${MONTHS.it![d.getUTCMonth()]} ${d.getUTCFullYear()}`,
    account: (digits) => ["numero di conto ", L("BANK_ACCOUNT", digits)],
    address: (f) => `${f.location.streetAddress()}, ${f.location.zipCode()} ${f.location.city()}`,
    templates: [
      {
        kind: "payment_instruction",
        parts: (v) => [
          "Ordine di bonifico ",
          v.invoice!,
          "\nBeneficiario: ",
          v.name!,
          "\nIBAN: ",
          v.iban!,
          "\nImporto: ",
          v.amount!,
          " EUR, scadenza ",
          v.due!,
          ". Domande: ",
          v.email!,
          " o ",
          v.phone!,
          ".\nIndirizzo: ",
          v.address!,
          ".",
        ],
      },
      {
        kind: "nda",
        parts: (v) => [
          "Accordo di riservatezza (NDA) tra ",
          v.company!,
          " e ",
          v.hname!,
          ...birth(v, ", nato il ", ", nato nel "),
          ", residente in ",
          v.address!,
          ". Comunicazioni: ",
          v.email!,
          ".",
          ...roleBorn(
            v,
            [
              ["Il conduttore", ", nato il ", ", nato nel "],
              ["La Garante", ", nata il ", ", nata nel "],
              ["Il Venditore", ", nato il ", ", nato nel "],
              ["La mutuataria", ", nata il ", ", nata nel "],
            ],
            ", risponde in solido.",
          ),
          "\nFirmato da ",
          v.name2!,
        ],
      },
      {
        kind: "kyc",
        parts: (v) => [
          "Scheda cliente (",
          v.version!,
          ")\nNome: ",
          v.name!,
          ...birth(v, "\nData di nascita: ", "\nAnno di nascita: "),
          "\nTelefono: ",
          v.phone!,
          "\nEmail: ",
          v.email!,
          "\nCarta: ",
          v.card!,
          "\nIP ",
          v.ip!,
          "\nPortafoglio ",
          v.crypto!,
          "\n",
          ...(v.account as unknown as Piece[]),
          "\nOrdine ",
          v.order!,
          ". Cliente dal ",
          v.since!,
          ".",
        ],
      },
      {
        kind: "support_email",
        parts: (v) => [
          "Gentile ",
          v.name!,
          ",\n\nabbiamo rimborsato ",
          v.amount!,
          " EUR sulla carta ",
          v.card!,
          " (ordine ",
          v.order!,
          "). Richiesta da ",
          v.ip!,
          ".\n\nCordiali saluti,\n",
          v.name2!,
          "\n",
          v.company!,
          ", tel. ",
          v.phone2!,
        ],
      },
      {
        kind: "employment_letter",
        parts: (v) => [
          v.female === "1" ? "Cara " : "Caro ",
          v.name!,
          ",\n\nsiamo lieti di offrirle una posizione presso ",
          v.company!,
          ". Invii le coordinate bancarie (",
          ...(v.account as unknown as Piece[]),
          ") e il suo indirizzo (",
          v.address!,
          ") a ",
          v.email2!,
          ".\n\nDistinti saluti,\n",
          v.name2!,
        ],
      },
      {
        kind: "invoice",
        parts: (v) => [
          "Fattura ",
          v.invoice!,
          " di ",
          v.company!,
          "\nDestinatario: ",
          v.name!,
          ", ",
          v.address!,
          "\nTotale: ",
          v.amount!,
          " EUR, da pagare entro il ",
          v.due!,
          " sull'IBAN ",
          v.iban!,
          ".\nContatto: ",
          v.email!,
          ".",
        ],
      },
    ],
  },
];

/** The Luhn check digit of a card number's other digits. */
function luhnDigit(body: string): string {
  let sum = 0;
  for (const [i, c] of [...body].reverse().entries()) {
    const d = Number(c) * (i % 2 === 0 ? 2 : 1);
    sum += d > 9 ? d - 9 : d;
  }
  return String((10 - (sum % 10)) % 10);
}

/** Issuers validator's list lacks, as [IIN, length, groups]: Maestro, Mir, Diners 16, JCB and UnionPay 19. */
const MORE_CARDS: Array<[string, number, number[]]> = [
  ["6759", 19, [4, 4, 4, 4, 3]],
  ["2200", 16, [4, 4, 4, 4]],
  ["36", 16, [4, 4, 4, 4]],
  ["3528", 19, [4, 4, 4, 4, 3]],
  ["62", 19, [6, 13]],
  ["5018", 16, [4, 4, 4, 4]],
];

const value = (p: Piece | undefined): string => (typeof p === "object" ? p.value : (p ?? ""));

/**
 * Other ways texts write the drawn values, turning with the text's index (no value drawn moves):
 * cards of the issuers above and written without separators or with dashes; phone numbers in
 * E.164 without spaces; IBANs in lower case or unspaced; SSNs spaced, and ITINs; e-mails in
 * capitals or with a plus tag; IPv6 addresses ending in the IPv4 one (`::ffff:…`) and zero-padded
 * IPv4; dates of birth in ISO order.
 */
function otherFormats(v: Values, i: number, country: CountryCode): void {
  const turn = Math.floor(i / 6);
  const card = value(v.card).replace(/\D/g, "");
  if (turn % 3 === 1) {
    const [iin, length, groups] = MORE_CARDS[(Math.floor(turn / 3) * 2 + (i % 2)) % 6]!;
    const body = (iin + card + card).slice(0, length - 1);
    const digits = body + luhnDigit(body);
    let at = 0;
    const grouped = groups.map((g) => digits.slice(at, (at += g)));
    v.card = L("CARD", grouped.join(turn % 2 ? " " : "-"));
  } else if (turn % 3 === 2) v.card = L("CARD", card);
  if (turn % 2 === 1)
    for (const key of ["phone", "phone2"]) {
      const e164 = parsePhoneNumberFromString(value(v[key]), country)?.number;
      if (e164) v[key] = L("PHONE", e164);
    }
  if (i % 4 === 2) v.iban = L("IBAN", value(v.iban).toLowerCase());
  else if (i % 4 === 3) v.iban = L("IBAN", value(v.iban).replace(/ /g, ""));
  const ssn = value(v.ssn);
  if (turn % 3 === 1) v.ssn = L("SSN", ssn.replace(/-/g, " "));
  else if (turn % 3 === 2) v.ssn = L("SSN", `9${ssn.slice(1, 4)}7${ssn.slice(5)}`);
  const email = value(v.email);
  if (i % 5 === 2) v.email = L("EMAIL", email.toUpperCase());
  else if (i % 5 === 4) v.email = L("EMAIL", email.replace("@", "+billing@"));
  const ip = value(v.ip);
  if (ip.includes(".") && i % 5 === 3) v.ip = L("IP", `::ffff:${ip}`);
  else if (ip.includes(".") && i % 5 === 1)
    v.ip = L("IP", ip.replace(/\b(\d)\b/g, "00$1").replace(/\b(\d\d)\b/g, "0$1"));
  const dob = /(\d{4})\D*$/.exec(value(v.dob));
  if (turn % 4 === 3 && dob) {
    const d = new Date(Date.UTC(Number(dob[1]), i % 12, 1 + (i % 28)));
    v.dob = L("DOB", d.toISOString().slice(0, 10));
  }
}

/** Locales of the cultures whose names the texts also carry. */
const NAME_CULTURES: Faker[] = [
  fakerEN_IN,
  fakerYO_NG,
  fakerTR,
  fakerPL,
  fakerVI,
  fakerZU_ZA,
  fakerRU,
  fakerEN_GH,
];

/**
 * How a text writes its two people's names, turning with the text's index (no value drawn moves):
 * as drawn; in capitals (JOHN SMITH); the first with an initial (J. Smith) or two (J. R. Smith),
 * the second surname first (SMITH, John; Smith, John); the first with a generational suffix
 * (John Smith Jr., John Smith III); or both drawn from a locale of another culture (South Asian,
 * West and Southern African, Turkish, Polish, Vietnamese, Russian in Cyrillic), seeded by the index.
 */
function nameForms(
  [first, last]: [string, string],
  [first2, last2]: [string, string],
  i: number,
  seed: number,
): { name: string; name2: string } {
  const initial = (given: string) => `${given.charAt(0)}.`;
  switch (i % 7) {
    case 1:
      return {
        name: `${first} ${last}`.toUpperCase(),
        name2: `${first2} ${last2}`.toUpperCase(),
      };
    case 2:
      return { name: `${initial(first)} ${last}`, name2: `${last2.toUpperCase()}, ${first2}` };
    case 3:
      return {
        name: `${first} ${last} ${Math.floor(i / 7) % 2 ? "III" : "Jr."}`,
        name2: `${last2}, ${first2}`,
      };
    case 4: {
      const other = NAME_CULTURES[Math.floor(i / 7) % NAME_CULTURES.length]!;
      other.seed(seed * 100 + i);
      return {
        name: `${other.person.firstName()} ${other.person.lastName()}`,
        name2: `${other.person.firstName()} ${other.person.lastName()}`,
      };
    }
    case 5:
      return { name: `${initial(first)} ${initial(last2)} ${last}`, name2: `${first2} ${last2}` };
    default:
      return { name: `${first} ${last}`, name2: `${first2} ${last2}` };
  }
}

/** A birth date between 1940 and 2004 that turns with the text's index and `which` party. */
const otherBirth = (i: number, which: number): Date =>
  new Date(Date.UTC(1940 + ((i * 7 + which * 23) % 65), (i * 5 + which) % 12, 1 + ((i * 11) % 28)));

/** `seed` 14000 is the shipped corpus; another seed gives a held-out one of the same shape. */
export function generateCorpus(seed = 14_000): CorpusText[] {
  const out: CorpusText[] = [];
  for (const [li, locale] of LOCALES.entries()) {
    const f = locale.faker;
    f.seed(seed + li);
    // Dates of birth are drawn relative to this day, not to today: the corpus must not move.
    f.setDefaultRefDate(new Date("2026-01-01T00:00:00Z"));
    for (let i = 0; i < PER_LOCALE; i++) {
      const female = f.datatype.boolean();
      const sex = female ? "female" : "male";
      const first = f.person.firstName(sex);
      const last = f.person.lastName();
      const { name, name2 } = nameForms(
        [first, last],
        [f.person.firstName(), f.person.lastName()],
        i,
        seed,
      );
      const born = f.date.birthdate({ mode: "age", min: 18, max: 80 });
      // The United States has no IBANs: its texts carry European ones.
      const home = locale.country === "US" ? "NL" : locale.country;
      const ibanCountry = f.helpers.arrayElement([home, home, "DE", "FR", "GB", "ES"]);
      const digits = f.string.numeric({
        length: f.number.int({ min: 8, max: 12 }),
        allowLeadingZeros: false,
      });
      const issuer = f.helpers.arrayElement(["visa", "mastercard", "amex", "discover"]);
      const values: Values = {
        ...distractors(f),
        female: female ? "1" : "0",
        name: L("NAME", name),
        hname: L("NAME", name),
        name2: L("NAME", name2),
        email: L("EMAIL", f.internet.email({ firstName: first, lastName: last }).toLowerCase()),
        email2: L("EMAIL", f.internet.email()),
        phone: L("PHONE", phone(f, locale.country)),
        phone2: L("PHONE", phone(f, locale.country)),
        iban: L("IBAN", iban(f, ibanCountry)),
        card: L("CARD", f.finance.creditCardNumber({ issuer }).replace(/[^0-9 -]/g, "")),
        ip: L(
          "IP",
          f.datatype.boolean({ probability: 0.8 }) ? f.internet.ipv4() : f.internet.ipv6(),
        ),
        // Every other text of a template writes the address with an upper-case `0X` prefix.
        crypto: L(
          "CRYPTO",
          f.finance.ethereumAddress().replace(/^0x/, Math.floor(i / 6) % 2 ? "0X" : "0x"),
        ),
        ssn: L("SSN", ssn(f)),
        dob: L("DOB", locale.dob(born)),
        dobYear: L("DOB", String(born.getUTCFullYear())),
        yearOnly: Math.floor(i / 6) % 3 === 2 ? "1" : "0",
        // The NDAs' other parties, born on dates from the index (no value drawn moves).
        party: String(Math.floor(i / 6)),
        partyYear: Math.floor(i / 6) % 2 === 1 ? "1" : "0",
        dob2: L("DOB", locale.dob(otherBirth(i, 0))),
        dob2Year: L("DOB", String(otherBirth(i, 0).getUTCFullYear())),
        dob3: L("DOB", locale.dob(otherBirth(i, 1))),
        dob3Year: L("DOB", String(otherBirth(i, 1).getUTCFullYear())),
        // A year that is not a birth year (precision); from the index, so no value drawn moves.
        since: String(2000 + (i % 26)),
        address: L("ADDRESS", locale.address(f)),
        account: locale.account(digits) as unknown as Piece,
      };
      // The honorific stays outside the label: it is not personal data by itself.
      otherFormats(values, i, locale.country);
      if (f.datatype.boolean())
        values.hname = `${locale.honorific(female)} ${name}`.replace(name, "\u0000");
      const template = locale.templates[i % locale.templates.length]!;
      let pieces = template.parts(values);
      pieces = pieces.flatMap((p) =>
        typeof p === "string" && p.includes("\u0000")
          ? [p.replace("\u0000", ""), L("NAME", name)]
          : [p],
      );
      const { text, labels } = build(pieces);
      out.push({
        id: `${locale.code}-${pad(i + 1, 3)}`,
        locale: locale.code,
        kind: template.kind,
        text,
        labels,
      });
    }
  }
  // After the locales' texts, so theirs are drawn as before.
  out.push(...eastAsianTexts(seed));
  return out;
}

/**
 * Romanized Chinese (pinyin; Hong Kong's Cantonese and Taiwan's Wade-Giles, the given name
 * hyphenated), Korean and Japanese people, [culture, surname, given name], written by hand: faker
 * has no romanized East Asian names.
 */
const EAST_ASIAN_PEOPLE: Array<["zh" | "hk" | "ko" | "ja", string, string]> = [
  ...(
    [
      ["Wang", "Wei"],
      ["Li", "Na"],
      ["Zhang", "Xiaoming"],
      ["Liu", "Yang"],
      ["Chen", "Jianguo"],
      ["Yang", "Fan"],
      ["Huang", "Lei"],
      ["Zhao", "Min"],
      ["Wu", "Jing"],
      ["Zhou", "Xun"],
      ["Xu", "Jinglei"],
      ["Sun", "Li"],
      ["Ma", "Yun"],
      ["Zhu", "Hong"],
      ["Guo", "Jing"],
      ["Gao", "Yuanyuan"],
      ["Lin", "Feng"],
      ["Zheng", "Jie"],
      ["Liang", "Chao"],
      ["Xie", "Na"],
      ["Song", "Jia"],
      ["Tang", "Wei"],
      ["Deng", "Chao"],
      ["Peng", "Liyuan"],
      ["Xiao", "Zhan"],
      ["Ouyang", "Nana"],
    ] as const
  ).map(([s, g]) => ["zh", s, g] as ["zh", string, string]),
  ...(
    [
      ["Chan", "Tai-man"],
      ["Wong", "Mei-ling"],
      ["Cheung", "Kwok-wing"],
      ["Leung", "Chiu-wai"],
      ["Lau", "Ka-ho"],
      ["Ng", "Siu-ming"],
      ["Ho", "Wing-yan"],
      ["Tsang", "Yam-kuen"],
      ["Tsai", "Ing-wen"],
      ["Hsu", "Chih-wei"],
    ] as const
  ).map(([s, g]) => ["hk", s, g] as ["hk", string, string]),
  ...(
    [
      ["Kim", "Min-jun"],
      ["Lee", "Seo-yeon"],
      ["Park", "Ji-hoon"],
      ["Choi", "Yoon-ah"],
      ["Jung", "Ha-eun"],
      ["Kang", "Min-seo"],
      ["Cho", "Hyun-woo"],
      ["Yoon", "Ji-woo"],
      ["Jang", "Seo-jun"],
      ["Lim", "Soo-min"],
      ["Han", "Ye-jin"],
      ["Oh", "Se-hoon"],
      ["Shin", "Hye-jin"],
      ["Kwon", "Do-yun"],
      ["Hwang", "Eun-ji"],
      ["Moon", "Geun-young"],
    ] as const
  ).map(([s, g]) => ["ko", s, g] as ["ko", string, string]),
  ...(
    [
      ["Tanaka", "Yuki"],
      ["Suzuki", "Hiroshi"],
      ["Satō", "Haruto"],
      ["Takahashi", "Aoi"],
      ["Watanabe", "Sakura"],
      ["Itō", "Ren"],
      ["Yamamoto", "Hina"],
      ["Nakamura", "Kenta"],
      ["Kobayashi", "Yui"],
      ["Katō", "Daiki"],
      ["Yoshida", "Misaki"],
      ["Sasaki", "Nanami"],
      ["Kimura", "Haruka"],
      ["Shimizu", "Mei"],
      ["Mori", "Ayaka"],
      ["Ōta", "Kōji"],
    ] as const
  ).map(([s, g]) => ["ja", s, g] as ["ja", string, string]),
];
const EAST_ASIAN_TEXTS = 36;

/**
 * How a text writes a person, turning with the text's index and the person's place in it:
 * surname first (Wang Wei), given name first (Wei Wang, Ji-hoon Park), the surname in capitals
 * (WANG Wei, Yuki TANAKA), all in capitals, surname first before a comma, and possessive. Korean
 * given names are also written joined (Jihoon), Japanese long vowels also plain or doubled
 * (Sato, Satou).
 */
function eastAsianForm(
  [culture, surname, given]: (typeof EAST_ASIAN_PEOPLE)[number],
  turn: number,
): string {
  let family = surname;
  let own = given;
  if (culture === "ko" && turn % 2 === 1) own = given.replace("-", "").toLowerCase();
  if (culture === "ko" && own !== given) own = own.charAt(0).toUpperCase() + own.slice(1);
  if (culture === "ja") {
    const long = (w: string) =>
      turn % 3 === 0
        ? w
        : w.replace(/[ōŌ]/gu, (v) =>
            v === "ō" ? (turn % 3 === 1 ? "o" : "ou") : turn % 3 === 1 ? "O" : "Ou",
          );
    family = long(surname);
    own = long(given);
  }
  switch (turn % 6) {
    case 1:
      return `${own} ${family}`;
    case 2:
      return culture === "ja" ? `${own} ${family.toUpperCase()}` : `${family.toUpperCase()} ${own}`;
    case 3:
      return `${family} ${own}`.toUpperCase();
    default:
      return `${family} ${own}`;
  }
}

/** Documents in English naming East Asian people, beside places and firms that read as names. */
function eastAsianTexts(seed: number): CorpusText[] {
  const out: CorpusText[] = [];
  const kinds = ["meeting_minutes", "consulting_agreement", "support_email", "kyc_form"];
  for (let i = 0; i < EAST_ASIAN_TEXTS; i++) {
    const person = (k: number) =>
      EAST_ASIAN_PEOPLE[(i * 7 + k * 29 + seed * 13) % EAST_ASIAN_PEOPLE.length]!;
    const [p1, p2, p3] = [person(0), person(1), person(2)];
    const n = (p: (typeof EAST_ASIAN_PEOPLE)[number], k: number) =>
      L("NAME", eastAsianForm(p, Math.floor(i / 4) + k));
    const email = L(
      "EMAIL",
      `${p1[2]}.${p1[1]}@example.com`
        .normalize("NFD")
        .replace(/\p{M}/gu, "")
        .replace(/-/g, "")
        .toLowerCase(),
    );
    const kind = kinds[i % kinds.length]!;
    const due = `20${25 + (i % 2)}-${pad(1 + (i % 12))}-${pad(1 + ((i * 3) % 28))}`;
    const pieces: Piece[] =
      kind === "meeting_minutes"
        ? [
            "Minutes of the steering committee, Hong Kong office\nPresent: ",
            n(p1, 0),
            ", ",
            n(p2, 1),
            " and ",
            n(p3, 2),
            ".\nThe Long Term Incentive Plan for the Shanghai and Seoul teams was approved. Action: ",
            n(p1, 0),
            " to send the draft to ",
            email,
            " by ",
            due,
            ".",
          ]
        : kind === "consulting_agreement"
          ? [
              "CONSULTING AGREEMENT\nThis Agreement is made on ",
              due,
              " between Suzuki Motor Corporation, Tokyo, and ",
              n(p1, 3),
              ' (the "Consultant"). The Consultant reports to ',
              n(p2, 4),
              " at the Nanjing Road branch and keeps ",
              n(p3, 5),
              " informed. Notices: ",
              email,
              ".",
            ]
          : kind === "support_email"
            ? [
                "Dear ",
                n(p1, 0),
                ",\nThank you for your message about order PO ",
                String(400000 + i * 37),
                ". Our colleague ",
                n(p2, 1),
                " in the Park Avenue office will reply from Samsung's Osaka desk. ",
                n(p3, 5),
                " is in copy (",
                email,
                ").\nKind regards,\nSupport",
              ]
            : [
                "KYC FORM\nCustomer: ",
                n(p1, 3),
                "\nE-mail: ",
                email,
                "\nSpouse: ",
                n(p2, 2),
                "\nEmployer: Sun Microsystems, Beijing\nIntroduced by ",
                n(p3, 1),
                " of Maruti Suzuki.",
              ];
    const { text, labels } = build(pieces);
    out.push({ id: `ea-${pad(i + 1, 3)}`, locale: "en-HK", kind, text, labels });
  }
  return out;
}

export interface TypeScore {
  labelled: number;
  /** Labels a span of their type covers, over labels; null without labels. */
  recall: number | null;
  /** Spans that overlap a label of their type, over spans; null without spans. */
  precision: number | null;
}

/** The redaction's recall and precision per type on a corpus, rounded to 4 decimals. */
export function scoreCorpus(corpus: CorpusText[]): Record<PiiType, TypeScore> {
  const byType = Object.fromEntries(
    PII_TYPES.map((t) => [t, { labelled: 0, found: 0, detected: 0, correct: 0 }]),
  ) as Record<PiiType, { labelled: number; found: number; detected: number; correct: number }>;
  for (const doc of corpus) {
    const found = findPii(doc.text);
    for (const l of doc.labels) {
      byType[l.type].labelled++;
      if (found.some((f) => f.type === l.type && f.start <= l.start && f.end >= l.end))
        byType[l.type].found++;
    }
    for (const f of found) {
      byType[f.type].detected++;
      if (doc.labels.some((l) => l.type === f.type && f.start < l.end && l.start < f.end))
        byType[f.type].correct++;
    }
  }
  const round = (x: number) => Math.round(x * 10_000) / 10_000;
  return Object.fromEntries(
    PII_TYPES.map((t) => {
      const c = byType[t];
      return [
        t,
        {
          labelled: c.labelled,
          recall: c.labelled ? round(c.found / c.labelled) : null,
          precision: c.detected ? round(c.correct / c.detected) : null,
        },
      ];
    }),
  ) as Record<PiiType, TypeScore>;
}

export function corpusJson(corpus: CorpusText[]): string {
  return `${JSON.stringify(corpus, null, 1)}\n`;
}

if (import.meta.url === `file://${process.argv[1]}`)
  writeOrCheck(CORPUS_FILE, corpusJson(generateCorpus()), "scripts/analysis-corpus.ts", "corpus");
