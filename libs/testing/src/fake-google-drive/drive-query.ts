import type { FakeFile } from './drive-state';

export type FileFilter = (file: FakeFile) => boolean;

/** The `and`-separated clauses of a Drive query, split outside quoted strings. */
function clauses(q: string): string[] {
  const out: string[] = [];
  let current = '';
  let quoted = false;
  for (let i = 0; i < q.length; i += 1) {
    const c = q[i]!;
    if (quoted && c === '\\') {
      current += c + (q[i + 1] ?? '');
      i += 1;
      continue;
    }
    if (c === "'") quoted = !quoted;
    if (!quoted && q.slice(i, i + 5).toLowerCase() === ' and ') {
      out.push(current.trim());
      current = '';
      i += 4;
      continue;
    }
    current += c;
  }
  if (quoted) throw new Error('unterminated string');
  out.push(current.trim());
  return out.filter((c) => c.length > 0);
}

/** A quoted Drive query string (`\'` and `\\` escapes) to its value. */
function literal(text: string): string {
  if (!text.startsWith("'") || !text.endsWith("'") || text.length < 2) throw new Error(`expected a quoted string: ${text}`);
  return text.slice(1, -1).replace(/\\(.)/g, '$1');
}

/**
 * The subset of the Drive v3 query language (`files.list` `q`) this fake
 * understands: `'<id>' in parents`, `name = '<text>'`, `trashed = true|false`
 * and `mimeType = | != '<type>'`, joined by `and`. Anything else throws (the
 * server answers 400 invalid query, as Google does for a bad query).
 */
export function parseDriveQuery(q: string): FileFilter {
  const tests: FileFilter[] = clauses(q).map((clause) => {
    const inParents = /^('(?:[^'\\]|\\.)*')\s+in\s+parents$/.exec(clause);
    if (inParents) {
      const parent = literal(inParents[1]!);
      return (f) => f.parents.includes(parent);
    }
    const compare = /^(name|mimeType)\s*(=|!=)\s*('(?:[^'\\]|\\.)*')$/.exec(clause);
    if (compare) {
      const field = compare[1] as 'name' | 'mimeType';
      const value = literal(compare[3]!);
      return compare[2] === '=' ? (f) => f[field] === value : (f) => f[field] !== value;
    }
    const trashed = /^trashed\s*=\s*(true|false)$/.exec(clause);
    if (trashed) {
      const want = trashed[1] === 'true';
      return (f) => f.trashed === want;
    }
    throw new Error(`unsupported clause: ${clause}`);
  });
  return (file) => tests.every((t) => t(file));
}
