import type { Request } from 'express';
import { requireServiceAuth } from '@docflow/internal-auth';
import { createLlmClient } from '@docflow/llm-client';
import { listQueryString, parseListQuery } from '@docflow/list-query';
import { PROMPT_TYPES, type PromptType } from '@docflow/rtio';
import { BadRequestError, NotFoundError, parseBody } from '@docflow/service-kit';
import { idParam, requestFields } from '../../platform';
import { currentUser } from '../../identity';
import type { ApiFeature, PlatformServices } from '../../platform';
import { GenerateRtioBody } from './generate-rtio.dto';
import { CreatePromptBody, parsePromptBody, UpdatePromptBody } from './prompts.dto';
import { describePromptRoutes } from './prompts.openapi';
import { promptListSpec, PromptsRepository } from './prompts.repository';
import { PROMPT_NOT_FOUND, PromptsService, type PromptView } from './prompts.service';
import { RtioGenerationService } from './rtio-generation.service';
import type { AuditLog, AuthGuards, QuotasService } from '../../identity';
import { PromptLinter } from './prompt-linter';
import { PublishPromptBody } from './prompt-publishing.dto';
import { PromptPublishingService } from './prompt-publishing.service';

export interface PromptServices {
  prompts: PromptsService;
  rtio: RtioGenerationService;
  publishing: PromptPublishingService;
}

export function createPromptServices(ctx: Pick<PlatformServices, 'config' | 'database' | 'logger'> & { audit: AuditLog }): PromptServices {
  const repo = new PromptsRepository(ctx.database);
  const logger = ctx.logger.child({ component: 'prompts' });
  const llm = createLlmClient({ baseUrl: ctx.config.LLM_SERVICE_URL, serviceKey: ctx.config.SERVICE_KEY, timeoutMs: ctx.config.RTIO_TIMEOUT_SECONDS * 1000, logger });
  const prompts = new PromptsService(repo);
  return {
    prompts,
    publishing: new PromptPublishingService({ prompts, repo, linter: new PromptLinter(), audit: ctx.audit }),
    rtio: new RtioGenerationService({ prompts: repo, database: ctx.database, llm, timeoutMs: ctx.config.RTIO_TIMEOUT_SECONDS * 1000, logger }),
  };
}

function promptId(value: unknown): number {
  const id = idParam(value);
  if (id === undefined) throw new NotFoundError(PROMPT_NOT_FOUND);
  return id;
}

/**
 * A written prompt in both shapes clients read (spec 4.4 says only "the saved
 * prompt"): its fields at the top level, and the same under `data` (2.1).
 */
function written(view: PromptView): PromptView & { data: PromptView } {
  return { ...view, data: view };
}

function singleQuery(req: Request, name: string): string | undefined {
  const value = (req.query as Record<string, unknown>)[name];
  if (value === undefined) return undefined;
  if (typeof value !== 'string') throw BadRequestError.withErrors('Invalid query', [`${name}: must be given once, as a string`]);
  return value;
}

/** The body of POST /prompts/generate-rtio (spec 4.4): both fields named when missing, then the GenerateRtioBody class. */
function parseGenerateRtio(fields: Record<string, unknown>): GenerateRtioBody {
  const missing = ['document_id', 'classification_result'].filter((k) => fields[k] === undefined || fields[k] === null);
  if (missing.length)
    throw BadRequestError.withErrors(
      'document_id and classification_result are required',
      missing.map((k) => `${k} is required`),
    );
  return parseBody(GenerateRtioBody, fields, { message: 'Invalid RTIO generation request' });
}

/** /prompts (spec 4.4) and the internal read of a user's visible prompts (for the extraction processor). */
export const promptsFeature: ApiFeature<Pick<PlatformServices, 'config' | 'database' | 'logger' | 'openapi'> & { auth: AuthGuards; audit: AuditLog; quotas: Pick<QuotasService, 'assertLlmBudget'> }> =
  {
    name: 'prompts',
    register(api, ctx) {
      const { prompts, rtio, publishing } = createPromptServices(ctx);
      const auth = ctx.auth.requireAuth;
      const service = requireServiceAuth({ serviceKey: ctx.config.SERVICE_KEY, jwtSecret: ctx.config.INTERNAL_SERVICE_JWT_SECRET });

      api.get('/prompts', auth, async (req, res) => {
        res.json(await prompts.list(currentUser(req), parseListQuery(listQueryString(req.originalUrl), promptListSpec)));
      });

      api.post('/prompts', auth, async (req, res) => {
        res.status(201).json(written(await prompts.create(currentUser(req), parsePromptBody(CreatePromptBody, requestFields(req.body)))));
      });

      api.post('/prompts/generate-rtio', auth, async (req, res) => {
        // Generation is a model call of the caller's: refused (429) once their monthly LLM cost quota is used up.
        await ctx.quotas.assertLlmBudget(currentUser(req).id);
        res.json(await rtio.generate(currentUser(req), parseGenerateRtio(requestFields(req.body))));
      });

      api.get('/prompts/:id', auth, async (req, res) => {
        res.json({ data: await prompts.get(currentUser(req), promptId(req.params['id'])) });
      });

      api.put('/prompts/:id', auth, async (req, res) => {
        const id = promptId(req.params['id']);
        res.json(written(await prompts.update(currentUser(req), id, parsePromptBody(UpdatePromptBody, requestFields(req.body)))));
      });

      // Issue 18 item 4: the linter's report, and publishing behind it.
      api.post('/prompts/:id/lint', auth, async (req, res) => {
        const id = promptId(req.params['id']);
        const body = parseBody(PublishPromptBody, requestFields(req.body), { emptyAsObject: true });
        res.json({ data: await publishing.lint(currentUser(req), id, body) });
      });

      api.post('/prompts/:id/publish', auth, async (req, res) => {
        const id = promptId(req.params['id']);
        const body = parseBody(PublishPromptBody, requestFields(req.body), { emptyAsObject: true });
        res.json(await publishing.publish(currentUser(req), id, body));
      });

      api.delete('/prompts/:id', auth, async (req, res) => {
        res.json({ data: await prompts.delete(currentUser(req), promptId(req.params['id'])) });
      });

      api.get('/internal/prompts', service, async (req, res) => {
        const rawUser = singleQuery(req, 'user_id');
        if (rawUser === undefined || !/^[1-9]\d{0,9}$/.test(rawUser) || Number(rawUser) > 2147483647) {
          throw BadRequestError.withErrors('Invalid query', ['user_id: a positive integer is required']);
        }
        const rawType = singleQuery(req, 'type');
        if (rawType !== undefined && rawType !== '' && !(PROMPT_TYPES as readonly string[]).includes(rawType)) {
          throw BadRequestError.withErrors('Invalid query', [`type: must be one of ${PROMPT_TYPES.join(', ')}`]);
        }
        const type = rawType ? (rawType as PromptType) : undefined;
        res.json({ data: await prompts.visibleTo(Number(rawUser), type) });
      });

      describePromptRoutes(ctx.openapi);
    },
  };
