export const USER_ROLES = ['super_admin', 'user'] as const;

/** `super_admin` may use the admin endpoints (audit log, system-level prompts); `user` is everyone else. */
export type UserRole = (typeof USER_ROLES)[number];

export function isUserRole(value: unknown): value is UserRole {
  return typeof value === 'string' && (USER_ROLES as readonly string[]).includes(value);
}
