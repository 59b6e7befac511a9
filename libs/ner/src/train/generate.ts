import type { CharSpan } from '../labels';
import { FILLERS, type FillContext, type Piece } from './fillers';

/**
 * Renders a template into text and gold spans. `[a|b]` picks an alternative
 * (no nesting), `{SLOT}` is filled from FILLERS. Sentence-level variants
 * (all lower case, all upper case, no final punctuation) follow the ways
 * people actually type.
 */
export interface LabelledText {
  text: string;
  spans: CharSpan[];
}

const TOKEN_RE = /\[([^\]]*)\]|\{([A-Z]+)\}/g;

export function render(template: string, ctx: FillContext): LabelledText {
  // Alternatives first, so that a chosen alternative may hold slots.
  const chosen = template.replace(/\[([^\]]*)\]/g, (_, alts: string) => ctx.rng.pick(alts.split('|')));
  const pieces: Piece[] = [];
  let last = 0;
  TOKEN_RE.lastIndex = 0;
  for (let m = TOKEN_RE.exec(chosen); m; m = TOKEN_RE.exec(chosen)) {
    if (m.index > last) pieces.push({ text: chosen.slice(last, m.index) });
    const filler = FILLERS[m[2]!];
    if (!filler) throw new Error(`unknown slot {${m[2]}} in template: ${template}`);
    pieces.push(...filler(ctx));
    last = m.index + m[0].length;
  }
  if (last < chosen.length) pieces.push({ text: chosen.slice(last) });
  addClause(pieces, ctx);

  let text = '';
  const spans: CharSpan[] = [];
  for (const p of pieces) {
    if (p.type && p.text.trim()) {
      const lead = p.text.length - p.text.trimStart().length;
      spans.push({ type: p.type, start: text.length + lead, end: text.length + p.text.trimEnd().length });
    }
    text += p.text;
  }
  return variant({ text, spans }, ctx);
}

/**
 * Clauses of everyday words put before or after a quarter of the sentences:
 * they give the tagger ordinary lower-case and capitalised text to leave
 * alone, which short templates alone would not.
 */
const CLAUSES = [
  'The {ADJ} {NOUN} [was|is] [gone|fine|late].',
  'By the way, the {NOUN} [is|was] {ADJ}.',
  'Anyway, {VERB} the {NOUN} [first|later].',
  'Also, we need [more|a new] {NOUN}.',
  'It [seems|looks] {ADJ} [to me|again].',
  '[Thanks|Thank you] in advance!',
  'Hope this helps.',
  'See the attached {NOUN}.',
  'PS: the {ADJ} {NOUN} [arrived|broke].',
  'Sorry for the {ADJ} reply.',
  '[Any|Some] {NOUN} [would help|is fine].',
  'Not sure about the {NOUN}, though.',
  'Let me know what you think.',
  '[Regarding|About] the {NOUN}: it [works|failed].',
  '{NOUN} and {NOUN} are [included|extra].',
  'The "{SONG}" {NOUN} is [great|odd].',
  'We also {VERB} {ADJ} {NOUN}s.',
];

function addClause(pieces: Piece[], ctx: FillContext): void {
  if (!ctx.rng.chance(0.25)) return;
  const template = ctx.rng.pick(CLAUSES).replace(/\[([^\]]*)\]/g, (_, alts: string) => ctx.rng.pick(alts.split('|')));
  const text = template.replace(/\{([A-Z]+)\}/g, (_, slot: string) =>
    FILLERS[slot]!(ctx)
      .map((p) => p.text)
      .join(''),
  );
  if (ctx.rng.chance(0.5)) pieces.unshift({ text: `${text} ` });
  else pieces.push({ text: ` ${text}` });
}

function variant(s: LabelledText, ctx: FillContext): LabelledText {
  const r = ctx.rng.next();
  // Case changes keep every offset: toLowerCase/toUpperCase keep the length of the
  // Latin text we generate, and we check that below rather than trust it.
  let text = s.text;
  if (r < 0.025) text = text.toLowerCase();
  else if (r < 0.04) text = text.toUpperCase();
  if (text.length !== s.text.length) text = s.text;
  if (ctx.rng.chance(0.1) && /[.!]$/.test(text) && !s.spans.some((sp) => sp.end === text.length)) text = text.slice(0, -1);
  return { text, spans: s.spans };
}
