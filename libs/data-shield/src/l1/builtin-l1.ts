import { LAYER_PRIORITY } from '../entities';
import { RegexRecognizer, type Recognizer } from '../engine/recognizer';
import { aadhaarValid, ibanValid, ipv4Valid, luhnValid, panValid, ssnValid } from '../validators';
import { EmailRecognizer } from './email';
import { PhoneRecognizer } from './phone';

const L1 = { layer: 'L1' as const, priority: LAYER_PRIORITY.L1 };
const hasDigit = (text: string) => /\d/.test(text);

/** Digits of a match, separators removed. */
const digitsOf = (s: string) => s.replace(/[^0-9]/g, '');

/** One separator kind at most (`4111-1111 1111` mixes two and is refused). */
function consistentSeparators(s: string): boolean {
  const seps = new Set(s.replace(/[0-9]/g, ''));
  return seps.size <= 1;
}

const CARD_PREFIX = /^(?:4|5[1-5]|2[2-7]|3[47]|3[0689]|6(?:011|5|4[4-9]|22)|35|62|81|50|5[6-9]|6[0-9])/;

export const creditCard = new RegexRecognizer({
  ...L1,
  name: 'credit_card',
  type: 'CREDIT_CARD',
  // 12 to 19 digits, single spaces or dashes allowed between them.
  regex: /(?<![\w-])\d(?:[ -]?\d){11,18}(?![\w]|-\d)/g,
  prefilter: hasDigit,
  validate: (match) => {
    const digits = digitsOf(match);
    if (digits.length < 12 || digits.length > 19 || !consistentSeparators(match) || !luhnValid(digits)) return null;
    if (/^(\d)\1+$/.test(digits)) return null;
    return CARD_PREFIX.test(digits) ? 1 : 0.9;
  },
  context: { negative: ['order', 'invoice', 'tracking', 'reference'], penalty: 0.2 },
});

export const ssn = new RegexRecognizer({
  ...L1,
  name: 'us_ssn',
  type: 'SSN',
  regex: /(?<![\w-])\d{3}([- .]?)\d{2}\1\d{4}(?![\w]|-\d)/g,
  prefilter: hasDigit,
  validate: (match) => {
    const digits = digitsOf(match);
    if (!ssnValid(digits)) return null;
    // Unformatted nine digits are as likely a bank or order number: they need context.
    return match.length === 9 ? 0.3 : 0.95;
  },
  context: { words: ['ssn', 'ssns', 'social security', 'social', 'security number', 'ss#', 'ssid'] },
  minScore: 0.5,
});

export const ipv4 = new RegexRecognizer({
  ...L1,
  name: 'ipv4',
  type: 'IP',
  regex: /(?<![\d.])\d{1,3}\.\d{1,3}\.\d{1,3}\.\d{1,3}(?![\d]|\.\d)/g,
  prefilter: (t) => t.includes('.') && hasDigit(t),
  validate: (match) => (ipv4Valid(match) ? 0.95 : null),
});

export const aadhaar = new RegexRecognizer({
  ...L1,
  name: 'aadhaar',
  type: 'AADHAAR',
  regex: /(?<![\w-])[2-9]\d{3}([ -]?)\d{4}\1\d{4}(?![\w]|-\d)/g,
  prefilter: hasDigit,
  validate: (match) => (aadhaarValid(digitsOf(match)) ? 0.85 : null),
  context: { words: ['aadhaar', 'aadhar', 'uidai', 'uid'] },
});

export const pan = new RegexRecognizer({
  ...L1,
  name: 'in_pan',
  type: 'PAN',
  regex: /\b[A-Z]{3}[PCHFATBLJG][A-Z]\d{4}[A-Z]\b/g,
  prefilter: hasDigit,
  validate: (match) => (panValid(match) ? 0.85 : null),
  context: { words: ['pan', 'permanent account', 'income tax'] },
});

/**
 * IBAN: country, check digits, then groups with optional single spaces.
 * The scan may run into the following word, so shorter group ends are tried
 * until one validates (longest first).
 */
export const iban = new RegexRecognizer({
  ...L1,
  name: 'iban',
  type: 'IBAN',
  regex: /\b[A-Za-z]{2}\d{2}(?: ?[A-Za-z0-9]{1,4}){2,8}\b/g,
  prefilter: hasDigit,
  validate: (match, _text, index) => {
    const ends: number[] = [];
    for (let i = match.length; i > 4; i--) {
      if (i === match.length || match[i] === ' ') ends.push(i);
    }
    for (const end of ends) {
      const candidate = match.slice(0, end).replace(/ /g, '');
      if (ibanValid(candidate)) return { start: index, end: index + end, score: 1 };
      // Without spaces, the groups do not tell where it ends: try every length the country allows.
    }
    return null;
  },
});

/** Every built-in L1 recognizer (spec 4.17 rule 2). */
export function builtInL1(): Recognizer[] {
  return [new EmailRecognizer(), new PhoneRecognizer(), ssn, creditCard, ipv4, aadhaar, pan, iban];
}
