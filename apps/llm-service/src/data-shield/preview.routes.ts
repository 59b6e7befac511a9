import { Router } from 'express';
import { ArrayMaxSize, IsArray, IsInt, IsOptional, IsString, Matches, MaxLength, Min } from 'class-validator';
import { ServiceUnavailableError, parseBody } from '@docflow/service-kit';
import type { DataShield } from './data-shield.client';

export class PreviewBody {
  @IsString()
  @MaxLength(1_000_000)
  text!: string;

  @IsOptional()
  @IsArray()
  @ArrayMaxSize(100)
  @Matches(/^[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)*$/, { each: true, message: 'entity_types must be upper-case entity type names' })
  entity_types?: string[];

  @IsOptional()
  @IsString()
  @Matches(/^[A-Za-z0-9_.:-]{1,100}$/)
  tenant?: string;

  @IsOptional()
  @IsInt()
  @Min(1)
  actor_user_id?: number;
}

/**
 * POST /api/v1/data-shield/preview: the preview entry point of spec 4.17
 * rule 6, through whichever Data Shield this service uses (the gateway, or
 * the engine in process), so the public API never talks to Data Shield
 * itself. 503 when shielding is disabled here.
 */
export function previewRoutes(dataShield: DataShield | undefined): Router {
  const router = Router();
  router.post('/data-shield/preview', async (req, res) => {
    const body = parseBody(PreviewBody, req.body, { message: 'Invalid preview request' });
    if (!dataShield) throw new ServiceUnavailableError('Data Shield is disabled in this deployment (DATA_SHIELD_DISABLED)', {}, 'data_shield_disabled');
    res.json(await dataShield.preview(body.text, { entityTypes: body.entity_types, tenant: body.tenant, actorUserId: body.actor_user_id, context: { endpoint: 'preview' } }));
  });
  return router;
}
