import type { RenderOptions, RtioMessage, RtioPrompt } from './types';

export const DEFAULT_SYSTEM_ROLE = 'You are a careful document assistant. You work only from the document you are given and never invent facts.';

/** The sentence that asks for JSON; the LLM service and the local engine both look for the word "JSON" and for the example object after it. */
export const JSON_INSTRUCTION = 'Output format: JSON. Respond with a single JSON object and nothing else: no prose, no Markdown, no code fences.';

function clean(lines: readonly string[]): string[] {
  return lines.map((l) => l.trim()).filter((l) => l.length > 0);
}

function numbered(title: string, items: string[]): string | undefined {
  if (items.length === 0) return undefined;
  return `${title}:\n${items.map((item, i) => `${i + 1}. ${item}`).join('\n')}`;
}

function bulleted(title: string, items: string[]): string | undefined {
  if (items.length === 0) return undefined;
  return `${title}:\n${items.map((item) => `- ${item}`).join('\n')}`;
}

function outputSection(prompt: RtioPrompt): string {
  if (prompt.outputFormat === 'text') return 'Output format: plain text. Do not answer in JSON.';
  const example = prompt.exampleOutput;
  if (!example || Object.keys(example).length === 0) return JSON_INSTRUCTION;
  return [
    JSON_INSTRUCTION,
    'Use exactly the keys of the example output below, with values of the same kind; write null where the document does not give a value.',
    `Example output:\n${JSON.stringify(example, null, 2)}`,
  ].join('\n');
}

function documentBlock(text: string, max: number | undefined): string | undefined {
  const trimmed = text.trim();
  if (!trimmed) return undefined;
  let body = trimmed;
  if (max !== undefined && max > 0 && trimmed.length > max) {
    body = `${trimmed.slice(0, max)}\n[document truncated: the first ${max} of ${trimmed.length} characters are shown]`;
  }
  // A tag, not a Markdown fence: a fence inside the example output or the document would end it early.
  return `Document:\n<document>\n${body}\n</document>`;
}

/**
 * Renders an RTIO prompt and a document into LLM messages: one system message
 * (the system roles, the tasks, the instructions and the output format, with
 * the example output when the format is JSON) and one user message (the user
 * roles, the extra context and the document inside <document> tags).
 * The one renderer every caller uses, so that a prompt means the same thing
 * in generate-rtio, the extraction processor and the workflow tasks.
 */
export function renderRtioMessages(prompt: RtioPrompt, options: RenderOptions): RtioMessage[] {
  const systemRoles = clean(prompt.roles.filter((r) => r.role === 'system').map((r) => r.prompt));
  const userRoles = clean(prompt.roles.filter((r) => r.role === 'user').map((r) => r.prompt));
  const system = [
    systemRoles.length ? systemRoles.join('\n\n') : DEFAULT_SYSTEM_ROLE,
    numbered('Tasks', clean(prompt.tasks)),
    bulleted('Instructions', clean(prompt.instructions)),
    outputSection(prompt),
  ].filter((part): part is string => part !== undefined);

  const context = options.extraContext?.trim();
  const user = [userRoles.length ? userRoles.join('\n\n') : undefined, context ? `Context:\n${context}` : undefined, documentBlock(options.documentText, options.maxDocumentChars)].filter(
    (part): part is string => part !== undefined,
  );
  if (user.length === 0) user.push('Carry out the tasks above.');

  return [
    { role: 'system', content: system.join('\n\n') },
    { role: 'user', content: user.join('\n\n') },
  ];
}
