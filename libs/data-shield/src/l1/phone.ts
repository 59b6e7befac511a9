import { parsePhoneNumberFromString, type CountryCode } from 'libphonenumber-js/max';
import type { DetectedEntity } from '../entities';
import { LAYER_PRIORITY } from '../entities';
import { contextWindow } from '../engine/context';
import type { Recognizer } from '../engine/recognizer';

/** Regions a number without a `+` prefix is tried in (spec 4.17 rule 2 needs several). */
export const PHONE_REGIONS: readonly CountryCode[] = ['US', 'GB', 'DE', 'FR', 'IN', 'AU', 'CA', 'ES', 'IT', 'NL', 'IE', 'BR', 'MX', 'JP', 'ZA'];

/**
 * A run that looks like a formatted number: optional `+` and country code,
 * optional area code in parentheses, digit groups joined by one separator
 * each. Bounded everywhere, so the scan is linear.
 */
const CANDIDATE = /(?<![\w+])(?:\+\d{1,3}[ .\-\u00a0]?|00\d{1,3}[ .\-])?(?:\(\d{1,5}\)[ .\-\u00a0]?)?\d{1,5}(?:[ .\-\u00a0/]\d{1,8}){0,5}(?:\s?(?:x|ext\.?)\s?\d{1,5})?(?![\w])/g;

const DATE_LIKE = /^(?:\d{4}[-./]\d{1,2}[-./]\d{1,2}|\d{1,2}[-./]\d{1,2}[-./]\d{2,4})$/;
/** Shapes of other identifiers: an SSN or ITIN (3-2-4), a card or Aadhaar (groups of four). */
const OTHER_ID_LIKE = /^(?:\d{3}([- ])\d{2}\1\d{4}|\d{4}([ -])\d{4}\2\d{4}(?:\2\d{1,7})*)$/;
const NANP_SHAPE = /^(?:\+?1[ .-]?)?(?:\(\d{3}\) ?|\d{3}[ .-])\d{3}[ .-]\d{4}$/;
const IPV4_LIKE = /^\d{1,3}(?:\.\d{1,3}){3}$/;

/** A date at the start (a date with its time runs on: "2003-08-28 12:13"). */
const DATE_PREFIX = /^(?:\d{4}[-./]\d{1,2}[-./]\d{1,2}|\d{1,2}[-./]\d{1,2}[-./]\d{4})(?!\d)/;
/** Right after the candidate: a time (":20"), a decimal or a unit of amount. */
const CONTINUES_AS_NON_PHONE = /^(?::\d|[.,]\d|\s?(?:%|€|\$|£|kg|km|mb|gb|usd|eur)\b)/i;

/** Words near a number that say it is a phone number. */
const PHONE_WORDS = new Set([
  'phone',
  'phones',
  'telephone',
  'tel',
  'mobile',
  'cell',
  'cellphone',
  'fax',
  'call',
  'calls',
  'calling',
  'called',
  'dial',
  'ring',
  'reach',
  'contact',
  'number',
  'no',
  'desk',
  'landline',
  'hotline',
  'whatsapp',
  'sms',
  'text',
  'answering',
  'voicemail',
  'ph',
  'mob',
  'tél',
  'telefon',
]);
/** Street words: a number followed by a name and one of these is a house number, or a postcode and a house number. */
const STREET_WORDS = new Set([
  'street',
  'st',
  'road',
  'rd',
  'avenue',
  'ave',
  'av',
  'lane',
  'ln',
  'drive',
  'dr',
  'boulevard',
  'blvd',
  'way',
  'court',
  'ct',
  'place',
  'pl',
  'square',
  'sq',
  'terrace',
  'close',
  'crescent',
  'highway',
  'hwy',
  'parkway',
  'pkwy',
  'rue',
  'via',
  'calle',
  'strasse',
  'straße',
  'weg',
  'suite',
  'apt',
  'apartment',
  'unit',
  'floor',
]);

function anyIn(words: readonly string[], set: ReadonlySet<string>): boolean {
  return words.some((w) => set.has(w));
}

/** Formatting characters the spec requires: a `+` prefix, parentheses or a separator between digit groups. */
function isFormatted(candidate: string): boolean {
  return /^\+|^00|\(\d+\)|\d[ .\-\u00a0/]\d/.test(candidate);
}

/**
 * PHONE (L1): only numbers written with formatting characters (spec 4.17
 * rule 2), so a bare run of digits (an order number, a card) is never a
 * phone. A candidate is kept when libphonenumber-js finds it a valid number
 * in its own country (`+` prefix) or in one of PHONE_REGIONS.
 */
export class PhoneRecognizer implements Recognizer {
  readonly name = 'phone';
  readonly types = ['PHONE'];
  readonly layer = 'L1' as const;
  readonly priority = LAYER_PRIORITY.L1;

  constructor(private readonly regions: readonly CountryCode[] = PHONE_REGIONS) {}

  find(text: string, emit: (entity: DetectedEntity) => void): void {
    const re = new RegExp(CANDIDATE.source, 'g');
    let m: RegExpExecArray | null;
    while ((m = re.exec(text)) !== null) {
      const candidate = m[0].trimEnd();
      const digits = candidate.replace(/\D/g, '').length;
      if (digits < 7 || digits > 17 || !isFormatted(candidate) || DATE_LIKE.test(candidate) || DATE_PREFIX.test(candidate) || IPV4_LIKE.test(candidate) || OTHER_ID_LIKE.test(candidate)) continue;
      const end = m.index + candidate.length;
      if (CONTINUES_AS_NON_PHONE.test(text.slice(end, end + 5))) continue;
      const score = /^(?:\+|00)|\(/.test(candidate) ? this.validity(candidate) : this.inContext(text, m.index, end, candidate);
      if (score > 0) emit({ type: 'PHONE', start: m.index, end, score, layer: 'L1', priority: this.priority, source: this.name });
    }
  }

  /**
   * Context (spec 4.17 rule 4), for numbers whose only formatting is
   * separators (a `+`, `00` or parentheses leave no doubt): a phone word
   * before the number keeps it; without one, a number followed by a street
   * name (a postcode and a house number) is dropped, and so is one valid
   * only in a weak sense (score 0.6: no trunk prefix, not North American),
   * such as a postcode with a dash or an id in groups. The context is read
   * first: a number that cannot score above 0.6 without a phone word (not
   * North American in shape, no trunk prefix) is never parsed.
   */
  private inContext(text: string, start: number, end: number, candidate: string): number {
    const { before, after } = contextWindow(text, start, end);
    if (anyIn(before, PHONE_WORDS)) {
      const score = this.validity(candidate);
      return score > 0 ? Math.min(1, score + 0.05) : 0;
    }
    if (anyIn(after, STREET_WORDS) || !(NANP_SHAPE.test(candidate) || candidate.startsWith('0'))) return 0;
    const score = this.validity(candidate);
    return score > 0.6 ? score : 0;
  }

  /**
   * 0.95 for a valid international number, 0.7 for one only possible (its
   * length fits its country's plan); 0.9 for a valid North American
   * number in its usual shape; 0.85 for one valid with a trunk prefix (0…)
   * in a listed region; 0.6 for one valid somewhere else in the list (many
   * plans accept short numbers); else 0.
   */
  private validity(candidate: string): number {
    const written = candidate.startsWith('+') ? candidate : candidate.startsWith('00') ? `+${candidate.slice(2)}` : undefined;
    if (written) {
      // "+41 (0)96 ...": the trunk prefix some write in parentheses is dialled only at home.
      const international = written.replace(/^(\+\d{1,3})[ .\-\u00a0]?\(0\)/, '$1 ');
      const parsed = parsePhoneNumberFromString(international);
      if (parsed?.isValid()) return 0.95;
      // A number written with its country code whose length fits the plan but whose block is not (or not yet)
      // allocated, such as the ranges kept for fiction ("+1-903-140-...", "+44 7700 9..."): still a phone number.
      return parsed?.isPossible() ? 0.7 : 0;
    }
    let best = 0;
    for (const region of this.regions) {
      if (!parsePhoneNumberFromString(candidate, region)?.isValid()) continue;
      if ((region === 'US' || region === 'CA') && NANP_SHAPE.test(candidate)) return 0.9;
      best = Math.max(best, candidate.startsWith('0') || candidate.startsWith('(0') ? 0.85 : 0.6);
    }
    return best;
  }
}
