import * as fakerModule from '@faker-js/faker';
import type { Faker } from '@faker-js/faker';
import { Rng } from './rng';

/**
 * Faker instances for the locales whose names, streets and cities train the
 * tagger. Names in Cyrillic or Greek are transliterated into Latin letters,
 * the way they appear in English text (Yefremova, Papadopoulos).
 */

// Latin-script locales, with a weight: English ones are common in our documents,
// but names of every origin must be found.
const LATIN: Record<string, number> = {
  EN: 6,
  EN_US: 3,
  EN_GB: 3,
  EN_AU: 1,
  EN_CA: 1,
  EN_IE: 1,
  EN_IN: 2,
  EN_NG: 1,
  EN_GH: 1,
  EN_ZA: 1,
  AF_ZA: 1,
  AZ: 1,
  CS_CZ: 2,
  CY: 1,
  DA: 1,
  DE: 3,
  DE_AT: 1,
  DE_CH: 1,
  EO: 0.3,
  ES: 3,
  ES_MX: 2,
  FI: 2,
  FR: 3,
  FR_BE: 1,
  FR_CA: 1,
  FR_CH: 1,
  FR_LU: 0.5,
  FR_SN: 0.5,
  EN_HK: 0.5,
  EN_NP: 0.5,
  HR: 1,
  HU: 2,
  ID_ID: 1,
  IT: 3,
  LV: 1,
  NB_NO: 1,
  NL: 2,
  NL_BE: 1,
  PL: 2,
  PT_BR: 2,
  PT_PT: 1,
  RO: 1,
  RO_MD: 0.5,
  SK: 1,
  SL_SI: 1,
  SR_RS_latin: 1,
  SV: 2,
  TR: 2,
  UZ_UZ_latin: 0.5,
  VI: 1,
  YO_NG: 1,
  ZU_ZA: 1,
  KU_kmr_latin: 0.5,
};
const TRANSLITERATED: Record<string, number> = { RU: 3, UK: 2, EL: 1, MK: 0.5, MN_MN_cyrl: 0.5 };

const CYRILLIC: Record<string, string> = {
  а: 'a',
  б: 'b',
  в: 'v',
  г: 'g',
  д: 'd',
  е: 'e',
  ё: 'yo',
  ж: 'zh',
  з: 'z',
  и: 'i',
  й: 'y',
  к: 'k',
  л: 'l',
  м: 'm',
  н: 'n',
  о: 'o',
  п: 'p',
  р: 'r',
  с: 's',
  т: 't',
  у: 'u',
  ф: 'f',
  х: 'kh',
  ц: 'ts',
  ч: 'ch',
  ш: 'sh',
  щ: 'shch',
  ъ: '',
  ы: 'y',
  ь: '',
  э: 'e',
  ю: 'yu',
  я: 'ya',
  є: 'ye',
  і: 'i',
  ї: 'yi',
  ґ: 'g',
  ө: 'o',
  ү: 'u',
  ѓ: 'g',
  ѕ: 'dz',
  ј: 'j',
  љ: 'lj',
  њ: 'nj',
  ќ: 'k',
  џ: 'dzh',
  α: 'a',
  ά: 'a',
  β: 'v',
  γ: 'g',
  δ: 'd',
  ε: 'e',
  έ: 'e',
  ζ: 'z',
  η: 'i',
  ή: 'i',
  θ: 'th',
  ι: 'i',
  ί: 'i',
  ϊ: 'i',
  ΐ: 'i',
  κ: 'k',
  λ: 'l',
  μ: 'm',
  ν: 'n',
  ξ: 'x',
  ο: 'o',
  ό: 'o',
  π: 'p',
  ρ: 'r',
  σ: 's',
  ς: 's',
  τ: 't',
  υ: 'y',
  ύ: 'y',
  ϋ: 'y',
  φ: 'f',
  χ: 'ch',
  ψ: 'ps',
  ω: 'o',
  ώ: 'o',
};

export function transliterate(text: string): string {
  let out = '';
  for (const ch of text) {
    const lower = ch.toLowerCase();
    const latin = CYRILLIC[lower];
    if (latin === undefined) out += ch;
    else out += ch === lower || !latin ? latin : latin[0]!.toUpperCase() + latin.slice(1);
  }
  return out;
}

export interface Locale {
  code: string;
  faker: Faker;
  /** Whether text from this locale must be transliterated. */
  translit: boolean;
  weight: number;
}

export function loadLocales(seed: number): Locale[] {
  const all = fakerModule as unknown as Record<string, Faker | undefined>;
  const out: Locale[] = [];
  const add = (table: Record<string, number>, translit: boolean): void => {
    for (const code of Object.keys(table).sort()) {
      const faker = all[`faker${code}`];
      if (!faker) throw new Error(`faker has no locale ${code}`);
      out.push({ code, faker, translit, weight: table[code]! });
    }
  };
  add(LATIN, false);
  add(TRANSLITERATED, true);
  out.forEach((l, i) => l.faker.seed(seed * 1000 + i));
  return out;
}

export function pickLocale(rng: Rng, locales: readonly Locale[]): Locale {
  const total = locales.reduce((a, l) => a + l.weight, 0);
  let r = rng.next() * total;
  for (const l of locales) {
    r -= l.weight;
    if (r < 0) return l;
  }
  return locales[locales.length - 1]!;
}

/** A locale's value in Latin script, or undefined when it still holds other scripts (Chinese, Georgian ...). */
export function latin(locale: Locale, value: string): string | undefined {
  const text = locale.translit ? transliterate(value) : value;
  return /^[\p{Script=Latin}\p{N}\p{P}\p{Zs}\p{M}'’&+]*$/u.test(text) ? text : undefined;
}
