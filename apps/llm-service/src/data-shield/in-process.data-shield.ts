import { DetectorError, type ShieldService } from '@docflow/data-shield';
import { currentCorrelationId } from '@docflow/service-kit';
import { type DataShield, DataShieldUnavailableError, type ShieldCall, type ShieldPreview, type TokenisedTexts } from './data-shield.client';

/**
 * DATA_SHIELD_MODE=in_process: the same engine the gateway runs, inside the
 * LLM service (libs/data-shield). Tenant detectors and audit rows still go
 * through the public API. A detector failure fails closed, as over HTTP.
 * The scope stays an object of this process: nothing is sealed.
 */
export class InProcessDataShield implements DataShield {
  constructor(private readonly shield: ShieldService) {}

  async tokenise(texts: string[], call?: ShieldCall): Promise<TokenisedTexts> {
    const result = await this.guard(() =>
      this.shield.tokeniseInScope({ texts, entityTypes: call?.entityTypes, tenant: call?.tenant, actorUserId: call?.actorUserId, context: call?.context, correlationId: currentCorrelationId() }),
    );
    return { scope: result.scope, texts: result.texts, entityCounts: result.entityCounts, layers: result.layers };
  }

  async preview(text: string, call?: ShieldCall): Promise<ShieldPreview> {
    const r = await this.guard(() =>
      this.shield.preview({ text, entityTypes: call?.entityTypes, tenant: call?.tenant, actorUserId: call?.actorUserId, context: call?.context, correlationId: currentCorrelationId() }),
    );
    return { text: r.text, entities: r.entities, entity_counts: r.entityCounts, layers: r.layers, latencies_ms: r.latencies };
  }

  private async guard<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (err) {
      if (err instanceof DetectorError) throw new DataShieldUnavailableError(`Data Shield could not run its detectors (${err.message}); the text was not sent`, 5);
      throw err;
    }
  }
}
