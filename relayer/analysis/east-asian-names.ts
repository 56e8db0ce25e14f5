/**
 * Romanized Chinese, Korean and Japanese person names, as contracts and e-mails in the corpus
 * languages write them (docs/analysis.md, the detectors' table, names): lexicons of the common surnames, the
 * syllables given names are made of, Japanese given names, and the everyday words of the corpus
 * languages that these forms collide with. Written by hand; lower case, one space between.
 */

/**
 * Every syllable of Hanyu Pinyin without its tone (the tables of the standard, less the
 * interjections hm, ng, m, n, ê), ü written u, v or yu as passports and registers write it.
 */
export const PINYIN_SYLLABLES =
  "a ai an ang ao e ei en eng er o ou " +
  "ba bai ban bang bao bei ben beng bi bian biao bie bin bing bo bu " +
  "pa pai pan pang pao pei pen peng pi pian piao pie pin ping po pou pu " +
  "ma mai man mang mao me mei men meng mi mian miao mie min ming miu mo mou mu " +
  "fa fan fang fei fen feng fo fou fu " +
  "da dai dan dang dao de dei den deng di dia dian diao die ding diu dong dou du duan dui dun duo " +
  "ta tai tan tang tao te teng ti tian tiao tie ting tong tou tu tuan tui tun tuo " +
  "na nai nan nang nao ne nei nen neng ni nian niang niao nie nin ning niu nong nou nu nuan nue nuo nv nve nyu " +
  "la lai lan lang lao le lei leng li lia lian liang liao lie lin ling liu long lou lu luan lue lun luo lv lve lyu " +
  "ga gai gan gang gao ge gei gen geng gong gou gu gua guai guan guang gui gun guo " +
  "ka kai kan kang kao ke kei ken keng kong kou ku kua kuai kuan kuang kui kun kuo " +
  "ha hai han hang hao he hei hen heng hong hou hu hua huai huan huang hui hun huo " +
  "ji jia jian jiang jiao jie jin jing jiong jiu ju juan jue jun " +
  "qi qia qian qiang qiao qie qin qing qiong qiu qu quan que qun " +
  "xi xia xian xiang xiao xie xin xing xiong xiu xu xuan xue xun " +
  "zha zhai zhan zhang zhao zhe zhei zhen zheng zhi zhong zhou zhu zhua zhuai zhuan zhuang zhui zhun zhuo " +
  "cha chai chan chang chao che chen cheng chi chong chou chu chua chuai chuan chuang chui chun chuo " +
  "sha shai shan shang shao she shei shen sheng shi shou shu shua shuai shuan shuang shui shun shuo " +
  "ran rang rao re ren reng ri rong rou ru rua ruan rui run ruo " +
  "za zai zan zang zao ze zei zen zeng zi zong zou zu zuan zui zun zuo " +
  "ca cai can cang cao ce cen ceng ci cong cou cu cuan cui cun cuo " +
  "sa sai san sang sao se sen seng si song sou su suan sui sun suo " +
  "ya yan yang yao ye yi yin ying yo yong you yu yuan yue yun " +
  "wa wai wan wang wei wen weng wo wu";

/**
 * Syllables no given name is made of: particles, interjections and those of words names avoid
 * (么 me, 呢 ne, 擦 ca, 他 ta, …). Their words are everyday words of the corpus languages more
 * often than a name's part (Make, Time, Lisa, Luca: ma+ke, ti+me, li+sa, lu+ca).
 */
export const PINYIN_NOT_IN_NAMES =
  "a e o ei ou ba ca ce cen ceng cha chai che chou chua chuai chui chuo cou cu cuan cuo dang " +
  "dei den dia diao die diu dou du dui fo fou ga gai gei gou gua guai gun ha hei hen hun ka kao " +
  "kei keng kou ku kua kuai kuo la lao lia lie lou lue lve ma mai mang me men mie miu mou nang " +
  "nao ne nei nen niang niao nie nin niu nou nu nue nv nve pa pai pang pao pen pi pie pou rang " +
  "rao re reng ri rua sa sai sang sao se seng shai she shei shua shuan suan suo ta te ti tiao " +
  "tie tou tuan tui tun wa wai weng wo yo za zang zao zei zen zha zhai zhei zhua zhuai zhui " +
  "zou zuan zui";

/**
 * The syllables of Hong Kong's and Macau's Cantonese romanization, of Taiwan's Wade-Giles
 * (apostrophes dropped, as passports write them) and of Singapore's and Malaysia's Hokkien names
 * that pinyin spells otherwise: Chan Tai-man, Cheung Kwok-wing, Tsai Ing-wen, Lim Boon Keng.
 */
export const OTHER_CHINESE_SYLLABLES =
  "ah chak chau cheuk cheung chih chien chieh chit chiu choi chor chow chuen chuk chung " +
  "fai fat fook foon fun fung hau hei hin hing hoi hok hon hoo hsi hsia hsiang hsiao hsieh hsien " +
  "hsin hsing hsiu hsiung hsu hsuan hsueh hsun huei hung ing jeou jou jui jung kam kar kau keung " +
  "ki kin king kit kiu ko kok kuk kung kwai kwan kwok kwong lam lap lau lee leung lik lim lit " +
  "lok lui luk lung mak mok mui mun nga ngai ngan ngo oi on pak pik po pok pui sam sau sek " +
  "shek shing shuk sik sing siu suen sum sung sze tak tam tat teh tien tik tim tin tse tsai " +
  "tsang tseng tsim tso tsoi tsui tsun tsung tsz tszm tzu wah wing woo woon wun yam yat yau yee " +
  "yeh yen yeuk yeung yik yim yip yiu yuk yuen yuet yung " +
  "ka wai sai ho chok kuen " +
  "beng boon chye eng guan hock hwee keng kiat kiang kee lian seng siew swee teck tiong yew";

/**
 * The most common Chinese surnames in pinyin (the hundred or so most frequent of the mainland and
 * the compound ones), with their Cantonese (Hong Kong, Macau), Wade-Giles (Taiwan) and Southeast
 * Asian spellings.
 */
export const CHINESE_SURNAMES =
  "wang li zhang liu chen yang huang zhao wu zhou xu sun ma zhu hu guo he gao lin luo zheng " +
  "liang xie song tang han feng deng cao peng zeng xiao tian dong yuan pan cai jiang yu du ye " +
  "cheng su wei lu lv lyu ding ren shen yao cui zhong tan fan jin shi liao jia xia fu fang bai " +
  "zou meng xiong qin qiu yin xue yan duan lei hou long tao gu mao hao gong shao wan qian dai " +
  "mo kong xiang chang kang niu hong tong wen ni lai yi qi gan zhan geng sang bao mei ou " +
  "ouyang sima zhuge shangguan situ dongfang huangfu murong xiahou zhangsun yuwen linghu " +
  "gongsun duanmu " +
  "chan lee wong cheung lau leung ng ho tse yip chow lam tsang kwok fung chu mak siu tam law " +
  "chiu kwan poon choi tsui yuen hui au chung sze fong mok shum chau so kwong ko tsoi leong " +
  "lui yau luk yeung lo kam chin tsai hsu hsieh chiang tseng chou chao yeh kao hsiao chien " +
  "teng kuo hsueh lim goh tay teo ong khoo quek";

/** Korean surnames as the Revised Romanization, McCune-Reischauer and passports write them. */
export const KOREAN_SURNAMES =
  "kim lee yi rhee park pak bak choi choe jung jeong chung kang cho jo yoon yun jang chang " +
  "lim im han oh seo suh shin sin kwon gwon hwang ahn an song yoo yu ryu hong jeon jun chun " +
  "ko go moon mun yang son bae baek paik heo hur nam noh roh ha kwak gwak sung seong cha joo " +
  "ju woo min na jin ji eom um chae won byun byeon pyo yeo chu do gil tak ma hyun seol " +
  "gong kil bang ban wi maeng koo ku sim shim kook hahn yim rim lyu yeom ok jegal namgung " +
  "hwangbo sunwoo seomun";

/**
 * The same surnames as written in Chinese characters, simplified and traditional, and in Hangul:
 * the first character of a name in running text, which has no capitals or spaces to tell one by.
 */
export const HAN_SURNAMES =
  "王李张刘陈杨黄赵吴周徐孙马朱胡郭何高林罗郑梁谢宋唐许韩冯邓曹彭曾肖田董袁潘于蒋蔡余杜叶程苏魏吕" +
  "丁任沈姚卢姜崔钟谭陆汪范金石廖贾夏韦付傅方白邹孟熊秦邱江尹薛闫段雷侯龙史陶黎贺顾毛郝龚邵万钱" +
  "严覃武戴莫孔向汤常康牛洪童温倪赖易齐甘詹耿桑包梅欧" +
  "陳張劉楊黃趙吳孫馬鄭謝許韓馮鄧蕭葉蘇呂盧鍾譚陸賈韋鄒閻龍賀顧龔萬錢嚴湯溫賴齊歐";
/** The syllables of Korean given names in Hangul, the commonest (민준, 서연, 지훈, 영자). */
export const HANGUL_GIVEN_SYLLABLES =
  "민준서연지현우호영수진은혜유윤하성재도훈예원희경정석태한주승동상용규철환선미숙자순옥나아인혁빈율건시채다소린솔온리람란보병기광남대범찬형효해완종열웅택국길명문식일창청충학홍화후휘흥겸근덕래록륜무백복봉부분비산새설세송신심안애양엽오요욱운월위의이익임장전제조중직차천초춘치필향헌협별빛봄슬단담령로루마만모목배번사삼샘";
export const HANGUL_SURNAMES =
  "김이박최정강조윤장임한오서신권황안송류유전홍고문양손배백허남심노하곽성차주우구민진나지엄채원천방공현함변염여추도소석선설마길연위표명기반왕금옥육인맹제모탁국어은편용";

/**
 * The syllables Korean given names are made of, in the Revised Romanization and the older
 * spellings passports keep (Ji-hoon, Jihun; Seo-yeon, Su-yeon; Min-jun, Min-joon).
 */
export const KOREAN_SYLLABLES =
  "a ae ah an bae baek beom bin bo bok bom bong bu bum byeol byeong byul byung cha chae chan " +
  "chang cheol cheon cho choi chul chun chung da dae dam dan deok do dong du duk eon eui eun " +
  "gap geon geun gi gil gu gun gwang gyeol gyeong gyu ha hae hak han hee heon ho hong hoon " +
  "hui hun hwa hwan hwi hye hyeok hyeon hyeong hyo hyuk hyun hyung il im in ja jae jang je " +
  "jeom jeon jeong ji jin jo jong joo joong joon ju jun jung ka kang ki kwang kyo kyu kyung kyong mi " +
  "min mo mok moon mu mun myeong myung na nam neul no nyeon o ok ra rae ram ran rang reum ri " +
  "rim rin ro rok ryeong ryu ryung sa sam san sang se seo seok seon seong seul si shi sik shik " +
  "sin shin so sol song soo sook soon su suk sun sung ta tae taek tak u ui uk un wan won woo " +
  "wook woon ye yeo yeol yeon yeong yeop yi yong yoo yoon young yu yul yun yup";

/**
 * The 150 or so most common Japanese surnames in Hepburn, each also as passports and signatures
 * write its long vowels (Satō, Sato, Satou, Satoh; Ōta, Ota, Oota, Ohta).
 */
export const JAPANESE_SURNAMES = withLongVowels(
  "satō suzuki takahashi tanaka watanabe itō yamamoto nakamura kobayashi katō yoshida " +
    "yamada sasaki yamaguchi matsumoto inoue kimura hayashi shimizu yamazaki yamasaki mori abe " +
    "ikeda hashimoto yamashita ishikawa nakajima nakashima maeda fujita ogawa gotō okada " +
    "hasegawa murakami kondō ishii saitō sakamoto endō aoki fujii nishimura fukuda ōta miura " +
    "fujiwara okamoto matsuda nakagawa nakano harada ōno tamura takeuchi kaneko wada " +
    "nakayama ishida ueda morita hara shibata sakai kudō yokoyama miyazaki miyamoto uchida " +
    "takagi andō taniguchi maruyama imai takada fujimoto takeda murata ueno sugiyama masuda " +
    "sugawara hirano ōtsuka chiba kubo matsui iwasaki sakurai kinoshita noguchi matsuo nomura " +
    "kikuchi sano ōnishi sugimoto arai hamada ichikawa furukawa mizuno komatsu shimada koyama " +
    "takano yamauchi nishida nishikawa igarashi kitamura yasuda nakata kawaguchi hirata " +
    "kawasaki iida yoshikawa honda kubota sawada tsuji seki yoshimura iwata nakanishi hattori " +
    "higuchi fukushima kawakami nagai matsuoka taguchi yamanaka morimoto tsuchiya yano hirose " +
    "akiyama ishihara matsushita ōshima kojima kuroda ogura okazaki nagata miyata uchiyama " +
    "watanabe ōkubo kaneda ōmori",
);

/** Common Japanese given names in Hepburn (the most given of the last decades and the eras before). */
export const JAPANESE_GIVEN_NAMES = withLongVowels(
  "hiroshi takashi kenji haruto yuto sōta minato ren riku hinata daiki takumi kenta yuki " +
    "shōta kazuki ryōta daisuke naoki yūsuke tatsuya takuya ken'ichi kenichi akira satoshi " +
    "makoto masahiro kazuya tomoya shun shō kaito hayato haruki yamato sōsuke itsuki asahi " +
    "aoi yūma ryūsei kōki shinji kōji yoshio hideo tarō ichirō jirō saburō kenzō masao tadashi " +
    "osamu minoru isamu susumu noboru yutaka shigeru hideki hiroki hiroto hiroyuki toshiyuki " +
    "nobuyuki masayuki kazuo yasuo tetsuya shinya jun'ichi junichi ryō jun kei keita kōta " +
    "shōhei yūji eiji seiji tōru takeshi tsuyoshi masato masaki tomohiro yoshihiro akihiro " +
    "kazuhiro nobuo tomoki yūdai yūya sora haru ryūnosuke kōtarō shintarō yūta yūki yūto " +
    "naoto kōsuke kōhei shūhei ryūji yasushi toshio haruo tetsuo kunio fumio hisashi " +
    "yoshiaki yoshinori hidetoshi takahiro kōichi shin'ichi shinichi yōichi ryūichi " +
    "shūji takao akio masaru mamoru hajime wataru yū " +
    "yui himari hina yuna sakura mei rin akari hana mio yua saki miyu misaki haruka ayaka " +
    "nanami natsuki yuka yumi yōko keiko kazuko hiroko michiko tomoko akiko naoko noriko " +
    "yoshiko sachiko mariko emiko junko kyōko mayumi megumi aya ayumi kaori eri emi mai " +
    "maki mami nao rie rika sayaka shiori tomomi yoshimi asuka chihiro chika erika kana " +
    "kanako kumiko manami miho mika misato momoko nana nozomi reiko risa sae sanae yūko " +
    "yukiko miki kaho koharu tsumugi ema riko honoka ayane kokona nodoka mitsuki sumire " +
    "hikari kaede kotone mizuki mayu miku ayano chiaki fumiko hisako kimiko masako midori " +
    "nobuko setsuko takako toshiko yasuko yoshie yuriko chiyo haruna harumi izumi kanae " +
    "kasumi madoka mao misa miwa moe natsumi saori satomi shizuka yasuko yuina yuzuki",
);

/**
 * Everyday words of English, German, French, Spanish, Italian and Dutch that are also a surname of
 * the lexicons above or have a given name's shape, as texts write them capitalised before another
 * capitalised word (a heading, a German noun, a sentence's first word): drawn from the languages'
 * word lists where they meet the forms above, and chosen by hand. Surnames here (He, Sun, Long,
 * Ma, Song, Park, Moon) need stronger evidence of a name (redaction.ts, eastAsianPair).
 */
export const EVERYDAY_WORDS =
  // Surnames of the lexicons.
  "an au ban bang chin chow die ding do du fan fang gong go ha han he ho im kook law long lui " +
  "ma man moon ni ok oh ou pan park rim sang sano shin sim shim sin so son song su sun " +
  "sung tan tang tong um wan won woo ye lo dong " +
  // Given names' syllables and other lexicon words.
  "a ah bin boon can chit dam den dun e en er fat fen fun gang gap gun hai hang hen hung in " +
  "king kit kin la lap lei lie lit lung mai me men mi mio mo no o on pa pang pen pi pie pin " +
  "ping ram ran rang run she shun sing sol soon sum tat te tie tin ting tun un wing yam yen " +
  "yew you young yuk yup zen bei ja je da di ci si se ne tu ta sa " +
  // Words of a given name's shape: English, German, French, Spanish, Italian and Dutch.
  "angle bangle beige bile binge chili data deli demo dose guide guile hose huge hyena jingle " +
  "judo junta lichen like limo manna mocha mode mole mono mule muse nacho nose okra panda poke " +
  "pole range change rinse rouge rule sea sedan semi side siren size soda sumo sundae suntan " +
  "tabu tutu yale yule zebu china human mini guru sushi nike " +
  "anfang anhang bande banken bogen danke ende erde gegen geben kunde lange leben linde lunge " +
  "musik nase runde wange zange zunge zugang " +
  "banque bilan danse huile lundi ruban souci banda dado duda modo mundo museo nada nota sede " +
  "sono seda sola uno una anno danno dunque liban " +
  // Japanese words of English and the other languages, of a name's Hepburn shape.
  "ninja samurai sake karate kimono karaoke tsunami origami bonsai geisha haiku emoji anime " +
  "manga wasabi ramen sashimi tempura teriyaki miso umami futon kamikaze shogun reiki sudoku " +
  "kanji kana kaizen keiretsu zaibatsu sayonara banzai hibachi sukiyaki edamame shiitake " +
  "jujitsu dojo yakuza tatami tanuki tofu " +
  // Brands and companies whose names read as a given name.
  "samsung daewoo hanwha hanjin huawei xiaomi weibo lenovo";

/**
 * Places of China, Hong Kong, Macau, Taiwan, Korea and Japan whose names read as a romanized
 * person's (Hong Kong, Wan Chai, Chang'an; Beijing is bei+jing, Busan bu+san), and the phrases
 * English took from Chinese that do (Feng Shui, Yin Yang): a name's words that are, or are part
 * of, one of these are the place's or the phrase's. Words of one written in several are joined by
 * `_`.
 */
export const EAST_ASIAN_PLACES =
  "china beijing shanghai tianjin chongqing guangzhou shenzhen nanjing hangzhou suzhou wuhan " +
  "chengdu xi'an chang'an qingdao dalian xiamen shenyang harbin jinan zhengzhou " +
  "changsha kunming fuzhou hefei nanning guiyang lanzhou taiyuan shijiazhuang urumqi lhasa " +
  "ningbo wuxi foshan dongguan zhuhai shantou xining yinchuan haikou hohhot changchun " +
  "nanchang wenzhou yantai guilin sanya luoyang kaifeng datong yangzhou jilin " +
  "guangdong fujian zhejiang jiangsu sichuan hunan hubei henan hebei shandong shanxi shaanxi " +
  "anhui jiangxi yunnan guizhou guangxi hainan liaoning heilongjiang gansu qinghai ningxia " +
  "xinjiang xizang tibet pudong haidian chaoyang dongcheng xicheng huangpu wangfujing " +
  "hongkong hong_kong kowloon macau macao taipa coloane wan_chai mong_kok sha_tin tai_po " +
  "yuen_long tuen_mun tsuen_wan kwun_tong sai_kung kwai_chung tsing_yi tung_chung sheung_wan " +
  "sheung_shui tsim_sha_tsui sham_shui_po wong_tai_sin kowloon_tong ho_man_tin lai_chi_kok " +
  "tai_koo chai_wan cheung_chau ma_on_shan tin_shui_wai tseung_kwan_o tai_wai fo_tan lo_wu " +
  "lok_ma_chau yau_ma_tei yau_tong tin_hau ap_lei_chau wong_chuk_hang sai_ying_pun fanling " +
  "lantau kwai_fong tai_hang siu_sai_wan ngau_tau_kok kai_tak " +
  "taiwan taipei taichung tainan kaohsiung hsinchu keelung taoyuan chiayi hualien " +
  "korea seoul busan pusan incheon daegu daejeon gwangju ulsan suwon changwon jeonju cheongju " +
  "jeju sejong pohang gangnam jongno itaewon myeongdong yeouido bundang seongnam goyang " +
  "japan tokyo osaka kyoto nagoya yokohama kobe sapporo fukuoka sendai hiroshima nagasaki " +
  "okinawa saitama kanazawa niigata shizuoka kumamoto kagoshima okayama hamamatsu nara " +
  "shinjuku shibuya ginza akihabara roppongi hokkaido kyushu honshu shikoku kanagawa " +
  "aichi hyogo ibaraki tochigi gunma nagano gifu mie shiga wakayama tottori shimane " +
  "yamaguchi_prefecture tokushima kagawa ehime kochi saga oita miyazaki_prefecture " +
  // Not places, but English's words of two syllables that read as a name.
  "yin_yang feng_shui tai_chi kung_fu ping_an";

/** The list's words and, for each with a long vowel, its other spellings (ō as o, ou, oo, oh). */
function withLongVowels(list: string): string {
  const out = new Set<string>();
  for (const word of list.split(" ")) {
    out.add(word.replace("'", ""));
    if (!/[āēīōū]/u.test(word)) continue;
    const plain = (long: string) =>
      word
        .replace("'", "")
        .replace(/[āēīōū]/gu, (v) => long.replaceAll("V", v.normalize("NFD").charAt(0)));
    for (const long of ["V", "VV", "Vu", "Vh"]) out.add(plain(long));
  }
  return [...out].join(" ");
}
