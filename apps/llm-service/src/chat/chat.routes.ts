import { Router } from 'express';
import { ModelType } from '@docflow/contracts';
import { UnprocessableEntityError, parseBody } from '@docflow/service-kit';
import { CompletionService } from '../completion/completion.service';
import { explicitJson } from '../completion/request-options';
import { shieldOptionsOf } from '../completion/shield-options';
import { renderTemplate } from '../extract/extract-request';
import { ChatMessage, ChatRequest } from '../providers/provider';
import { ChatBody } from './chat-request';
import { type FileResolver, withFiles } from '../files/file-inputs';

/** The conversation to send: the messages, else the legacy template rendered as one user turn; 422 with neither. */
function conversationOf(body: ChatBody): ChatMessage[] {
  if (body.messages?.length) {
    return body.messages.map((m) => ({
      role: m.role,
      content: m.content ?? '',
      ...(m.tool_call_id ? { tool_call_id: m.tool_call_id } : {}),
      ...(m.tool_calls?.length ? { tool_calls: m.tool_calls.map((c) => ({ id: c.id, type: c.type, function: { name: c.function.name, arguments: c.function.arguments } })) } : {}),
    }));
  }
  if (body.content !== undefined && body.prompt_template !== undefined) return [{ role: 'user', content: renderTemplate(body.prompt_template, body.content) }];
  throw new UnprocessableEntityError(
    'Send either a non-empty messages array or content plus prompt_template',
    {
      accepted_forms: [['messages'], ['content', 'prompt_template']],
    },
    'missing_field',
  );
}

function toChatRequest(body: ChatBody): ChatRequest {
  const json = explicitJson(undefined, body.response_format);
  return {
    messages: conversationOf(body),
    ...(body.temperature !== undefined ? { temperature: body.temperature } : {}),
    ...(body.max_tokens !== undefined ? { maxTokens: body.max_tokens } : {}),
    ...(body.tools?.length ? { tools: body.tools.map((t) => ({ type: t.type, function: { ...t.function } })) } : {}),
    ...(body.tool_choice !== undefined ? { toolChoice: body.tool_choice } : {}),
    jsonMode: json === true,
    expectsJson: json === true,
    ...(body.task_hint ? { hints: { task: body.task_hint } } : {}),
  };
}

/** POST /api/v1/chat: one assistant turn, with tool calls when the model makes them. */
export function chatRoutes(completions: CompletionService, files: FileResolver): Router {
  const router = Router();
  router.post('/chat', async (req, res) => {
    const body = parseBody(ChatBody, req.body, { message: 'Invalid chat request' });
    const modelType: ModelType = body.model_type ?? 'provider_a';
    const request = toChatRequest(body);
    if (body.file_urls?.length) {
      // Issue 19, item 1: as on extract; the files join the conversation's last user message.
      const resolved = await files.resolve(body.file_urls, { provider: completions.providerName(modelType), shielded: shieldOptionsOf(body) !== undefined });
      request.messages = withFiles(request.messages, resolved);
    }
    const { result, provider, cost, shield } = await completions.complete({
      endpoint: 'chat',
      modelType,
      request,
      ...(shieldOptionsOf(body) ? { shield: shieldOptionsOf(body) } : {}),
    });
    res.json({
      // The answer's text at the top level too, as extract answers it (spec 4.16).
      content: result.content,
      message: { role: 'assistant', content: result.content, ...(result.tool_calls?.length ? { tool_calls: result.tool_calls } : {}) },
      model: result.model,
      provider,
      usage: {
        prompt_tokens: result.usage.prompt_tokens,
        completion_tokens: result.usage.completion_tokens,
        total_tokens: result.usage.prompt_tokens + result.usage.completion_tokens,
      },
      cost,
      ...(shield ? { data_shield: shield } : {}),
    });
  });
  return router;
}
