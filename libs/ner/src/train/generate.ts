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

function variant(s: LabelledText, ctx: FillContext): LabelledText {
  const r = ctx.rng.next();
  // Case changes keep every offset: toLowerCase/toUpperCase keep the length of the
  // Latin text we generate, and we check that below rather than trust it.
  let text = s.text;
  if (r < 0.04) text = text.toLowerCase();
  else if (r < 0.06) text = text.toUpperCase();
  if (text.length !== s.text.length) text = s.text;
  if (ctx.rng.chance(0.1) && /[.!]$/.test(text) && !s.spans.some((sp) => sp.end === text.length)) text = text.slice(0, -1);
  return { text, spans: s.spans };
}
