import { Router } from 'express';
import { ExtractResponse, ModelType } from '@docflow/contracts';
import { parseBody } from '@docflow/service-kit';
import { CompletionService } from '../completion/completion.service';
import { parseJsonContent } from '../completion/json-content';
import { shieldOptionsOf } from '../completion/shield-options';
import { ExtractBody, planExtract } from './extract-request';
import { type FileResolver, withFiles } from '../files/file-inputs';

/** POST /api/v1/extract (spec 4.16): the legacy and the messages form, both kept indefinitely (spec 9). */
export function extractRoutes(completions: CompletionService, files: FileResolver): Router {
  const router = Router();
  router.post('/extract', async (req, res) => {
    const body = parseBody(ExtractBody, req.body, { message: 'Invalid extract request' });
    const plan = planExtract(body);
    const modelType: ModelType = body.model_type ?? 'provider_a';
    if (body.file_urls?.length) {
      // Issue 19, item 1: the files' text joins the prompt (shielded with it when the call is); native parts where the provider reads them.
      const resolved = await files.resolve(body.file_urls, { provider: completions.providerName(modelType), shielded: plan.shielded });
      plan.request.messages = withFiles(plan.request.messages, resolved);
      if (plan.request.hints && resolved.text !== '') plan.request.hints.document = `${plan.request.hints.document ?? ''}\n\n${resolved.text}`.trim();
    }
    const { result, provider, cost, shield } = await completions.complete({
      endpoint: 'extract',
      modelType,
      request: plan.request,
      ...(plan.shielded ? { shield: shieldOptionsOf({ ...body, redact_pii: true }) } : {}),
    });
    const json = plan.wantsJson ? parseJsonContent(result.content) : undefined;
    const response: ExtractResponse = {
      content: json ?? result.content,
      model: result.model,
      provider,
      cost,
      usage: {
        prompt_tokens: result.usage.prompt_tokens,
        completion_tokens: result.usage.completion_tokens,
        total_tokens: result.usage.prompt_tokens + result.usage.completion_tokens,
      },
      ...(shield ? { data_shield: shield } : {}),
    };
    res.json(response);
  });
  return router;
}
