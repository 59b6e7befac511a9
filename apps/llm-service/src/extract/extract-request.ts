import { IsIn, IsInt, IsNumber, IsOptional, Max, Min } from 'class-validator';
import { ExtractRequest, extractRequestForm } from '@docflow/contracts';
import { UnprocessableEntityError } from '@docflow/service-kit';
import { explicitJson, IsResponseFormat, LOCAL_TASKS } from '../completion/request-options';
import type { ResponseFormat } from '../completion/request-options';
import type { ChatRequest, LocalTask } from '../providers/provider';

/**
 * The contract's ExtractRequest plus the optional generation fields the
 * processors send (spec 2.7 `output_format`); unknown fields are ignored.
 */
export class ExtractBody extends ExtractRequest {
  @IsOptional()
  @IsIn(['json', 'text'])
  output_format?: 'json' | 'text';

  @IsOptional()
  @IsResponseFormat()
  response_format?: ResponseFormat;

  @IsOptional()
  @IsNumber()
  @Min(0)
  @Max(2)
  temperature?: number;

  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(200000)
  max_tokens?: number;

  /** Tells the local engine which task to do; remote providers ignore it. */
  @IsOptional()
  @IsIn(LOCAL_TASKS)
  task_hint?: LocalTask;
}

const PLACEHOLDER = /\{\{\s*content\s*\}\}|\{content\}/g;

/** The legacy template with the content put in place of `{content}` / `{{content}}`, or appended. */
export function renderTemplate(template: string, content: string): string {
  if (new RegExp(PLACEHOLDER.source).test(template)) return template.replace(PLACEHOLDER, () => content);
  return `${template.trimEnd()}\n\n${content}`;
}

export interface ExtractPlan {
  request: ChatRequest;
  /** Parse the answer as JSON. */
  wantsJson: boolean;
  shielded: boolean;
}

/**
 * Turns a validated body into one provider call, or refuses it with 422
 * when it has neither form. Its file_urls are read by the route (files/).
 */
export function planExtract(body: ExtractBody): ExtractPlan {
  const form = extractRequestForm(body);
  const shielded = body.redact_pii === true || body.data_shield?.enabled === true;
  if (form === 'none') {
    const missing =
      body.content !== undefined && body.prompt_template === undefined
        ? ['prompt_template']
        : body.prompt_template !== undefined && body.content === undefined
          ? ['content']
          : ['messages', 'content', 'prompt_template'];
    throw new UnprocessableEntityError(
      'Send either a non-empty messages array or content plus prompt_template',
      {
        accepted_forms: [['messages'], ['content', 'prompt_template']],
        missing,
      },
      'missing_field',
    );
  }
  const text = form === 'legacy' ? `${body.prompt_template ?? ''}\n${body.content ?? ''}` : (body.messages ?? []).map((m) => m.content).join('\n');
  const explicit = explicitJson(body.output_format, body.response_format);
  const wantsJson = explicit ?? /\bjson\b/i.test(text);
  const request: ChatRequest = {
    messages:
      form === 'legacy' ? [{ role: 'user', content: renderTemplate(body.prompt_template ?? '', body.content ?? '') }] : (body.messages ?? []).map((m) => ({ role: m.role, content: m.content })),
    ...(body.temperature !== undefined ? { temperature: body.temperature } : {}),
    ...(body.max_tokens !== undefined ? { maxTokens: body.max_tokens } : {}),
    jsonMode: explicit === true,
    expectsJson: wantsJson,
    hints: {
      ...(body.task_hint ? { task: body.task_hint } : {}),
      ...(form === 'legacy' ? { instructions: (body.prompt_template ?? '').replace(PLACEHOLDER, ' '), document: body.content ?? '' } : {}),
    },
  };
  return { request, wantsJson, shielded };
}
