import { DetectionEngine } from '@docflow/data-shield';
import type { RtioOutputFormat, RtioRole } from '@docflow/rtio';

/** What the linter reads of a prompt (spec 2.4): the text that reaches the model and its output format. */
export interface LintablePrompt {
  roles: readonly RtioRole[];
  tasks: readonly string[];
  instructions: readonly string[];
  outputFormat: RtioOutputFormat;
  exampleOutput: Record<string, unknown> | null;
  description?: string | null;
}

export type LintRule = 'unresolved_placeholder' | 'malformed_placeholder' | 'missing_output_schema' | 'secret' | 'personal_data';

export interface LintFinding {
  rule: LintRule;
  severity: 'error' | 'warning';
  /** Where: `roles[0].prompt`, `tasks[2]`, `instructions[1]`, `exampleOutput.customer.email`, `outputFormat`. */
  field: string;
  /** What is wrong; never the secret or personal value itself. */
  message: string;
}

export interface LintReport {
  ok: boolean;
  errors: LintFinding[];
  warnings: LintFinding[];
}

export interface LintOptions {
  /** `{{key}}` placeholders the runs of this prompt supply (their `prompt_data`); any other is unresolved. */
  placeholders?: readonly string[];
}

/** The placeholder the renderers fill from a run's `prompt_data` (workflow processor, spec 2.6). */
const PLACEHOLDER = /\{\{\s*([A-Za-z0-9_.-]+)\s*\}\}/g;
/** `{{` ... `}}` that the renderer would not fill (empty, spaces or other characters inside). */
const BRACES = /\{\{([^{}]*)\}\}/g;
/** Template markers of other syntaxes, which nothing fills: they reach the model as written. */
const FOREIGN_MARKERS: { pattern: RegExp; what: string }[] = [
  { pattern: /\$\{[^}\s]{1,64}\}/g, what: '${...}' },
  { pattern: /\[\[[^\]\n]{1,64}\]\]/g, what: '[[...]]' },
  { pattern: /<<[^>\n]{1,64}>>/g, what: '<<...>>' },
  { pattern: /<[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+>/g, what: '<UPPER_CASE>' },
  { pattern: /\b(?:TODO|FIXME|TBD|XXX)\b/g, what: 'a TODO marker' },
];

/**
 * Secrets that must not sit in a prompt, which every run sends to a model
 * provider and every reader of a system prompt sees. Names only; the
 * matched text is never reported.
 */
const SECRET_PATTERNS: { name: string; pattern: RegExp }[] = [
  { name: 'private key', pattern: /-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY-----/ },
  { name: 'AWS access key id', pattern: /\b(?:AKIA|ASIA)[0-9A-Z]{16}\b/ },
  { name: 'GitHub token', pattern: /\b(?:gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{40,})\b/ },
  { name: 'Slack token', pattern: /\bxox[abposr]-[A-Za-z0-9-]{10,}\b/ },
  { name: 'Stripe key', pattern: /\b(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,}\b/ },
  { name: 'OpenAI or Anthropic API key', pattern: /\bsk-(?:ant-|proj-)?[A-Za-z0-9_-]{20,}\b/ },
  { name: 'Google API key', pattern: /\bAIza[0-9A-Za-z_-]{35}\b/ },
  { name: 'Docflow chatbot or agent key', pattern: /\b(?:cbk|agk|agt)_[A-Za-z0-9_-]{32,}\b/ },
  { name: 'JSON Web Token', pattern: /\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/ },
  { name: 'bearer token', pattern: /\bBearer\s+[A-Za-z0-9._~+/-]{20,}=*/ },
  { name: 'credentials in a URL', pattern: /\b[a-z][a-z0-9+.-]*:\/\/[^\s:/@]+:[^\s@/]+@/i },
  { name: 'password or key assignment', pattern: /\b(?:password|passwd|pwd|secret|api[_-]?key|access[_-]?token|client[_-]?secret)\s*[:=]\s*["']?[^\s"',;]{6,}/i },
];

/** Personal data found by Data Shield's pattern layers (L1 and L3 patterns); names need its tagger and are not looked for. */
const PERSONAL_TYPES = ['EMAIL', 'PHONE', 'SSN', 'CREDIT_CARD', 'IP', 'AADHAAR', 'PAN', 'IBAN', 'US_PASSPORT', 'US_DRIVER_LICENSE', 'US_BANK_NUMBER', 'US_ITIN', 'MEDICAL_LICENSE'];

/** Every string of the prompt with where it is. */
function texts(p: LintablePrompt): { field: string; text: string }[] {
  const out: { field: string; text: string }[] = [];
  p.roles.forEach((r, i) => out.push({ field: `roles[${i}].prompt`, text: r.prompt }));
  p.tasks.forEach((t, i) => out.push({ field: `tasks[${i}]`, text: t }));
  p.instructions.forEach((t, i) => out.push({ field: `instructions[${i}]`, text: t }));
  const walk = (value: unknown, field: string, depth: number): void => {
    if (depth > 20) return;
    if (typeof value === 'string') out.push({ field, text: value });
    else if (Array.isArray(value)) value.forEach((v, i) => walk(v, `${field}[${i}]`, depth + 1));
    else if (value !== null && typeof value === 'object') for (const [k, v] of Object.entries(value)) walk(v, `${field}.${k}`, depth + 1);
  };
  if (p.exampleOutput) walk(p.exampleOutput, 'exampleOutput', 0);
  return out;
}

/**
 * The checks a prompt passes before it is published (issue 18 item 4):
 * unresolved placeholders (`{{key}}` not declared as supplied by its runs,
 * malformed `{{ }}`, and markers of other template syntaxes), a JSON output
 * without its schema (the example output 2.4 names), secrets, and personal
 * data found by Data Shield's detectors. Errors block publishing.
 */
export class PromptLinter {
  private readonly engine = new DetectionEngine();

  lint(prompt: LintablePrompt, options: LintOptions = {}): LintReport {
    const findings: LintFinding[] = [];
    const declared = new Set(options.placeholders ?? []);
    const used = new Set<string>();

    for (const { field, text } of texts(prompt)) {
      for (const m of text.matchAll(PLACEHOLDER)) {
        const key = m[1] ?? '';
        used.add(key);
        if (!declared.has(key)) {
          findings.push({ rule: 'unresolved_placeholder', severity: 'error', field, message: `{{${key}}} is not among the placeholders its runs supply (declare it in \`placeholders\`)` });
        }
      }
      for (const m of text.matchAll(BRACES)) {
        if (/^\s*[A-Za-z0-9_.-]+\s*$/.test(m[1] ?? '')) continue;
        findings.push({
          rule: 'malformed_placeholder',
          severity: 'error',
          field,
          message: `{{${m[1] ?? ''}}} is not a placeholder the renderer fills (letters, digits, _ . - only); it would reach the model as written`,
        });
      }
      const unclosed = text.split('{{').length - 1 - (text.match(/\{\{[^{}]*\}\}/g) ?? []).length;
      if (unclosed > 0) findings.push({ rule: 'malformed_placeholder', severity: 'error', field, message: '`{{` without its closing `}}`' });
      for (const { pattern, what } of FOREIGN_MARKERS) {
        if (new RegExp(pattern.source, pattern.flags).test(text)) {
          findings.push({ rule: 'unresolved_placeholder', severity: 'error', field, message: `${what} is a template marker nothing fills; write the text or use a {{placeholder}}` });
        }
      }
      for (const { name, pattern } of SECRET_PATTERNS) {
        if (pattern.test(text)) findings.push({ rule: 'secret', severity: 'error', field, message: `looks like a ${name}; keep secrets in credentials, never in a prompt` });
      }
      const types = [...new Set(this.engine.detect(text, { entityTypes: PERSONAL_TYPES }).entities.map((e) => e.type))];
      for (const type of types) {
        findings.push({ rule: 'personal_data', severity: 'error', field, message: `contains personal data (${type}); use a {{placeholder}} or a made-up example` });
      }
    }

    for (const key of declared) {
      if (!used.has(key)) findings.push({ rule: 'unresolved_placeholder', severity: 'warning', field: 'placeholders', message: `${key} is declared but no {{${key}}} uses it` });
    }

    if (prompt.outputFormat === 'json' && (!prompt.exampleOutput || Object.keys(prompt.exampleOutput).length === 0)) {
      findings.push({ rule: 'missing_output_schema', severity: 'error', field: 'exampleOutput', message: 'outputFormat is json but exampleOutput, the shape the model must answer in, is missing' });
    }

    const errors = findings.filter((f) => f.severity === 'error');
    return { ok: errors.length === 0, errors, warnings: findings.filter((f) => f.severity === 'warning') };
  }
}
