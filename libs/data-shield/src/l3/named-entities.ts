import type { NamedEntityType } from '../entities';

/** One named entity: `end` is exclusive; `score` in [0, 1]. */
export interface NamedEntitySpan {
  type: NamedEntityType;
  start: number;
  end: number;
  score: number;
}

/**
 * The offline named-entity tagger behind L3's PERSON, LOCATION,
 * ORGANIZATION, NRP (and DATE_TIME) spans. `libs/ner` implements it
 * (`loadNerTagger()`); the engine takes any implementation, synchronous and
 * cheap enough to run on every shielded text.
 */
export interface NamedEntityRecognizer {
  tag(text: string): NamedEntitySpan[];
}

const TITLES = new Set(['mr', 'mrs', 'ms', 'miss', 'dr', 'prof', 'sir', 'madam', 'mx', 'rev']);
const ORG_SUFFIXES = new Set(['inc', 'ltd', 'llc', 'corp', 'corporation', 'gmbh', 'plc', 'co', 'company', 'group', 'bank', 'university', 'foundation', 'ag', 'sa', 'bv', 'llp']);
const NOT_NAMES = new Set([
  'the',
  'a',
  'an',
  'i',
  'we',
  'you',
  'he',
  'she',
  'it',
  'they',
  'my',
  'our',
  'your',
  'his',
  'her',
  'their',
  'this',
  'that',
  'these',
  'those',
  'dear',
  'hello',
  'hi',
  'thanks',
  'thank',
  'please',
  'regards',
  'best',
  'yours',
  'sincerely',
  'subject',
  're',
  'fw',
  'fwd',
  'and',
  'or',
  'but',
  'if',
  'monday',
  'tuesday',
  'wednesday',
  'thursday',
  'friday',
  'saturday',
  'sunday',
  'january',
  'february',
  'march',
  'april',
  'may',
  'june',
  'july',
  'august',
  'september',
  'october',
  'november',
  'december',
  'in',
  'on',
  'at',
  'for',
  'to',
  'from',
  'with',
  'by',
  'of',
  'as',
  'is',
  'was',
  'call',
  'email',
  'mail',
  'phone',
  'card',
  'iban',
  'account',
  'name',
  'address',
  'note',
  'notes',
  'summary',
  'invoice',
  'contract',
  'customer',
  'client',
  'user',
]);

/**
 * A stand-in for the real tagger until `libs/ner` is wired in: runs of two
 * or more capitalised words (not at a sentence start alone, not common
 * words) read as PERSON, or ORGANIZATION when they end in a company word;
 * one capitalised word after a title (Mr, Dr, ...) reads as PERSON. It is
 * a heuristic, not a named-entity recognizer: it knows no places, misses
 * lower-case names and single names, and takes many titles for people.
 */
export class CapitalisedWordHeuristic implements NamedEntityRecognizer {
  tag(text: string): NamedEntitySpan[] {
    const out: NamedEntitySpan[] = [];
    const words: { start: number; end: number; word: string }[] = [];
    const re = /[\p{L}][\p{L}'’.-]*/gu;
    let m: RegExpExecArray | null;
    while ((m = re.exec(text)) !== null) words.push({ start: m.index, end: m.index + m[0].length, word: m[0] });
    const isCap = (w: string) => /^\p{Lu}[\p{Ll}'’-]+\.?$|^\p{Lu}\.$/u.test(w) && !NOT_NAMES.has(w.toLowerCase().replace(/\.$/, ''));
    const gapIsSpace = (a: { end: number }, b: { start: number }) => /^ {1,2}$/.test(text.slice(a.end, b.start));
    let i = 0;
    while (i < words.length) {
      const w = words[i]!;
      const bare = w.word.toLowerCase().replace(/\.$/, '');
      if (TITLES.has(bare) && i + 1 < words.length && isCap(words[i + 1]!.word) && gapIsSpace(w, words[i + 1]!)) {
        let j = i + 1;
        while (j + 1 < words.length && isCap(words[j + 1]!.word) && gapIsSpace(words[j]!, words[j + 1]!)) j++;
        out.push({ type: 'PERSON', start: words[i + 1]!.start, end: words[j]!.end, score: 0.7 });
        i = j + 1;
        continue;
      }
      if (isCap(w.word)) {
        let j = i;
        while (j + 1 < words.length && isCap(words[j + 1]!.word) && gapIsSpace(words[j]!, words[j + 1]!)) j++;
        if (j > i) {
          const last = words[j]!.word.toLowerCase().replace(/\.$/, '');
          const end = words[j]!.end - (words[j]!.word.endsWith('.') && !ORG_SUFFIXES.has(last) ? 1 : 0);
          out.push({ type: ORG_SUFFIXES.has(last) ? 'ORGANIZATION' : 'PERSON', start: w.start, end, score: 0.6 });
        }
        i = j + 1;
        continue;
      }
      i++;
    }
    return out;
  }
}
