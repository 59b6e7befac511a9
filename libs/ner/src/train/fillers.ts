import type { Faker } from '@faker-js/faker';
import type { GazetteerLists } from '../gazetteer';
import type { NerEntityType } from '../types';
import { latin, pickLocale, type Locale } from './locales';
import { KNOWN_ORGS, OCCUPATION_HEADS, OCCUPATIONS, ORG_SUFFIXES, PLAIN_ACRONYMS, REGIONS } from './lexicon';
import type { Rng } from './rng';

/**
 * The values that fill template slots. A filler returns pieces: text with the
 * entity type it is (or none), so that one slot can hold several entities, as
 * an address holds a street, a city and a country with a postcode between
 * them that is no LOCATION.
 */
export interface Piece {
  text: string;
  type?: NerEntityType;
}

export interface FillContext {
  rng: Rng;
  locales: readonly Locale[];
  en: Faker;
  gazetteers: GazetteerLists;
}

export type Filler = (ctx: FillContext) => Piece[];

const ent = (type: NerEntityType, text: string): Piece[] => [{ type, text }];
const plain = (text: string): Piece[] => [{ text }];

/** Picks by weight from [weight, value] pairs. */
export function weighted<T>(rng: Rng, options: readonly (readonly [number, T])[]): T {
  const total = options.reduce((a, [w]) => a + w, 0);
  let r = rng.next() * total;
  for (const [w, v] of options) {
    r -= w;
    if (r < 0) return v;
  }
  return options[options.length - 1]![1];
}

/**
 * A value from a random locale, in Latin script (English when the locale has none).
 * `native`: the chance that a Cyrillic or Greek value keeps its own script, as
 * place names do in addresses written for those countries.
 */
function localized(ctx: FillContext, get: (f: Faker) => string, locale = pickLocale(ctx.rng, ctx.locales), native = 0): string {
  let v: string | undefined;
  try {
    const value = get(locale.faker);
    v = locale.translit && native > 0 && ctx.rng.chance(native) ? value : latin(locale, value);
  } catch {
    v = undefined; // faker throws for data a locale does not apply (no postcodes in some countries)
  }
  return v?.trim() || get(ctx.en);
}

// Names no list holds, so that the tagger learns what a name looks like rather than memorising lists.
const ONSETS = ['b', 'br', 'ch', 'd', 'dr', 'f', 'g', 'gr', 'h', 'j', 'k', 'kh', 'kr', 'l', 'm', 'n', 'p', 'r', 's', 'sh', 'st', 't', 'tr', 'v', 'w', 'y', 'z', 'zh', ''];
const VOWELS = ['a', 'e', 'i', 'o', 'u', 'a', 'e', 'o', 'ai', 'ou', 'ia', 'é', 'ö', 'ü', 'á', 'y'];
const NAME_ENDINGS = [
  'ova',
  'ov',
  'ski',
  'sky',
  'son',
  'sen',
  'ez',
  'es',
  'ini',
  'elli',
  'ian',
  'yan',
  'oglu',
  'aki',
  'opoulos',
  'escu',
  'ic',
  'ić',
  'nen',
  'berg',
  'stein',
  'mann',
  'ton',
  'ley',
  'er',
  'ard',
  'ah',
  'iku',
  'wa',
  'ue',
  'oy',
];
const FIRST_ENDINGS = ['a', 'o', 'in', 'ia', 'ina', 'el', 'an', 'ie', 'us', 'ko', 'ja', 'ette', 'ine', 'im', 'ur', ''];

function syllables(ctx: FillContext, count: number): string {
  let out = '';
  for (let i = 0; i < count; i++) out += ctx.rng.pick(ONSETS) + ctx.rng.pick(VOWELS);
  return out;
}

const cap = (s: string): string => (s ? s[0]!.toUpperCase() + s.slice(1) : s);

export function inventedLast(ctx: FillContext): string {
  return cap(syllables(ctx, 1 + ctx.rng.int(2)) + ctx.rng.pick(NAME_ENDINGS));
}

export function inventedFirst(ctx: FillContext): string {
  return cap(syllables(ctx, 1 + ctx.rng.int(2)) + ctx.rng.pick(FIRST_ENDINGS));
}

export function firstName(ctx: FillContext, locale?: Locale): string {
  if (ctx.rng.chance(0.08)) return inventedFirst(ctx);
  return localized(ctx, (f) => f.person.firstName(), locale).split(' ')[0]!;
}

export function lastName(ctx: FillContext, locale?: Locale): string {
  if (ctx.rng.chance(0.08)) return inventedLast(ctx);
  return localized(ctx, (f) => f.person.lastName(), locale);
}

function initial(ctx: FillContext): string {
  const letter = String.fromCharCode(65 + ctx.rng.int(26));
  return ctx.rng.chance(0.6) ? `${letter}.` : letter;
}

/** A person's name in one of the shapes documents write them in; honorifics stay outside. */
export function personName(ctx: FillContext): string {
  const { rng } = ctx;
  const locale = pickLocale(rng, ctx.locales);
  const first = firstName(ctx, locale);
  const last = lastName(ctx, locale);
  return weighted<() => string>(rng, [
    [40, () => `${first} ${last}`],
    [12, () => `${first} ${initial(ctx)} ${last}`],
    [5, () => `${first} ${firstName(ctx, locale)} ${last}`],
    [4, () => `${initial(ctx)} ${last}`],
    [2, () => `${initial(ctx)}${initial(ctx)} ${last}`.replace('..', '. ')],
    [3, () => `${first} ${last}-${lastName(ctx, locale)}`],
    [2, () => `${first} ${last} ${lastName(ctx, locale)}`],
    [2, () => `${last}, ${first}`],
    [2, () => `${first} ${last} ${rng.pick(['Jr.', 'Sr.', 'II', 'III', 'Jr'])}`],
    [2, () => `${first} ${rng.pick(['van', 'de', 'van der', 'von', 'da', 'di', 'del', 'de la', 'bin', 'al', 'ben', 'Mac', 'O'])} ${last}`],
    [6, () => first],
    [4, () => last],
  ])();
}

/** Lower-case or upper-case names occur in chat and in forms. */
export function casing(ctx: FillContext, text: string): string {
  const r = ctx.rng.next();
  if (r < 0.025) return text.toLowerCase();
  if (r < 0.055) return text.toUpperCase();
  return text;
}

export function city(ctx: FillContext): string {
  if (ctx.rng.chance(0.45)) return ctx.rng.pick(ctx.gazetteers['city']!);
  return localized(ctx, (f) => f.location.city(), undefined, 0.25);
}

export function country(ctx: FillContext): string {
  const names = ctx.gazetteers['country']!;
  return ctx.rng.chance(0.85) ? ctx.rng.pick(COMMON_COUNTRIES(ctx)) : ctx.rng.pick(names);
}

let commonCountries: string[] | undefined;
/** Country names as English prose writes them (no official long forms, no native spellings). */
function COMMON_COUNTRIES(ctx: FillContext): string[] {
  commonCountries ??= ctx.gazetteers['country']!.filter((c) => /^[A-Z][a-z]+(?: (?:and )?[A-Z][a-z]+)*$/.test(c) && c.length < 24);
  return commonCountries;
}

export function state(ctx: FillContext): string {
  return localized(ctx, (f) => (ctx.rng.chance(0.25) ? f.location.state({ abbreviated: true }) : f.location.state()));
}

export function street(ctx: FillContext): string {
  const text = localized(ctx, (f) => (ctx.rng.chance(0.85) ? f.location.streetAddress(false) : f.location.street()), undefined, 0.2);
  return ctx.rng.chance(0.15) ? text.replace(/^(\d+) /, '$1, ') : text;
}

function secondary(ctx: FillContext): string {
  return ctx.rng.chance(0.5)
    ? ctx.en.location.secondaryAddress()
    : `${ctx.rng.pick(['Apt', 'Apt.', 'Suite', 'Unit', 'Flat', 'Floor', 'Room', '#'])} ${1 + ctx.rng.int(999)}${ctx.rng.chance(0.2) ? ctx.rng.pick(['A', 'B', 'C']) : ''}`;
}

function zip(ctx: FillContext): string {
  return localized(ctx, (f) => f.location.zipCode());
}

/**
 * A postal address, as one LOCATION from the street to the country, postcode
 * and line breaks included: one address is one thing to hide, and a token per
 * part would leak its shape.
 */
export const address: Filler = (ctx) => {
  const { rng } = ctx;
  if (rng.chance(0.04)) return ent('LOCATION', militaryAddress(ctx));
  const sep = rng.chance(0.15) ? '\n' : rng.chance(0.85) ? ', ' : ' ';
  let text = street(ctx);
  if (rng.chance(0.3)) text += (rng.chance(0.5) ? sep : ' ') + secondary(ctx);
  const style = rng.int(4);
  const town = rng.chance(0.1) ? city(ctx).toUpperCase() : city(ctx);
  if (style === 0) text += `${sep}${town}, ${state(ctx)}${rng.chance(0.8) ? ` ${zip(ctx)}` : ''}`;
  else if (style === 1) text += `${sep}${zip(ctx)} ${town}`;
  else if (style === 2) text += `${sep}${town}${rng.chance(0.5) ? ` ${zip(ctx)}` : ''}`;
  else text += `${sep}${town}${sep}${state(ctx)}${sep}${zip(ctx)}`;
  if (rng.chance(0.35)) text += `${sep}${country(ctx)}`;
  return ent('LOCATION', text);
};

/** Part of an address in a form field or a sentence that names only the town: the city and the postcode, as one LOCATION. */
export const townLine: Filler = (ctx) => ent('LOCATION', ctx.rng.chance(0.5) ? `${zip(ctx)} ${city(ctx)}` : `${city(ctx)}, ${state(ctx)} ${zip(ctx)}`);

const BRAND_HEADS = [
  'Omni',
  'Data',
  'Info',
  'Tele',
  'Cyber',
  'Net',
  'Sky',
  'Blue',
  'Green',
  'Nova',
  'Zen',
  'Flex',
  'Quanta',
  'Astra',
  'Veri',
  'Opti',
  'Syn',
  'Lumi',
  'Tri',
  'Proto',
  'Bio',
  'Geo',
  'Eco',
  'Aero',
  'Medi',
  'Fin',
  'Hyper',
  'Inno',
  'Intra',
  'Trans',
  'Uni',
  'Vita',
  'Pro',
  'Max',
  'Neo',
  'Alpha',
  'Terra',
  'Sol',
  'Aqua',
  'Kin',
  'Zy',
  'Vox',
  'Cloud',
  'Bright',
  'Swift',
  'Iron',
  'Silver',
  'Red',
  'North',
];
const BRAND_TAILS = [
  'works',
  'ly',
  'ify',
  'logic',
  'soft',
  'ware',
  'tech',
  'hub',
  'base',
  'point',
  'wave',
  'stream',
  'gen',
  'sys',
  'scape',
  'core',
  'mind',
  'link',
  'path',
  'nest',
  'forge',
  'loop',
  'bit',
  'spark',
  'vance',
  'tronics',
  'matic',
  'nova',
  'sphere',
  'grid',
  'field',
  'gate',
  'bridge',
  'leaf',
  'rock',
  'star',
  'ium',
  'io',
  'ex',
  'ara',
  'ent',
  'ix',
  'on',
  'a',
];
const INSTITUTIONS: readonly ((ctx: FillContext) => string)[] = [
  (c) => `University of ${city(c)}`,
  (c) =>
    `${city(c)} ${c.rng.pick(['University', 'General Hospital', 'City Council', 'Chamber of Commerce', 'Public Library', 'Savings Bank', 'Football Club', 'Symphony Orchestra', 'Community College', 'Medical Center', 'Police Department', 'Art Museum'])}`,
  (c) => `${c.rng.pick(['Bank', 'Central Bank', 'National Library', 'Supreme Court', 'Embassy', 'Ministry of Health'])} of ${country(c)}`,
  (c) =>
    `${c.rng.pick(['Ministry of', 'Department of', 'Office of', 'Institute of', 'Society of', 'Academy of', 'Bureau of'])} ${c.rng.pick(['Health', 'Finance', 'Education', 'Justice', 'Labor', 'Transport', 'Energy', 'Agriculture', 'Defence', 'Foreign Affairs', 'Internal Affairs', 'Statistics', 'Fine Arts', 'Sciences'])}`,
  (c) =>
    `${c.rng.pick(['National', 'International', 'European', 'American', 'Global', 'Royal', 'United', 'World'])} ${c.rng.pick(['Health', 'Trade', 'Cancer', 'Science', 'Heart', 'Red', 'Wildlife', 'Energy', 'Space', 'Rail', 'Postal', 'Literacy'])} ${c.rng.pick(['Institute', 'Association', 'Foundation', 'Agency', 'Society', 'Council', 'Federation', 'Service', 'Union', 'Fund'])}`,
  (c) => `${lastName(c)} ${c.rng.pick(['& Sons', 'and Sons', '& Partners', 'Brothers', 'Family Foundation', 'Law Firm', 'Consulting', 'Associates'])}`,
  (c) => `St. ${firstName(c)}'s ${c.rng.pick(['Hospital', 'School', 'Church', 'College'])}`,
];

/** Startup-style names: invented syllables, a made-up compound, or two everyday words run together or side by side. */
function brand(ctx: FillContext): string {
  const { rng } = ctx;
  const common = ctx.gazetteers['common']!;
  const everyday = (): string => rng.pick(common).replace(/[^a-z]/g, '');
  const word = weighted<() => string>(rng, [
    [20, () => cap(syllables(ctx, 2 + rng.int(2)))],
    [30, () => rng.pick(BRAND_HEADS) + rng.pick(BRAND_TAILS)],
    [30, () => cap(everyday()) + everyday()],
    [12, () => `${cap(everyday())} ${cap(everyday())}`],
    [8, () => `${cap(everyday())}${rng.pick(['ly', 'ify', 'io', 'hub', 'com', 'r', 'able'])}`],
  ])();
  return rng.chance(0.3) ? word : `${word} ${rng.pick(ORG_SUFFIXES)}`;
}

function acronym(ctx: FillContext): string {
  const letters = Array.from({ length: 2 + ctx.rng.int(3) }, () => String.fromCharCode(65 + ctx.rng.int(26)));
  return ctx.rng.chance(0.2) ? `${letters.join('.')}.` : letters.join('');
}

export function organisation(ctx: FillContext): string {
  return weighted<() => string>(ctx.rng, [
    // faker's "Lastname, Lastname and Lastname" reads as a list of people as often as a firm: keep a few.
    [
      30,
      () => {
        const name = localized(ctx, (f) => f.company.name());
        return / and /.test(name) && ctx.rng.chance(0.85) ? `${name.split(',')[0]!} ${ctx.rng.pick(ORG_SUFFIXES)}` : name;
      },
    ],
    [5, () => `${lastName(ctx)}-${lastName(ctx)}`],
    [28, () => brand(ctx)],
    [16, () => ctx.rng.pick(INSTITUTIONS)(ctx)],
    [12, () => ctx.rng.pick(KNOWN_ORGS)],
    [6, () => acronym(ctx)],
    [
      8,
      () =>
        `${brand(ctx).split(' ')[0]!} ${ctx.rng.pick(['Bank', 'Airlines', 'Pharmaceuticals', 'Insurance', 'Logistics', 'Media', 'Energy', 'Motors', 'Foods', 'Records', 'Publishing', 'Health', 'Capital', 'Labs'])}`,
    ],
  ])();
}

function nrp(ctx: FillContext): string {
  const { rng, gazetteers } = ctx;
  const list = weighted(rng, [
    [70, 'nat'],
    [15, 'religion'],
    [15, 'political'],
  ] as const);
  const value = rng.pick(gazetteers[list]!);
  return rng.chance(0.15) ? value.toLowerCase() : value;
}

const MONTH_NAMES = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];
const pad = (n: number): string => String(n).padStart(2, '0');
const ordinal = (n: number): string => `${n}${n % 10 === 1 && n !== 11 ? 'st' : n % 10 === 2 && n !== 12 ? 'nd' : n % 10 === 3 && n !== 13 ? 'rd' : 'th'}`;

export function year(ctx: FillContext): string {
  return String(ctx.rng.chance(0.7) ? 1950 + ctx.rng.int(80) : 1800 + ctx.rng.int(150));
}

export function date(ctx: FillContext): string {
  const { rng } = ctx;
  const y = year(ctx);
  const m = 1 + rng.int(12);
  const d = 1 + rng.int(28);
  const month = MONTH_NAMES[m - 1]!;
  const short = month.slice(0, 3) + (rng.chance(0.3) ? '.' : '');
  return rng.pick([
    `${month} ${d}, ${y}`,
    `${d} ${month} ${y}`,
    `${pad(m)}/${pad(d)}/${y}`,
    `${pad(d)}/${pad(m)}/${y}`,
    `${y}-${pad(m)}-${pad(d)}`,
    `${d}.${m}.${y}`,
    `${pad(d)}.${pad(m)}.${y}`,
    `${short} ${d}, ${y}`,
    `${d} ${short} ${y}`,
    `${ordinal(d)} of ${month}`,
    `${month} ${ordinal(d)}`,
    `${month} ${y}`,
    `${month} ${d}`,
    `${rng.pick(['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday', 'Sunday'])}, ${month} ${d}`,
    `${m}/${d}/${y.slice(2)}`,
    `${y}`,
    `${d}-${short}-${y}`,
    `the ${ordinal(d)} of ${month} ${y}`,
    `${rng.pick(['early', 'late', 'mid-'])}${rng.chance(0.5) ? ' ' : ''}${y}`.replace('- ', '-'),
    `${y.slice(0, 3)}0s`,
    `the ${y.slice(0, 3)}0s`,
    `Q${1 + rng.int(4)} ${y}`,
  ]);
}

export function time(ctx: FillContext): string {
  const { rng } = ctx;
  const h = rng.int(24);
  const h12 = h % 12 || 12;
  const min = pad(rng.int(12) * 5);
  return rng.pick([
    `${h}:${min}`,
    `${pad(h)}:${min}`,
    `${h12}:${min} ${h < 12 ? 'am' : 'pm'}`,
    `${h12}${h < 12 ? 'am' : 'pm'}`,
    `${h12}:${min}${h < 12 ? 'AM' : 'PM'}`,
    `${h12} ${h < 12 ? 'a.m.' : 'p.m.'}`,
    `${pad(h)}:${min}:${pad(rng.int(60))}`,
    `${h}:${min} ${rng.pick(['UTC', 'CET', 'GMT', 'EST', 'PST'])}`,
    `${h12} o'clock`,
    'noon',
    'midnight',
    `${h}h${min}`,
  ]);
}

export function dateTime(ctx: FillContext): string {
  const { rng } = ctx;
  return rng.pick([
    () => `${date(ctx)} at ${time(ctx)}`,
    () => `${date(ctx)} ${time(ctx)}`,
    () => `${time(ctx)} on ${date(ctx)}`,
    () => `${year(ctx)}-${pad(1 + rng.int(12))}-${pad(1 + rng.int(28))}T${pad(rng.int(24))}:${pad(rng.int(60))}:00Z`,
  ])();
}

/** A job title: faker's corporate ones, or an occupation word, alone or after a head ("Leasing consultant"). */
export function jobTitle(ctx: FillContext): string {
  const { rng } = ctx;
  return weighted<() => string>(rng, [
    [3, () => ctx.en.person.jobTitle()],
    [2, () => ctx.en.person.jobType()],
    [3, () => rng.pick(OCCUPATIONS)],
    [2, () => `${rng.pick(OCCUPATION_HEADS)} ${rng.pick(OCCUPATIONS)}`],
  ])().replace(/^./, (ch) => (rng.chance(0.6) ? ch.toUpperCase() : ch));
}

/** US military mail: a ship or a unit, then FPO/APO/DPO with the "state" AA, AE or AP and a ZIP code. */
function militaryAddress(ctx: FillContext): string {
  const { rng } = ctx;
  const zip5 = String(rng.int(100000)).padStart(5, '0');
  const n4 = () => String(rng.int(10000)).padStart(4, '0');
  const sep = rng.chance(0.7) ? '\n' : ', ';
  const tail = `${rng.pick(['FPO', 'APO', 'DPO'])} ${rng.pick(['AA', 'AE', 'AP'])} ${zip5}`;
  return rng.pick([
    () => `${rng.pick(['USS', 'USNS', 'USNV', 'USCGC'])} ${lastName(ctx)}${sep}${tail}`,
    () => `PSC ${n4()}, Box ${n4()}${sep}${tail}`,
    () => `Unit ${n4()} Box ${n4()}${sep}${tail}`,
  ])();
}

const money = (c: FillContext): string => c.rng.pick([`$${c.rng.int(5000)}.${pad(c.rng.int(100))}`, `€${c.rng.int(900)}`, `${c.rng.int(20000)} EUR`, `£${c.rng.int(3000)}`, `USD ${c.rng.int(9000)}`]);

/** Every slot a template may use. */
export const FILLERS: Record<string, Filler> = {
  PERSON: (c) => ent('PERSON', casing(c, personName(c))),
  FIRST: (c) => ent('PERSON', casing(c, firstName(c))),
  LAST: (c) => ent('PERSON', casing(c, lastName(c))),
  FULL: (c) => ent('PERSON', casing(c, `${firstName(c)} ${c.rng.chance(0.2) ? `${initial(c)} ` : ''}${lastName(c)}`)),
  CITY: (c) => ent('LOCATION', casing(c, city(c))),
  COUNTRY: (c) => ent('LOCATION', casing(c, country(c))),
  STATE: (c) => ent('LOCATION', state(c)),
  REGION: (c) => ent('LOCATION', c.rng.pick(REGIONS).replace(/^the /, '')),
  PLACE: (c) => ent('LOCATION', casing(c, c.rng.pick([city, city, country, state])(c))),
  STREET: (c) => ent('LOCATION', street(c)),
  ADDRESS: address,
  TOWNLINE: townLine,
  // Firms keep their case: a lower-cased firm name made of everyday words would teach that any noun phrase is one.
  ORG: (c) => ent('ORGANIZATION', c.rng.chance(0.03) ? organisation(c).toUpperCase() : organisation(c)),
  NRP: (c) => ent('NRP', nrp(c)),
  NAT: (c) => ent('NRP', casing(c, c.rng.pick(c.gazetteers['nat']!))),
  RELIGION: (c) => ent('NRP', casing(c, c.rng.pick(c.gazetteers['religion']!))),
  POLITICAL: (c) => ent('NRP', casing(c, c.rng.pick(c.gazetteers['political']!))),
  DATE: (c) => ent('DATE_TIME', date(c)),
  YEAR: (c) => ent('DATE_TIME', year(c)),
  TIME: (c) => ent('DATE_TIME', time(c)),
  DATETIME: (c) => ent('DATE_TIME', dateTime(c)),
  // Slots that are never one of our entities: they teach the tagger what to leave alone.
  HONORIFIC: (c) => plain(c.rng.pick(['Mr.', 'Mrs.', 'Ms.', 'Dr.', 'Prof.', 'Mr', 'Mrs', 'Ms', 'Dr', 'Miss', 'Sir', 'Madam', 'Mx.', 'Professor', 'Captain', 'Judge', 'Senator'])),
  JOB: (c) => plain(jobTitle(c)),
  PRODUCT: (c) => plain(c.en.commerce.productName()),
  DEPT: (c) => plain(c.en.commerce.department()),
  SONG: (c) => plain(c.rng.chance(0.5) ? c.en.music.songName() : c.en.book.title()),
  GENRE: (c) => plain(c.en.music.genre()),
  CATCH: (c) => plain(c.en.company.catchPhrase()),
  EMAIL: (c) => plain(c.en.internet.email()),
  PHONE: (c) => plain(c.rng.chance(0.3) ? c.en.phone.number() : localized(c, (f) => f.phone.number())),
  URL: (c) => plain(c.en.internet.url()),
  DOMAIN: (c) => plain(c.en.internet.domainName()),
  MONEY: (c) => plain(money(c)),
  // Never a number that reads as a year: those are DATE_TIME in context.
  NUM: (c) => plain(String(((n) => (n >= 1500 && n <= 2100 ? n + 1000 : n))(1 + c.rng.int(c.rng.chance(0.5) ? 20 : 5000)))),
  AGE: (c) => plain(String(18 + c.rng.int(70))),
  ID: (c) => plain(`${c.rng.pick(['INV', 'PO', 'REF', 'CASE', 'TCK', 'ORD', 'ACC'])}-${c.rng.int(900000) + 100000}`),
  CARD: (c) => plain(c.en.finance.creditCardNumber()),
  IBAN: (c) => plain(c.en.finance.iban()),
  ZIP: (c) => plain(zip(c)),
  NOUN: (c) => plain(c.en.word.noun()),
  ADJ: (c) => plain(c.en.word.adjective()),
  VERB: (c) => plain(c.en.word.verb()),
  // A capitalised everyday word, as a sentence or a heading starts: no name for all its capital.
  CAPWORD: (c) =>
    plain(
      cap(
        weighted<() => string>(c.rng, [
          [3, () => c.en.word.adjective()],
          [2, () => c.en.word.adverb()],
          [2, () => c.en.word.verb()],
          [2, () => c.en.word.noun()],
          [2, () => c.rng.pick(c.gazetteers['common']!)],
        ])(),
      ),
    ),
  ACRO: (c) => plain(c.rng.pick(PLAIN_ACRONYMS)),
  // A language named like a people (Polish, Greek) is an NRP, as the adjective always is; others are not.
  LANG: (c) => {
    const lang = c.rng.pick([
      'English',
      'French',
      'German',
      'Spanish',
      'Italian',
      'Portuguese',
      'Russian',
      'Mandarin',
      'Arabic',
      'Hindi',
      'Japanese',
      'Dutch',
      'Polish',
      'Swedish',
      'Turkish',
      'Swahili',
      'Esperanto',
      'Latin',
      'Cantonese',
      'Greek',
    ]);
    return ['Mandarin', 'Hindi', 'Swahili', 'Esperanto', 'Latin', 'Cantonese', 'Arabic'].includes(lang) ? plain(lang) : ent('NRP', lang);
  },
  // A weekday names a date, as "12 May" does.
  WEEKDAY: (c) => ent('DATE_TIME', c.rng.pick(['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday', 'Sunday'])),
  ANIMAL: (c) => plain(c.en.animal.type()),
  COLOR: (c) => plain(c.en.color.human()),
  VEHICLE: (c) => plain(c.en.vehicle.vehicle()),
};
