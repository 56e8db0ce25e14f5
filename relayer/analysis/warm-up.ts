import { findPii } from "./redaction.ts";

/**
 * Texts holding every type of personal data, in strings of one byte per character (Latin-1) and
 * of two (a character beyond it): V8 compiles a regular expression separately for each and only
 * at its second run on one (the first is interpreted).
 */
const EVERY_TYPE =
  "Beneficiary: Jane Doe (born 12 March 1980, jane.doe@example.com, +44 20 7946 0958, tel. (212) 555-0134) pays IBAN DE89 3704 0044 0532 0130 00 from account number 12345678 by card 4111 1111 1111 1111 from 192.0.2.1 to 0x52908400098527886E0F7030069857D2E4169EE7 or bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq; SSN 123-45-6789; 10 Downing Street, London SW1A 2AA; Telegram: @jsmith_88, Skype: jane.doe.77, t.me/jdoe, my handle is @j_doe, DM me @jd_eth. Signed: Mr. John Smith and J. R. Tolkien for ";
export const EVERY_TYPE_TEXTS: readonly string[] = [
  `${EVERY_TYPE}Anne Dupré.`,
  `${EVERY_TYPE}Ayşe Yılmaz.`,
];

/**
 * Documents as the supported locales write them (labels, honorifics, addresses, national ids,
 * names of several cultures and scripts): they run the detectors' own code down the paths that
 * traffic takes, which the two texts above leave cold.
 */
export const LOCALE_TEXTS: readonly string[] = [
  `Zahlungsauftrag RE-2024-1187
Begünstigter: Herr Jürgen Weiß, geboren am 14.02.1979
IBAN: DE89 3704 0044 0532 0130 00, Konto 0532013000
Betrag: 1.250,00 EUR, fällig am 2026-07-07. Rückfragen an j.weiss@beispiel.de oder Tel. 030 12345678, Handy 0151 23456789.
Anschrift: Mendelssohnstraße 12, 10115 Berlin. Steuer-ID 86095742719. Postfach 10 01 01, D-10001 Berlin.
Erstellt von: Anna Schmidt`,
  `Accord de confidentialité (NDA)
Entre : Madame Élodie Lefèvre, née le 3 avril 1985 à Lyon, demeurant 8 rue de Rivoli, 75001 Paris
et la société Durand SA. Contact : elodie.lefevre@exemple.fr, tél. 01 42 68 53 00, portable +33 6 12 34 56 78.
Témoin : Jean Dupont. Titulaire du compte : M. Dupont, IBAN FR76 3000 6000 0112 3456 7890 189.`,
  `Formulario KYC
Nombre: Don José Martínez García, nacido el 12/03/1980
DNI 12345678Z, teléfono +34 912 34 56 78, móvil 612 345 678, correo jose.martinez@ejemplo.es
Dirección: Calle de Alcalá 45, 28014 Madrid. Cuenta ES91 2100 0418 4502 0005 1332.
Testigo: Lucía Fernández (la Arrendataria)`,
  `Lettera di assunzione
Gentile Dott.ssa Giulia Bianchi, nata a Roma il 5 maggio 1990,
codice fiscale RSSMRA85T10A562S, residente in Via Garibaldi 10, 00153 Roma.
Per domande: giulia.bianchi@esempio.it, cellulare 347 123 4567, ufficio 06 1234 5678.
Il Conduttore, nato nel 1975, firma. IBAN IT60 X054 2811 1010 0000 0123 456.`,
  `Minutes of the steering committee, Hong Kong office
Present: Chan Tai Man, Yuki TANAKA, PARK, Ji-hoon and Wang Wei.
Cc: Anand Subramanian, Meera Iyer. Action: Chan Tai Man to send the draft to taiman.chan@example.com.
Call +852 2345 6789 or visit 88 Queen's Road Central. Sun Microsystems and Park Avenue stay.
Between Иваном Петровым and του Γιώργου Παπαδόπουλου, SMITH, John (the Borrower), K. Jones and J.R.R. Martin.
Sort code 20-00-00, account 12345678; BSB 062-000; SSN 078-05-1120; card 5555 5555 5555 4444, CVV 123.`,
];

const WARM_UP_TEXTS = [...EVERY_TYPE_TEXTS, ...LOCALE_TEXTS];

/**
 * Passes over all the warm-up texts before a thread's first job. The first two compile every
 * pattern; the others run the detectors' code often enough for V8's optimising compilers to take
 * it. Measured on the corpus in a fresh thread (`redaction_after_start` in
 * bench/results/analysis.json): with two passes over the two texts above, the first 50 texts took
 * about twice the CPU of the fourth 50; with these, about what later ones take, for 110-140 ms
 * more CPU at start (2-core AMD EPYC).
 */
export const WARM_UP_PASSES = 8;

/**
 * Warms the detectors of this thread before its first request: otherwise the first text beyond
 * Latin-1 (a Turkish or Polish name, a dash) paid ~50 ms of compilation there, and the first
 * bursts after a start twice the redaction CPU of later ones.
 */
export function warmDetectors(): void {
  for (let pass = 0; pass < WARM_UP_PASSES; pass++) for (const text of WARM_UP_TEXTS) findPii(text);
}
