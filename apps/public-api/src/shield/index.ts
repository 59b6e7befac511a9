// The shield module: Data Shield's public routes (detectors, packs, per-agent and per-chatbot settings, preview) and its internal ones.
import { DataShieldDetectorEntity, DataShieldPackEntity, DataShieldSubjectSettingEntity } from './data-shield-detector.entity';
import { CreateDataShieldDetectors1764000000080 } from './migrations/1764000000080-CreateDataShieldDetectors';

export { createShieldModule } from './shield.module';
export type { ShieldModule, ShieldModuleDeps } from './shield.module';

export const SHIELD_ENTITIES = [DataShieldDetectorEntity, DataShieldPackEntity, DataShieldSubjectSettingEntity];
export const SHIELD_MIGRATIONS = [CreateDataShieldDetectors1764000000080];

// Used by other modules.
export { createDataShieldSettings } from './data-shield.feature';
export { shieldUserData } from './user-data';
