import { ForbiddenError, NotFoundError, UnprocessableEntityError } from '@docflow/service-kit';
import type { AuditLog } from '../../identity';
import type { LintReport, PromptLinter } from './prompt-linter';
import type { PublishPromptBody } from './prompt-publishing.dto';
import type { PromptsRepository } from './prompts.repository';
import { type PromptCaller, type PromptsService, PROMPT_NOT_FOUND, type PromptView, toPromptView } from './prompts.service';

export interface PublishResult {
  data: PromptView;
  lint: LintReport;
  /** True when a super administrator published over the linter's errors. */
  overridden: boolean;
}

export interface PromptPublishingDeps {
  prompts: PromptsService;
  repo: PromptsRepository;
  linter: PromptLinter;
  audit: AuditLog;
}

function lintError(f: { field: string; rule: string; message: string }): string {
  return `${f.field}: ${f.message} (${f.rule})`;
}

/**
 * Publishing a prompt (issue 18 item 4; spec 2.19 names `prompt.publish`,
 * `prompt.lint_blocked` and `prompt.override_used`): whoever may change the
 * prompt publishes it once its template passes the linter; errors block it
 * (422, audited `prompt.lint_blocked`) unless a super administrator
 * overrides them with a reason (`prompt.override_used`, then `prompt.publish`).
 */
export class PromptPublishingService {
  constructor(private readonly deps: PromptPublishingDeps) {}

  /** The linter's report for a prompt the caller reads; changes nothing. */
  async lint(user: PromptCaller, id: number, body: PublishPromptBody): Promise<LintReport> {
    const prompt = await this.deps.prompts.findReadable(user, id);
    return this.deps.linter.lint(prompt, body.placeholders ? { placeholders: body.placeholders } : {});
  }

  async publish(user: PromptCaller, id: number, body: PublishPromptBody): Promise<PublishResult> {
    const prompt = await this.deps.prompts.findWritable(user, id);
    if (body.override_reason !== undefined && user.role !== 'super_admin') throw new ForbiddenError('Only a super administrator may override the prompt linter');
    const lint = this.deps.linter.lint(prompt, body.placeholders ? { placeholders: body.placeholders } : {});
    const rules = [...new Set(lint.errors.map((e) => e.rule))];
    const overridden = !lint.ok && body.override_reason !== undefined;
    if (!lint.ok && !overridden) {
      this.deps.audit.record({ action: 'prompt.lint_blocked', actorUserId: user.id, details: { prompt_id: id, version: prompt.version, rules, errors: lint.errors.length } });
      throw new UnprocessableEntityError('The prompt did not pass the linter', { errors: lint.errors.map(lintError), findings: lint.errors, warnings: lint.warnings }, 'prompt_lint_failed');
    }
    if (overridden) {
      this.deps.audit.record({
        action: 'prompt.override_used',
        actorUserId: user.id,
        details: { prompt_id: id, version: prompt.version, rules, errors: lint.errors.length, reason: body.override_reason },
      });
    }
    const published = await this.deps.repo.update(id, {
      publishedAt: new Date(),
      publishedBy: user.id,
      publishedVersion: prompt.version,
      publishOverrideReason: overridden ? (body.override_reason ?? null) : null,
    });
    if (!published) throw new NotFoundError(PROMPT_NOT_FOUND);
    this.deps.audit.record({ action: 'prompt.publish', actorUserId: user.id, details: { prompt_id: id, version: prompt.version, level: prompt.level, overridden, warnings: lint.warnings.length } });
    return { data: toPromptView(published), lint, overridden };
  }
}
