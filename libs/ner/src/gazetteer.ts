import { tokenize, type Token } from './tokenizer';

const MAX_ENTRY_TOKENS = 6;

/**
 * Word lists the tagger consults as features (never as final answers): a hit
 * tells the model "this could be a city", the context decides. Entries are
 * token sequences compared in lower case, so "new york" matches "New York"
 * and "NEW YORK"; the shape features carry the case.
 *
 * The lists are stored normalised (see normaliseLists): lower-case tokens
 * joined by one space, so that loading the model tokenises nothing.
 */
export type GazetteerLists = Record<string, readonly string[]>;

/** Raw entries ("St. John's") → sorted unique keys as the tokenizer sees them ("st. john 's"). */
export function normaliseLists(raw: GazetteerLists): GazetteerLists {
  const out: Record<string, string[]> = {};
  for (const name of Object.keys(raw).sort()) {
    const keys = new Set<string>();
    for (const entry of raw[name] ?? []) {
      const parts = tokenize(entry).map((t) => t.text.toLowerCase());
      if (parts.length && parts.length <= MAX_ENTRY_TOKENS) keys.add(parts.join(' '));
    }
    out[name] = [...keys].sort();
  }
  return out;
}

/** Where a token sits in a list hit: Begin, Inside, End of a multi-token entry, or a Single-token entry. */
export type GazetteerPosition = 'B' | 'I' | 'E' | 'S';

export interface GazetteerHit {
  list: string;
  pos: GazetteerPosition;
}

export class Gazetteer {
  /** Entry key (lower-case tokens joined by a space) → indexes of the lists that hold it. */
  private readonly entries = new Map<string, number[]>();
  /** Every proper token prefix of a multi-token entry ("new" for "new york"): a scan extends a key only while it is one. */
  private readonly prefixes = new Set<string>();
  readonly listNames: readonly string[];
  private maxTokens = 1;

  /** `lists` as normaliseLists returns them. */
  constructor(lists: GazetteerLists) {
    this.listNames = Object.keys(lists).sort();
    this.listNames.forEach((name, index) => {
      for (const key of lists[name] ?? []) {
        const holders = this.entries.get(key);
        if (!holders) this.entries.set(key, [index]);
        else if (!holders.includes(index)) holders.push(index);
        let tokens = 1;
        for (let i = key.indexOf(' '); i >= 0; i = key.indexOf(' ', i + 1)) {
          this.prefixes.add(key.slice(0, i));
          tokens++;
        }
        if (tokens > this.maxTokens) this.maxTokens = tokens;
      }
    });
  }

  /**
   * The hits on each token. For every list, the longest entry starting at the
   * leftmost position wins and the scan resumes after it, so one list never
   * marks a token twice. `keep` lets training drop hits at random.
   */
  match(tokens: readonly Token[], keep: (list: string) => boolean = () => true): GazetteerHit[][] {
    const lower = tokens.map((t) => t.text.toLowerCase());
    const hits: GazetteerHit[][] = tokens.map(() => []);
    // Per list, the first token index not yet covered by one of its hits.
    const freeFrom = new Array<number>(this.listNames.length).fill(0);
    for (let i = 0; i < tokens.length; i++) {
      let key = '';
      const found: { list: number; len: number }[] = [];
      for (let len = 1; len <= this.maxTokens && i + len <= tokens.length; len++) {
        key = len === 1 ? lower[i]! : `${key} ${lower[i + len - 1]!}`;
        const holders = this.entries.get(key);
        if (holders) for (const list of holders) found.push({ list, len });
        if (!this.prefixes.has(key)) break;
      }
      if (!found.length) continue;
      // Longest first, so each list takes its longest entry here.
      if (found.length > 1) found.sort((a, b) => b.len - a.len || a.list - b.list);
      for (const { list, len } of found) {
        if (freeFrom[list]! > i) continue;
        const name = this.listNames[list]!;
        freeFrom[list] = i + len;
        if (!keep(name)) continue;
        for (let k = 0; k < len; k++) {
          const pos: GazetteerPosition = len === 1 ? 'S' : k === 0 ? 'B' : k === len - 1 ? 'E' : 'I';
          hits[i + k]!.push({ list: name, pos });
        }
      }
    }
    return hits;
  }
}
