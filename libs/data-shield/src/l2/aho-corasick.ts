import { foldString, lowerFold, wordChars } from './text-chars';

export interface AutomatonMatch {
  /** Index of the pattern as given to the builder. */
  pattern: number;
  start: number;
  end: number;
}

/**
 * One Aho-Corasick automaton over many words (spec 4.17 rule 4: L2 word
 * lists, case-insensitive, on word boundaries). Patterns are folded to
 * lower case; the text is folded unit by unit while scanning, so offsets
 * are the original text's. Building sorts the patterns and inserts them in
 * order, which keeps each node's children as a sibling chain appended at
 * its end; the root's transitions are a direct table. Memory is a few typed
 * arrays, about 20 bytes per trie node, so 100,000 entries cost a few MB.
 */
export class WordAutomaton {
  private readonly firstChild: Int32Array;
  private readonly nextSibling: Int32Array;
  private readonly label: Uint16Array;
  private readonly fail: Int32Array;
  /** Pattern ending at this node, or -1. */
  private readonly terminal: Int32Array;
  /** Nearest node on the fail chain that is terminal, or -1. */
  private readonly outputLink: Int32Array;
  private readonly depth: Int32Array;
  private readonly rootNext: Int32Array;
  readonly patternCount: number;

  constructor(patterns: readonly string[]) {
    this.patternCount = patterns.length;
    const folded = patterns.map((p, i) => ({ text: foldString(p), index: i })).filter((p) => p.text.length > 0);
    folded.sort((a, b) => (a.text < b.text ? -1 : a.text > b.text ? 1 : a.index - b.index));
    let capacity = 1;
    for (const p of folded) capacity += p.text.length;
    const firstChild = new Int32Array(capacity).fill(-1);
    const lastChild = new Int32Array(capacity).fill(-1);
    const nextSibling = new Int32Array(capacity).fill(-1);
    const label = new Uint16Array(capacity);
    const terminal = new Int32Array(capacity).fill(-1);
    const depth = new Int32Array(capacity);
    let count = 1;
    for (const p of folded) {
      let node = 0;
      for (let i = 0; i < p.text.length; i++) {
        const c = p.text.charCodeAt(i);
        const last = lastChild[node]!;
        if (last !== -1 && label[last] === c) {
          node = last;
          continue;
        }
        const child = count++;
        label[child] = c;
        depth[child] = depth[node]! + 1;
        if (last === -1) firstChild[node] = child;
        else nextSibling[last] = child;
        lastChild[node] = child;
        node = child;
      }
      // The first of equal patterns keeps the node.
      if (terminal[node] === -1) terminal[node] = p.index;
    }
    this.firstChild = firstChild.slice(0, count);
    this.nextSibling = nextSibling.slice(0, count);
    this.label = label.slice(0, count);
    this.terminal = terminal.slice(0, count);
    this.depth = depth.slice(0, count);
    this.rootNext = new Int32Array(65536).fill(0);
    for (let ch = this.firstChild[0]!; ch !== -1; ch = this.nextSibling[ch]!) this.rootNext[this.label[ch]!] = ch;
    this.fail = new Int32Array(count);
    this.outputLink = new Int32Array(count).fill(-1);
    this.linkFailures(count);
  }

  private child(node: number, c: number): number {
    if (node === 0) return this.rootNext[c]!;
    for (let ch = this.firstChild[node]!; ch !== -1; ch = this.nextSibling[ch]!) if (this.label[ch] === c) return ch;
    return -1;
  }

  private linkFailures(count: number): void {
    const queue = new Int32Array(count);
    let head = 0;
    let tail = 0;
    for (let ch = this.firstChild[0]!; ch !== -1; ch = this.nextSibling[ch]!) {
      this.fail[ch] = 0;
      queue[tail++] = ch;
    }
    while (head < tail) {
      const node = queue[head++]!;
      for (let ch = this.firstChild[node]!; ch !== -1; ch = this.nextSibling[ch]!) {
        const c = this.label[ch]!;
        let f = this.fail[node]!;
        let target = -1;
        for (;;) {
          const t = this.child(f, c);
          if (t > 0 && t !== ch) {
            target = t;
            break;
          }
          if (f === 0) break;
          f = this.fail[f]!;
        }
        const failTo = target > 0 ? target : 0;
        this.fail[ch] = failTo;
        this.outputLink[ch] = this.terminal[failTo]! !== -1 ? failTo : this.outputLink[failTo]!;
        queue[tail++] = ch;
      }
    }
  }

  /**
   * Every occurrence of a pattern that stands on word boundaries (no letter,
   * digit or `_` right before or after it), in one pass over the text.
   */
  scan(text: string, onMatch: (m: AutomatonMatch) => void): void {
    if (this.patternCount === 0) return;
    const fold = lowerFold();
    const word = wordChars();
    const { fail, terminal, outputLink, depth, rootNext } = this;
    let node = 0;
    const n = text.length;
    for (let i = 0; i < n; i++) {
      const c = fold[text.charCodeAt(i)]!;
      let next: number;
      if (node === 0) next = rootNext[c]!;
      else {
        next = this.child(node, c);
        while (next === -1) {
          node = fail[node]!;
          next = node === 0 ? rootNext[c]! : this.child(node, c);
        }
      }
      node = next;
      if (node === 0) continue;
      let out = terminal[node] !== -1 ? node : outputLink[node]!;
      if (out === -1) continue;
      const end = i + 1;
      const endsOnBoundary = end >= n || word[text.charCodeAt(end)] === 0;
      if (!endsOnBoundary) continue;
      while (out !== -1) {
        const start = end - depth[out]!;
        if (start === 0 || word[text.charCodeAt(start - 1)] === 0) onMatch({ pattern: terminal[out]!, start, end });
        out = outputLink[out]!;
      }
    }
  }
}
