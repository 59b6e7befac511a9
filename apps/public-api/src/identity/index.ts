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
import { AuditAggregatesAndTokenVersion1764000000091 } from './migrations/1764000000091-AuditAggregatesAndTokenVersion';
import { CreateGdprRequests1764000000240 } from './migrations/1764000000240-CreateGdprRequests';
import { CreateUserQuotas1764000000250 } from './migrations/1764000000250-CreateUserQuotas';
import { UserEntity } from './users/user.entity';

export { createIdentityModule, createQuotasService } from './identity.module';
export type { IdentityModule, IdentityModuleDeps, IdentityServices } from './identity.module';
export { currentUser } from './auth/auth-user';
export type { AuthUser } from './auth/auth-user';
export { requireRole, STEP_UP_HEADER } from './auth/guards';
export type { AuthGuards } from './auth/guards';
export { JWT_ALGORITHM, JWT_ISSUER, signAccessToken } from './auth/tokens';
export type { AccessTokenClaims, SignedAccessToken } from './auth/tokens';
export { STEP_UP_GRANT_TTL_SECONDS } from './auth/step-up.service';
export { purgeExpiredAuthRecords } from './auth/housekeeping';
export { AUTH_CHANGED_CHANNEL } from './auth/principal-cache';
export type { PrincipalCache } from './auth/principal-cache';
export { UserEntity } from './users/user.entity';
export { UsersRepository } from './users/users.repository';
export { UsersService } from './users/users.service';
export type { UserRole } from './users/user-role';
export { runUserCreate } from './users/user-create.command';
export { configurePasswordHashing } from './users/password';
export { demoUsersWanted, seedDemoUsers } from './seed/demo-users';
export { AuditLog } from './audit/audit-log';
export { periodOf, quotaExceededError, QuotasService } from './quotas/quotas.service';
export type { QuotaName, UsageView } from './quotas/quotas.service';
export { startGiveBackCte, startQuotaCtes } from './quotas/quotas.repository';
export type { StartQuotaFound, StartQuotaTerms } from './quotas/quotas.repository';
export type { AuditEntry, RepeatedEntry } from './audit/audit-log';
export { AuditRecordEntity } from './audit/audit-record.entity';
export { auditRecordView, type AuditRecordView } from './audit/audit.feature';
export { createCredentialsService } from './credentials/credentials.feature';
export { CredentialSealer } from './credentials/credential-sealer';
export { CredentialsRepository } from './credentials/credentials.repository';
export { rotateCredentialKeys } from './credentials/credential-key-rotation';
export { createGdprModule } from './gdpr/gdpr.module';
export type { GdprModule, GdprModuleDeps } from './gdpr/gdpr.module';
export type { GdprSignedUrls } from './gdpr/data-exports.service';
export type { RemovedCounts, UserDataCopy, UserDataHolder, UserFile } from './gdpr/user-data';

export const IDENTITY_ENTITIES = [UserEntity, RevokedTokenEntity, StepUpCodeEntity, StepUpGrantEntity, AuditRecordEntity, CredentialEntity];
export const IDENTITY_MIGRATIONS = [
  CreateUsers1764000000000,
  CreateAuthTables1764000000001,
  AuthChangeNotifications1764000000060,
  CreateAuditLog1764000000070,
  CreateCredentials1764000000071,
  AuditAggregatesAndTokenVersion1764000000091,
  CreateGdprRequests1764000000240,
  CreateUserQuotas1764000000250,
];
