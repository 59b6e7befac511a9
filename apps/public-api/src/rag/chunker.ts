/**
 * Structure-aware chunking of a document's extracted text for RAG.
 *
 * The text is read as blocks (paragraphs, separated by blank lines) and
 * heading lines (Markdown `#`, numbered `2.1 Title`, ALL CAPS or Title Case
 * short lines). Chunks are packed from whole sentences up to `maxChars`,
 * preferring to end at a paragraph once they hold `targetChars`; a heading
 * starts a new chunk (when the current one is not tiny) and is repeated at
 * the top of every later chunk of its section, so each chunk says what it is
 * about. A chunk cut inside a section starts with the last sentences (about
 * `overlapChars`) of the one before. Every chunk keeps the page its own text
 * starts on (from the extraction's per-page text).
 */

export interface ChunkerOptions {
  /** A chunk ends at the next paragraph boundary once it holds this many characters. */
  targetChars: number;
  /** Hard upper bound of a chunk's own text (the repeated heading and overlap come on top of at most `overlapChars` + a heading line). */
  maxChars: number;
  /** How much of the previous chunk's end starts the next chunk of the same section. */
  overlapChars: number;
  /** A heading flushes the current chunk only when it holds at least this much. */
  minChars: number;
}

export const DEFAULT_CHUNKER_OPTIONS: ChunkerOptions = { targetChars: 800, maxChars: 1200, overlapChars: 150, minChars: 200 };

export interface PageText {
  page: number;
  text: string;
}

export interface TextChunk {
  /** 0, 1, 2, ... in reading order. */
  index: number;
  /** Page the chunk's own text starts on; null when the extraction kept no pages. */
  page: number | null;
  /** The section heading the chunk belongs to, when there is one. */
  heading: string | null;
  content: string;
}

interface Unit {
  kind: 'heading' | 'sentence';
  text: string;
  page: number | null;
  /** First sentence of a paragraph. */
  paragraphStart: boolean;
}

const MARKDOWN_HEADING = /^#{1,6}\s+(\S.*)$/;
const NUMBERED_HEADING = /^(?:\d{1,3}(?:\.\d{1,3}){0,4}\.?|[IVXLC]{1,6}\.|(?:Section|Chapter|Article|Part)\s+\d{1,4}[.:]?)\s+\p{Lu}[^.!?;]{0,100}$/u;
const SENTENCE_END = /[.!?;,]["')\]]?$/;

function isHeadingLine(line: string): string | null {
  const md = MARKDOWN_HEADING.exec(line);
  if (md?.[1]) return md[1].trim();
  if (line.length > 100) return null;
  if (NUMBERED_HEADING.test(line)) return line;
  if (SENTENCE_END.test(line) || line.endsWith(':')) return null;
  const words = line.split(/\s+/).filter(Boolean);
  if (words.length === 0 || words.length > 12) return null;
  const letters = line.replace(/[^\p{L}]/gu, '');
  if (letters.length < 3) return null;
  if (letters === letters.toUpperCase() && letters !== letters.toLowerCase()) return line;
  // Title Case: every word of four letters or more starts with a capital.
  const long = words.filter((w) => w.replace(/[^\p{L}]/gu, '').length >= 4);
  return long.length > 0 && long.every((w) => /^\p{Lu}/u.test(w.replace(/^[^\p{L}]+/u, ''))) && /^\p{Lu}/u.test(line) ? line : null;
}

const ABBREVIATIONS = /\b(?:e\.g|i\.e|etc|vs|mr|mrs|ms|dr|prof|no|fig|approx|inc|ltd|co|st)\.$/i;

/** Sentences of a paragraph (a paragraph without sentence punctuation is one sentence). */
export function splitSentences(paragraph: string): string[] {
  const out: string[] = [];
  const re = /[.!?]+["')\]]*\s+(?=["'(\[]?[\p{Lu}\p{N}])/gu;
  let start = 0;
  for (const m of paragraph.matchAll(re)) {
    const end = (m.index ?? 0) + m[0].length;
    const candidate = paragraph.slice(start, end).trim();
    if (ABBREVIATIONS.test(candidate)) continue;
    if (candidate) out.push(candidate);
    start = end;
  }
  const rest = paragraph.slice(start).trim();
  if (rest) out.push(rest);
  return out;
}

/** Cuts an over-long sentence at word boundaries into pieces of at most `max` characters. */
function hardSplit(sentence: string, max: number): string[] {
  if (sentence.length <= max) return [sentence];
  const out: string[] = [];
  let rest = sentence;
  while (rest.length > max) {
    let cut = rest.lastIndexOf(' ', max);
    if (cut < max / 2) cut = max;
    out.push(rest.slice(0, cut).trim());
    rest = rest.slice(cut).trim();
  }
  if (rest) out.push(rest);
  return out;
}

function unitsOf(pages: PageText[], maxChars: number): Unit[] {
  const units: Unit[] = [];
  for (const { page: pageNumber, text } of pages) {
    const page = pageNumber > 0 ? pageNumber : null;
    const normalised = text
      .replace(/\r\n?/g, '\n')
      .replace(/\u00a0/g, ' ')
      .replace(/[ \t\f\v]+/g, ' ');
    for (const block of normalised.split(/\n\s*\n/)) {
      const lines = block
        .split('\n')
        .map((l) => l.trim())
        .filter(Boolean);
      let paragraph: string[] = [];
      const flushParagraph = (): void => {
        if (paragraph.length === 0) return;
        // Lines of one paragraph are joined; a hyphen at a line end joins the word.
        const joined = paragraph.reduce((acc, line) => (acc.endsWith('-') && /^\p{Ll}/u.test(line) ? `${acc.slice(0, -1)}${line}` : acc ? `${acc} ${line}` : line), '');
        splitSentences(joined)
          .flatMap((s) => hardSplit(s, maxChars))
          .forEach((s, i) => units.push({ kind: 'sentence', text: s, page, paragraphStart: i === 0 }));
        paragraph = [];
      };
      lines.forEach((line, i) => {
        // A heading line stands alone or is followed by more lines of its block (a short last line is text).
        const heading = lines.length === 1 || i < lines.length - 1 ? isHeadingLine(line) : null;
        if (heading) {
          flushParagraph();
          units.push({ kind: 'heading', text: heading, page, paragraphStart: true });
        } else {
          paragraph.push(line);
        }
      });
      flushParagraph();
    }
  }
  return units;
}

/** The last sentences of `sentences` that fit in about `chars` characters (at least one word run when the last sentence is longer). */
function overlapTail(sentences: string[], chars: number): string {
  const picked: string[] = [];
  let size = 0;
  for (let i = sentences.length - 1; i >= 0; i -= 1) {
    const s = sentences[i] ?? '';
    if (size + s.length > chars && picked.length > 0) break;
    if (s.length > chars * 2 && picked.length === 0) {
      const tail = s.slice(-chars);
      const space = tail.indexOf(' ');
      return space >= 0 ? tail.slice(space + 1) : tail;
    }
    picked.unshift(s);
    size += s.length + 1;
    if (size >= chars) break;
  }
  return picked.join(' ');
}

/**
 * Chunks a document's text. `pages` (per-page text, when the extraction kept
 * pages) is preferred; otherwise `text` is chunked with no page numbers.
 */
export function chunkDocument(input: { text: string; pages: PageText[] | null }, options: ChunkerOptions = DEFAULT_CHUNKER_OPTIONS): TextChunk[] {
  const pages = input.pages && input.pages.length > 0 ? input.pages : [{ page: 0, text: input.text }];
  const units = unitsOf(pages, options.maxChars);
  const chunks: TextChunk[] = [];

  /** The heading of the section being read. */
  let heading: string | null = null;
  /** True from a heading until the first sentence after it. */
  let headingFresh = false;
  /** The current chunk: the heading it started under, the overlap it starts with, its sentences. */
  let chunkHeading: string | null = null;
  let prefix = '';
  let sentences: string[] = [];
  let paragraphBreaks = new Set<number>();
  let size = 0;
  let page: number | null = null;

  const body = (): string => {
    const parts: string[] = [];
    let paragraph: string[] = [];
    sentences.forEach((s, i) => {
      if (paragraphBreaks.has(i) && paragraph.length) {
        parts.push(paragraph.join(' '));
        paragraph = [];
      }
      paragraph.push(s);
    });
    if (paragraph.length) parts.push(paragraph.join(' '));
    return parts.join('\n\n');
  };
  const emit = (): void => {
    if (sentences.length === 0) return;
    const content = [chunkHeading, prefix || null, body()].filter((p): p is string => p !== null).join('\n\n');
    chunks.push({ index: chunks.length, page, heading: chunkHeading, content });
  };
  const reset = (withOverlap: boolean): void => {
    prefix = withOverlap ? overlapTail(sentences, options.overlapChars) : '';
    sentences = [];
    paragraphBreaks = new Set();
    chunkHeading = heading;
    size = prefix.length + (heading ? heading.length + 2 : 0);
    page = null;
  };

  for (const unit of units) {
    if (unit.kind === 'heading') {
      if (sentences.length > 0 && size >= options.minChars) {
        emit();
        heading = unit.text;
        reset(false);
      } else if (sentences.length > 0) {
        // A short run before the heading stays in this chunk, and the heading with it.
        paragraphBreaks.add(sentences.length);
        sentences.push(unit.text);
        size += unit.text.length + 2;
        heading = unit.text;
      } else {
        // Consecutive headings ("Chapter 2" then "2.1 Scope") name the section together.
        heading = headingFresh && heading ? `${heading}\n${unit.text}` : unit.text;
        reset(false);
      }
      headingFresh = true;
      page ??= unit.page;
      continue;
    }
    const overflows = size + unit.text.length + 1 > options.maxChars;
    const wantsBreak = unit.paragraphStart && size >= options.targetChars;
    if (sentences.length > 0 && (overflows || wantsBreak)) {
      emit();
      reset(true);
    }
    if (unit.paragraphStart && sentences.length > 0) paragraphBreaks.add(sentences.length);
    sentences.push(unit.text);
    size += unit.text.length + 1;
    page ??= unit.page;
    headingFresh = false;
  }
  emit();
  // A text made only of headings still yields its words.
  if (chunks.length === 0 && heading) chunks.push({ index: 0, page, heading, content: heading });
  return chunks;
}
