// The identity module: who calls (auth, users), what they did (audit) and the secrets they keep (credentials).
import { AuditRecordEntity } from './audit/audit-record.entity';
import { RevokedTokenEntity } from './auth/revoked-token.entity';
import { StepUpCodeEntity } from './auth/step-up-code.entity';
import { StepUpGrantEntity } from './auth/step-up-grant.entity';
import { CredentialEntity } from './credentials/credential.entity';
import { CreateUsers1764000000000 } from './migrations/1764000000000-CreateUsers';
import { CreateAuthTables1764000000001 } from './migrations/1764000000001-CreateAuthTables';
import { AuthChangeNotifications1764000000060 } from './migrations/1764000000060-AuthChangeNotifications';
import { CreateAuditLog1764000000070 } from './migrations/1764000000070-CreateAuditLog';
import { CreateCredentials1764000000071 } from './migrations/1764000000071-CreateCredentials';
import { UserEntity } from './users/user.entity';

export { createAuthModule } from './auth/auth.module';
export { usersFeature } from './users/users.feature';
export { auditFeature } from './audit/audit.feature';
export { credentialsFeature } from './credentials/credentials.feature';

export const IDENTITY_ENTITIES = [UserEntity, RevokedTokenEntity, StepUpCodeEntity, StepUpGrantEntity, AuditRecordEntity, CredentialEntity];
export const IDENTITY_MIGRATIONS = [CreateUsers1764000000000, CreateAuthTables1764000000001, AuthChangeNotifications1764000000060, CreateAuditLog1764000000070, CreateCredentials1764000000071];
