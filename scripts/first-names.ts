/**
 * Builds relayer/analysis/first-names.ts: the first names of faker's locales (pinned version; a
 * development dependency, so the list is written out for the relayer): its English ones, rarer
 * than compromise's lexicon holds, and those of the cultures that lexicon covers thinly: South Asian, West and Southern African, Turkish and
 * Central Asian, Slavic, Baltic, Hungarian, Romanian, Vietnamese, Indonesian, Dutch, Nordic,
 * Iberian and Latin American, and the Cyrillic and Greek ones as written. Words compromise tags as
 * something other than a name ("Hope", "Rose", "Paris", "May") are left out, as are the one- and
 * two-letter ones ("Bo", "Li": in capitals they are common words) and those that are also common
 * words of the six corpus languages ("Nada", "Vera", "Luz").
 *
 *   npm run analysis:first-names            # writes the list
 *   node scripts/first-names.ts --check     # exits 1 when the committed list differs
 */
import { allLocales } from "@faker-js/faker";
import nlp from "compromise";
import { commonEnglishWords } from "../relayer/analysis/english-words.ts";
import { repoPath, writeOrCheck } from "./generated.ts";

export const FIRST_NAMES_FILE = repoPath("relayer/analysis/first-names.ts");

const LOCALES = [
  "af_ZA",
  "az",
  "cs_CZ",
  "da",
  "de",
  "el",
  "en",
  "en_GH",
  "en_IN",
  "en_NG",
  "en_NP",
  "en_ZA",
  "es",
  "es_MX",
  "fi",
  "fr",
  "fr_SN",
  "hr",
  "hu",
  "id_ID",
  "it",
  "ku_kmr_latin",
  "lv",
  "mk",
  "nb_NO",
  "nl",
  "nl_BE",
  "pl",
  "pt_BR",
  "pt_PT",
  "ro",
  "ro_MD",
  "ru",
  "sk",
  "sl_SI",
  "sr_RS_latin",
  "sv",
  "tr",
  "uk",
  "uz_UZ_latin",
  "vi",
  "yo_NG",
  "zu_ZA",
] as const;

/** compromise's tags of a given name; a person's or a surname's tag alone may not be one. */
const FIRST_NAME_TAGS = new Set(["FirstName", "MaleName", "FemaleName"]);
const NAME_TAGS = new Set([...FIRST_NAME_TAGS, "Person", "LastName"]);

/** Names common in the six languages that compromise tags as a word too (Jan, a month's). */
const FIRST_ALL_THE_SAME = new Set(
  "jan jean christian dean frank max leo robin finn eddy".split(" "),
);

/**
 * Names that are also articles, prepositions or everyday nouns of the six corpus languages and
 * English words compromise does not tag: before a capitalised word they would start a false name.
 */
const COMMON_WORDS = new Set(
  "ala amor aura baba bay bella con dal dame del den der des die don dona dos ella flor gala hasta idea jet job las les los lot luce lune luz mama mar mille nada nova oder paz per rosa san sao sera son sole sur tor tra una une uno van vera via vie vita yoga soda".split(
    " ",
  ),
);

/**
 * Given names common where faker's locales are thin, by hand: Igbo, Yoruba and Hausa; Akan; Kenyan;
 * Zulu, Xhosa, Sotho, Tswana and Shona; Indian; Arabic, Persian, Pakistani and Bangladeshi, Hebrew,
 * Ethiopian and Somali, Filipino as they are romanized; Ukrainian in Latin letters. A probe of 78
 * common African and South Asian given names found 37 missing from the faker-built list (`Ngozi`,
 * `Thandiwe`, `Siddharth`); one of 31 Yoruba and Igbo and 30 Ukrainian ones 27 more (`Olusegun`,
 * `Chukwudi`, `Kateryna`, `Dmytro`). None is an
 * everyday word of the six languages or English (`Bola`, `Sola`, `Ama`, `Yaw`, `Harsh` left out);
 * they pass the same filters as faker's.
 */
const BY_HAND = [
  // Igbo
  "ngozi chioma chidi obinna ifeanyi nkechi amaka uche adaeze ikechukwu chukwuemeka chinonso chidinma",
  "obioma uchenna kelechi ebere ifeoma nneka chinwe chika tochukwu ugochukwu onyeka somtochukwu",
  // Yoruba and Hausa
  "tunde femi segun babajide folake adebayo dayo tobi seun gbenga kunle lanre niyi jide yinka tayo",
  "bisi toyin dapo bimpe aminu abubakar hauwa olusegun olufemi olawale oluwatobi adewale adebisi",
  "oyinkansola folasade chukwudi",
  // Akan
  "kwaku kwasi kwadwo akua adwoa afua efua ekow kweku yaa",
  // Kenyan
  "wanjiru njeri wanjiku achieng akinyi atieno wambui nyambura muthoni wairimu nekesa naliaka kamau",
  "otieno odhiambo ochieng omondi mwangi njoroge kiprotich chebet jeptoo",
  // Zulu, Xhosa, Sotho, Tswana and Shona
  "thandiwe thabo bongani lindiwe tendai chipo farai tatenda tafadzwa rutendo nyasha kudzai tinashe",
  "tsitsi palesa refilwe mpho kagiso lesedi naledi nokuthula sibusiso mandla sizwe thulani ayanda",
  "andile lwazi lungile busisiwe nonhlanhla siyabonga zodwa khanyisile kgomotso tshepo tumelo karabo",
  "dineo boitumelo lebogang",
  // Indian
  "siddharth siddhartha ananya aditi vikram venkat srinivas aishwarya rohan karthik lakshmi sundar",
  "ramesh suresh mahesh ganesh dinesh naresh rakesh mukesh prakash satish girish harish nagesh yogesh",
  "umesh santosh manoj vinod pradeep sandeep kuldeep gurpreet harpreet manpreet jaspreet navneet",
  "simran priyanka divya kavya shreya sneha swati nandini meenakshi revathi padma bhavana sowmya",
  "sravani harini keerthi anjali pallavi madhuri rekha usha geeta seema nisha ritu shalini smita",
  "sushma vandana jyoti archana aparna nikhil abhishek akshay ankit ashish gaurav kunal mayank nitin",
  "pankaj rohit sachin saurabh tarun varun vivek yash aravind balaji kumaran murugan raghav senthil",
  "shankar venkatesh vijay anand arvind",
  // Arabic, as Levantine, Gulf, Egyptian and Maghrebi names are romanized (faker writes them in
  // Arabic script)
  "ahmad mahmoud mustafa mostafa khaled youssef yousef tariq tarek tareq walid waleed ziad ziyad",
  "rami fadi kareem sameer nasser naser bashir basheer faisal fahad fahd saad saeed rasheed majid",
  "majed jamal hamed jafar jaafar qasim kasim sadiq sadeq mansour mansur nawaf turki bandar abdulrahman",
  "abdelrahman abdallah abdelaziz abdelkader anas ayman hisham hesham osama usama marwan mazen murad",
  "nabil rayan riyad salah saleh talal wael yasser yasir zaid zayed haitham imad jalal louay maher",
  "mounir nizar radwan wassim younes younis ammar amr ashraf ehab emad essam ghassan hatem hazem",
  "karam khalil lutfi medhat moataz nader nasr raed rafik reda sherif wahid yahya zakaria zakariya",
  "huda hoda rania salma muna noor nour hiba heba reem dalia ghada samira wafa suha rasha eman iman",
  "aya doaa duaa lubna latifa maha rana rawan asma esraa hadeel haifa jana lina lamia lamya malak manal",
  "marwa mayar mervat najla nawal nesreen nisreen noura rola ruba safaa sahar samar sawsan shaima",
  "shahd soha yara zeinab zaynab",
  // Persian
  "mehdi hossein hosein mohsen arash babak behnam behrouz dariush farhad farid farshid kaveh kazem",
  "kourosh mehran mehrdad mojtaba morteza navid omid payam pedram pouya ramin shahab shahram",
  "siamak sina vahid parisa shirin azadeh bahareh elham fariba farnaz golnar mahsa nazanin niloufar",
  "roya sepideh shadi taraneh yasaman zohreh",
  // Pakistani, Bangladeshi and Indian Muslim
  "asif arif javed kashif naveed sajid junaid nadeem rizwan shoaib zeeshan waqar zubair fahim",
  "farhan haris mubashir muneeb owais qaiser sohail tahir waseem zahid shakib sabbir tanvir",
  "mahmudul rakib rafiq shafiq monir jahangir parveen rukhsana nasreen shabnam tahmina nusrat",
  "tasnim farzana sadia sumaiya rubina shazia saima samina uzma nazia bushra hina mehwish meera",
  "harsha pavan sunil vani",
  // Hebrew, romanized
  "yossi avi noa tamar eitan yael moshe shira itai ori omer yonatan noam roni liat michal inbal",
  "keren hila oren yuval nir shai shlomo yaakov avraham yitzhak rivka sarit orly dafna",
  // Ethiopian, Eritrean and Somali
  "abebe tesfaye almaz alemu girma haile kebede tadesse tsegaye mulugeta desta bekele getachew",
  "yonas dawit selam selamawit hiwot meron rahel tigist genet liya mekdes yohannes hodan abdi",
  "farhiya abdirahman abdullahi abdikarim mohamud ifrah hamdi ubah fadumo khadra ayan deeqa",
  "ilhan ikran",
  // Filipino
  "maricel rodel ligaya rowena marites analyn arnel jomar lorna marilou nestor rogelio teodoro",
  "virgilio zenaida imelda erlinda rosalinda chona",
  // Ukrainian, in the national transliteration and its older spellings (faker writes them in Cyrillic)
  "kateryna oleksii oleksiy mykola mykhailo yuliia andrii andriy serhii serhiy dmytro vasyl nataliia",
  "halyna viktoriia anastasiia ihor yurii hryhorii liudmyla solomiia vitalii",
]
  .join(" ")
  .split(" ");

export function firstNamesSource(): string {
  const lexicon = (
    nlp as unknown as { model(): { one: { lexicon: Record<string, string | string[]> } } }
  ).model().one.lexicon;
  const words = new Set<string>();
  const lists = LOCALES.map((code) => {
    const given = (allLocales as Record<string, { person?: { first_name?: unknown } }>)[code]
      ?.person?.first_name;
    return (Array.isArray(given) ? given : Object.values(given ?? {}).flat()) as string[];
  });
  for (const all of [...lists, BY_HAND])
    for (const entry of all)
      for (const word of entry.normalize("NFC").toLowerCase().split(/\s+/)) {
        if (!/^[\p{Script=Latin}\p{Script=Cyrillic}\p{Script=Greek}'’-]{3,}$/u.test(word)) continue;
        const tag = lexicon[word];
        const tags = tag === undefined ? [] : Array.isArray(tag) ? tag : [tag];
        if (tags.length && !tags.some((t) => NAME_TAGS.has(t)) && !FIRST_ALL_THE_SAME.has(word))
          continue;
        if (COMMON_WORDS.has(word)) continue;
        words.add(word);
      }
  // The commonest English words: SCOWL's sizes 10 and 20.
  const common = commonEnglishWords([10, 20]);
  const lexiconNames = Object.entries(lexicon)
    .filter(([, tag]) => (Array.isArray(tag) ? tag : [tag]).some((t) => FIRST_NAME_TAGS.has(t)))
    .map(([word]) => word);
  const everyday = [...new Set([...words, ...lexiconNames])].filter((w) => common.has(w));
  return (
    "// Generated by scripts/first-names.ts from faker's locales, its list by hand and SCOWL's\n" +
    "// commonest English words; do not edit.\n" +
    "/** First names of many cultures, lower case, one space between (see scripts/first-names.ts). */\n" +
    `export const LOCALE_FIRST_NAMES = ${wordLines(words)}` +
    "/**\n" +
    " * First names of the lexicons (these and compromise's) that are also among the commonest English\n" +
    " * words (SCOWL sizes 10 and 20: `server`, `grant`, `jack`), lower case, one space between.\n" +
    " */\n" +
    `export const EVERYDAY_ENGLISH_FIRST_NAMES = ${wordLines(everyday)}`
  );
}

function wordLines(words: Iterable<string>): string {
  const sorted = [...words].sort();
  const lines: string[] = [];
  for (let i = 0; i < sorted.length; i += 12) lines.push(sorted.slice(i, i + 12).join(" "));
  return "[\n" + lines.map((l) => `  "${l}",\n`).join("") + '].join(" ");\n';
}

if (import.meta.url === `file://${process.argv[1]}`)
  writeOrCheck(
    FIRST_NAMES_FILE,
    firstNamesSource(),
    "scripts/first-names.ts",
    "the first-name list",
  );
