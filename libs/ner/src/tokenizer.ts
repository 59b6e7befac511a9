/**
 * Splits text into the tokens the tagger labels, keeping exact UTF-16
 * offsets so that spans map back to the input byte for byte.
 *
 * A token is a run of letters and digits (with combining marks), where inner
 * apostrophes, hyphens and dots join parts of one word (O'Brien, Jean-Pierre,
 * U.N., 3.5), except that a trailing possessive 's is its own token so that a
 * name span can stop before it. Any other non-space character is a token on
 * its own, and so is a run of line breaks.
 */
export interface Token {
  text: string;
  start: number;
  end: number;
}

// One alternation tried in order at each position; sticky so that no slicing happens.
// ∆ (U+2206, a math symbol) stands for the Greek capital delta in some place-name data ("ΠΟΛΕΜΙ∆ΙΑ"): a letter here.
const WORD = String.raw`[\p{L}\p{N}\p{M}\u2206]+(?:['’\-.&][\p{L}\p{N}\p{M}\u2206]+)*\.?`;
// URLs and e-mail addresses are one token each: split at every dot and slash
// they would look like a run of short capitalised words. (Trailing punctuation
// is not part of them.)
const URL = String.raw`(?:https?|ftp)://[^\s<>"]*[^\s<>".,;:!?)\]'’]`;
const EMAIL = String.raw`[\p{L}\p{N}._%+\-]+@[\p{L}\p{N}\-]+(?:\.[\p{L}\p{N}\-]+)+`;
// Line breaks are tokens too: they separate the lines of an address block or a signature.
const TOKEN_RE = new RegExp(String.raw`${URL}|${EMAIL}|${WORD}|[\r\n]+|\S`, 'gu');
const POSSESSIVE_RE = /['’][sS]$/;
// Initials and dotted acronyms (J., U.N., e.g.) keep their dot; so do the usual short forms.
const DOTTED_RE = /^(?:\p{L}\.)+$/u;
const ABBREVIATIONS = new Set(
  (
    'mr mrs ms mx dr prof sr jr st ave blvd rd ln apt ste no inc ltd co corp llc plc bros dept univ gen col lt sgt capt rev hon ' +
    'jan feb mar apr jun jul aug sep sept oct nov dec mon tue wed thu fri sat sun vs etc approx est fig mt ft ' +
    // Street words of addresses abroad (ul. Długa, Koepenicker Str., al. Jana Pawła, Av. Paulista, pl. Wolności).
    'ul str al pl av avda bd pza hwy pkwy ct cres sq fwy'
  ).split(' '),
);

function keepsDot(word: string): boolean {
  return DOTTED_RE.test(word) || ABBREVIATIONS.has(word.slice(0, -1).toLowerCase());
}

export function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  TOKEN_RE.lastIndex = 0;
  for (let m = TOKEN_RE.exec(text); m; m = TOKEN_RE.exec(text)) {
    const word = m[0];
    const start = m.index;
    if (word.includes('@') || word.includes('://')) {
      tokens.push({ text: word, start, end: start + word.length });
      continue;
    }
    // A trailing dot belongs to the word only for abbreviations and initials (Dr., J., U.N.);
    // otherwise it ends the sentence.
    if (word.length > 1 && word.endsWith('.') && !keepsDot(word)) {
      pushWord(tokens, word.slice(0, -1), start);
      tokens.push({ text: '.', start: start + word.length - 1, end: start + word.length });
      continue;
    }
    pushWord(tokens, word, start);
  }
  return tokens;
}

function pushWord(tokens: Token[], word: string, start: number): void {
  if (word.length > 2 && POSSESSIVE_RE.test(word)) {
    const cut = word.length - 2;
    tokens.push({ text: word.slice(0, cut), start, end: start + cut });
    tokens.push({ text: word.slice(cut), start: start + cut, end: start + word.length });
    return;
  }
  tokens.push({ text: word, start, end: start + word.length });
}
