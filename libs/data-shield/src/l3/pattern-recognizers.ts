import { LAYER_PRIORITY } from '../entities';
import { RegexRecognizer, type Recognizer } from '../engine/recognizer';
import { base58CheckValid, bech32Valid, deaValid, itinValid, npiValid } from '../validators';

const L3 = { layer: 'L3' as const, priority: LAYER_PRIORITY.L3 };
const hasDigit = (text: string) => /\d/.test(text);

const TLDS =
  'com|org|net|edu|gov|mil|int|io|co|ai|app|dev|info|biz|me|us|uk|de|fr|es|it|nl|be|ch|at|se|no|dk|fi|pl|cz|pt|ie|ca|au|nz|in|jp|cn|ru|br|mx|za|eu|tv|xyz|online|site|shop|tech|cloud|news|blog|store|name|pro|mobi|ly|gl|gg|to|cc|ws';

/** URL: with a scheme or `www.` (0.95), or a bare host name under a common TLD (0.6). Trailing punctuation is the sentence's. */
export const url = new RegexRecognizer({
  ...L3,
  name: 'url',
  type: 'URL',
  regex: new RegExp(
    String.raw`(?<![\w@.-])(?:(?:https?|ftp):\/\/[^\s<>"'\x60]{1,2000}|www\.[^\s<>"'\x60]{1,2000}|(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.){1,6}(?:${TLDS})(?![\w-]|\.[a-z0-9])(?:\/[^\s<>"'\x60]{0,2000})?)`,
    'gi',
  ),
  prefilter: (t) => t.includes('.') || t.includes('://'),
  validate: (match, _text, index) => {
    const trimmed = match.replace(/[.,;:!?)\]}'"]+$/, '');
    if (trimmed.length < 4) return null;
    const explicit = /^(?:https?|ftp):\/\/|^www\./i.test(trimmed);
    return { start: index, end: index + trimmed.length, score: explicit ? 0.95 : 0.6 };
  },
  context: { words: ['website', 'site', 'url', 'link', 'visit', 'domain', 'page', 'http'], boost: 0.2 },
});

/** MEDICAL_LICENSE: DEA registration numbers (checksum) and, near their name, NPI numbers (Luhn). */
export const deaNumber = new RegexRecognizer({
  ...L3,
  name: 'us_dea',
  type: 'MEDICAL_LICENSE',
  regex: /\b[ABCDEFGHJKLMPRSTUX][A-Z9]\d{7}\b/g,
  prefilter: hasDigit,
  validate: (m) => (deaValid(m) ? 0.8 : null),
  context: { words: ['dea', 'medical', 'license', 'licence', 'prescriber', 'registration'], boost: 0.15 },
});

export const npiNumber = new RegexRecognizer({
  ...L3,
  name: 'us_npi',
  type: 'MEDICAL_LICENSE',
  regex: /(?<![\w-])[12]\d{9}(?![\w])/g,
  prefilter: hasDigit,
  validate: (m) => (npiValid(m) ? 0.3 : null),
  context: { words: ['npi', 'provider', 'physician', 'medical', 'license', 'licence'] },
  minScore: 0.5,
});

const DRIVER_CONTEXT = ['driver', 'drivers', 'driving', 'license', 'licence', 'licenses', 'licences', 'dl', 'dmv', 'permit', 'lic', 'identification'];

/** US_DRIVER_LICENSE: the states' letter-and-digit shapes (weak alone) and digit runs (weaker); context makes them count. */
export const usDriverLicenseAlnum = new RegexRecognizer({
  ...L3,
  name: 'us_driver_license_alnum',
  type: 'US_DRIVER_LICENSE',
  regex: /\b(?:[A-Z]\d{3,14}|[A-Z]{2}\d{2,7}|\d{2}[A-Z]{3}\d{5,6}|\d{3}[A-Z]{2}\d{4}|\d{7,9}[A-Z]{1,2}|[A-Z]\d{6}R|[A-Z]{2}\d{6}[A-Z]|[A-Z]\d[A-Z]\d[A-Z])\b/g,
  prefilter: hasDigit,
  score: 0.3,
  context: { words: DRIVER_CONTEXT, boost: 0.4 },
  minScore: 0.5,
});

export const usDriverLicenseDigits = new RegexRecognizer({
  ...L3,
  name: 'us_driver_license_digits',
  type: 'US_DRIVER_LICENSE',
  regex: /(?<![\w-])\d{6,14}(?![\w]|-\d)/g,
  prefilter: hasDigit,
  score: 0.15,
  context: { words: DRIVER_CONTEXT, boost: 0.4 },
  minScore: 0.5,
});

export const usPassport = new RegexRecognizer({
  ...L3,
  name: 'us_passport',
  type: 'US_PASSPORT',
  regex: /(?<![\w-])(?:[A-Z]\d{8}|\d{9})(?![\w]|-\d)/g,
  prefilter: hasDigit,
  score: 0.1,
  context: { words: ['passport', 'passports', 'travel document', 'passport number', 'passport no'], boost: 0.5 },
  minScore: 0.5,
});

export const usBankNumber = new RegexRecognizer({
  ...L3,
  name: 'us_bank_number',
  type: 'US_BANK_NUMBER',
  regex: /(?<![\w-])\d{8,17}(?![\w]|-\d)/g,
  prefilter: hasDigit,
  score: 0.05,
  context: { words: ['bank', 'account', 'acct', 'checking', 'savings', 'deposit', 'debit', 'wire', 'beneficiary'], negative: ['order', 'invoice', 'tracking', 'phone'], boost: 0.5 },
  minScore: 0.5,
});

export const usItin = new RegexRecognizer({
  ...L3,
  name: 'us_itin',
  type: 'US_ITIN',
  regex: /(?<![\w-])9\d{2}([- ]?)\d{2}\1\d{4}(?![\w]|-\d)/g,
  prefilter: hasDigit,
  validate: (m) => (itinValid(m.replace(/\D/g, '')) ? (m.length === 9 ? 0.3 : 0.6) : null),
  context: { words: ['itin', 'taxpayer', 'tax id', 'tax identification', 'individual taxpayer'], boost: 0.35 },
  minScore: 0.5,
});

/** CRYPTO: Bitcoin addresses by checksum (Base58Check, bech32/bech32m); Ethereum addresses by shape. */
export const crypto = new RegexRecognizer({
  ...L3,
  name: 'crypto_wallet',
  type: 'CRYPTO',
  regex: /\b(?:[13][1-9A-HJ-NP-Za-km-z]{25,34}|(?:bc|tb)1[02-9ac-hj-np-z]{6,87}|0x[0-9a-fA-F]{40})\b/g,
  prefilter: hasDigit,
  validate: (m) => {
    if (m.startsWith('0x')) return 0.6;
    if (/^(?:bc|tb)1/.test(m)) return bech32Valid(m) ? 1 : null;
    return base58CheckValid(m) ? 1 : null;
  },
  context: { words: ['wallet', 'bitcoin', 'btc', 'ethereum', 'eth', 'crypto', 'address'], boost: 0.3 },
});

const MONTHS = 'jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?';
const DAYS = 'monday|tuesday|wednesday|thursday|friday|saturday|sunday';

/** DATE_TIME (only when a request names it): numeric and written dates, weekdays, clock times, years after a word that introduces one. */
export const dateTime = new RegexRecognizer({
  ...L3,
  name: 'date_time',
  type: 'DATE_TIME',
  regex: new RegExp(
    [
      String.raw`\b\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d{1,6})?)?(?:Z|[+-]\d{2}:?\d{2})?)?\b`,
      String.raw`\b\d{1,2}[/.-]\d{1,2}[/.-](?:\d{4}|\d{2})\b`,
      String.raw`\b(?:(?:${DAYS}),?\s)?(?:${MONTHS})\.?\s\d{1,2}(?:st|nd|rd|th)?(?:,?\s\d{4})?\b`,
      String.raw`\b\d{1,2}(?:st|nd|rd|th)?\s(?:of\s)?(?:${MONTHS})\.?(?:,?\s\d{4})?\b`,
      String.raw`\b(?:${MONTHS})\.?,?\s\d{4}\b`,
      String.raw`\b(?:${DAYS})\b`,
      String.raw`\b(?:[01]?\d|2[0-3]):[0-5]\d(?::[0-5]\d)?(?:\s?[ap]\.?m\.?)?\b`,
      String.raw`\b(?:1[0-2]|0?[1-9])\s?[ap]\.?m\.?(?![\w])`,
      // A year on its own after a word that introduces one ("in 1985", "a 2017 film", "the Act of 2001"), not a number of a longer group.
      String.raw`(?<=\b(?:in|of|since|until|till|from|by|during|before|after|year|circa|a|an|the)\s)(?:19|20)\d{2}\b(?![\s,.-]?\d)`,
    ].join('|'),
    'gi',
  ),
  score: 0.85,
});

/** Every built-in L3 pattern recognizer; named entities come from the NamedEntityRecognizer. */
export function builtInL3Patterns(): Recognizer[] {
  return [url, deaNumber, npiNumber, usDriverLicenseAlnum, usDriverLicenseDigits, usPassport, usBankNumber, usItin, crypto, dateTime];
}
