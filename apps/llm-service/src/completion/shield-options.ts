import type { DataShieldOptions } from '@docflow/contracts';
import type { ShieldOptions } from './completion.service';

/** The shielding a request asks for (`data_shield.enabled` or the older `redact_pii`), or undefined. */
export function shieldOptionsOf(body: { data_shield?: DataShieldOptions; redact_pii?: boolean }): ShieldOptions | undefined {
  const ds = body.data_shield;
  if (!ds?.enabled && body.redact_pii !== true) return undefined;
  return {
    ...(ds?.entity_types?.length ? { entityTypes: ds.entity_types } : {}),
    ...(ds?.required ? { required: true } : {}),
    ...(ds?.tenant ? { tenant: ds.tenant } : {}),
    ...(ds?.actor_user_id ? { actorUserId: ds.actor_user_id } : {}),
    ...(ds?.entry_point ? { entryPoint: ds.entry_point } : {}),
  };
}
