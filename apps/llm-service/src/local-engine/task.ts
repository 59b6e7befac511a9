import { ChatMessage, LocalHints, LocalTask } from '../providers/provider';

const TASK_PATTERNS: [Exclude<LocalTask, 'chat'>, RegExp][] = [
  ['classify', /\b(classif(?:y|ies|ied|ying|ication)|categori[sz](?:e|es|ed|ing|ation)|which (?:document )?(?:type|category|label)|assign (?:a |one )?(?:label|category))\b/i],
  ['summarize', /\b(summari[sz](?:e|es|ed|ing|ation)|summary of|tl;?dr|key points of)\b/i],
  ['extract', /\b(extract(?:s|ed|ing|ion)?|fill (?:in )?the (?:fields|json|following))\b/i],
];

/** The earliest task verb in the text wins ("Summarize ... return JSON" is a summary). */
export function taskFromText(text: string): LocalTask | undefined {
  let best: { task: LocalTask; at: number } | undefined;
  for (const [task, re] of TASK_PATTERNS) {
    const m = re.exec(text);
    if (m && (best === undefined || m.index < best.at)) best = { task, at: m.index };
  }
  return best?.task;
}

const DOCUMENT_MARKER = /^\s*(?:#+\s*)?(?:document|text|content|context|input|email|invoice|contract|article|source)(?:\s+(?:text|content|below))?\s*:\s*(.*)$/im;
const FENCE = /(```|"""|---+|<document>)\s*\n([\s\S]*?)(?:\n\s*(?:```|"""|---+|<\/document>)\s*(?:\n|$)|$)/;

export interface PromptParts {
  instructions: string;
  document: string;
}

/**
 * Separates the instructions from the document in a user message: text after
 * a `Document:` (or Text, Content, Context, ...) line, inside a fence
 * (```, """, ---, <document>), or after a first paragraph that holds a task
 * verb. Without any of these, the whole message is both.
 */
export function splitPrompt(text: string): PromptParts {
  const fence = FENCE.exec(text);
  if (fence?.[2]?.trim()) {
    return { instructions: `${text.slice(0, fence.index)}\n${text.slice(fence.index + fence[0].length)}`.trim(), document: fence[2].trim() };
  }
  const marker = DOCUMENT_MARKER.exec(text);
  if (marker) {
    const after = text.slice(marker.index + marker[0].length - (marker[1]?.length ?? 0)).trim();
    if (after) return { instructions: text.slice(0, marker.index).trim(), document: after };
  }
  const paragraphs = text.split(/\n\s*\n/);
  if (paragraphs.length > 1) {
    const first = paragraphs[0] ?? '';
    const last = paragraphs[paragraphs.length - 1] ?? '';
    if (taskFromText(first) || /\bjson\b/i.test(first)) return { instructions: first.trim(), document: paragraphs.slice(1).join('\n\n').trim() };
    if (taskFromText(last) || /\bjson\b/i.test(last)) return { instructions: last.trim(), document: paragraphs.slice(0, -1).join('\n\n').trim() };
  }
  return { instructions: text.trim(), document: text.trim() };
}

export interface LocalPlan {
  task: LocalTask;
  instructions: string;
  document: string;
  /** The last user message (the question, in chat). */
  question: string;
}

/**
 * How the local engine reads a request: an explicit hint (`task_hint`, or the
 * legacy form's template and content) first; else the task verb found
 * earliest in the system messages, then in the instruction part of the last
 * user message; a request for JSON without a verb is an extraction; anything
 * else is chat.
 */
export function planLocalTask(messages: ChatMessage[], hints: LocalHints | undefined, expectsJson: boolean): LocalPlan {
  const system = messages
    .filter((m) => m.role === 'system')
    .map((m) => m.content)
    .join('\n\n');
  const lastUser = [...messages].reverse().find((m) => m.role === 'user')?.content ?? '';
  let instructions: string;
  let document: string;
  if (hints?.instructions !== undefined && hints.document !== undefined) {
    instructions = [system, hints.instructions].filter(Boolean).join('\n\n');
    document = hints.document;
  } else {
    const parts = splitPrompt(lastUser);
    instructions = [system, parts.instructions].filter(Boolean).join('\n\n');
    document = parts.document;
  }
  const task = hints?.task ?? taskFromText(system) ?? taskFromText(instructions) ?? (expectsJson ? 'extract' : 'chat');
  return { task, instructions, document, question: lastUser };
}
