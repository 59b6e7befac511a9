/** RTIO prompts (interface spec 2.4): roles, tasks, instructions and an output format. */

export const RTIO_ROLES = ['system', 'user'] as const;
export type RtioRoleName = (typeof RTIO_ROLES)[number];

export const RTIO_OUTPUT_FORMATS = ['json', 'text'] as const;
export type RtioOutputFormat = (typeof RTIO_OUTPUT_FORMATS)[number];

export const PROMPT_TYPES = ['extraction', 'classification', 'summarization'] as const;
export type PromptType = (typeof PROMPT_TYPES)[number];

export const PROMPT_LEVELS = ['system', 'user'] as const;
export type PromptLevel = (typeof PROMPT_LEVELS)[number];

/** One role line: who speaks (`system` or `user`) and what it says. */
export interface RtioRole {
  role: RtioRoleName;
  prompt: string;
}

/** What rendering needs of a prompt record; every other field of the record is ignored. */
export interface RtioPrompt {
  roles: RtioRole[];
  tasks: string[];
  instructions: string[];
  outputFormat: RtioOutputFormat;
  /** The shape (and an example) of the answer when outputFormat is `json`. */
  exampleOutput?: Record<string, unknown> | null;
}

/** A message for the LLM service's `messages` form. */
export interface RtioMessage {
  role: 'system' | 'user';
  content: string;
}

export interface RenderOptions {
  /** The document the prompt runs on (extracted text). Empty: the prompt is rendered without a document block. */
  documentText: string;
  /** Extra material placed before the document (a question, workflow inputs, retrieved passages). */
  extraContext?: string;
  /** Longer documents are cut to this many characters, with a visible marker. Default: no limit. */
  maxDocumentChars?: number;
}

/** The classification result a draft is built from (spec 4.4 generate-rtio, 4.5 phase 1). */
export interface ClassificationResult {
  document_type: string;
  category?: string | null;
  key_features?: string[] | null;
  /** 0..1. */
  confidence?: number | null;
}

/** A complete, unsaved prompt (the `rtio_prompt` of POST /prompts/generate-rtio). */
export interface RtioPromptDraft extends RtioPrompt {
  title: string;
  description: string;
  section: string;
  type: PromptType;
  level: 'user';
  version: string;
  exampleOutput: Record<string, unknown>;
}
