/** Activity statuses: both vocabularies of spec 3.4 (`draft`, `active`, `paused`, `archived` and `draft`, `published`). */
export const ACTIVITY_STATUSES = ['draft', 'active', 'paused', 'archived', 'published'] as const;
export type ActivityStatus = (typeof ACTIVITY_STATUSES)[number];

/** Visibility levels (spec 1, 2.5): lists show system items plus the caller's own. */
export const ACTIVITY_LEVELS = ['system', 'user', 'internal'] as const;
export type ActivityLevel = (typeof ACTIVITY_LEVELS)[number];

export const DEFAULT_ACTIVITY_STATUS: ActivityStatus = 'draft';
export const DEFAULT_WORKFLOW_TYPE = 'sequential';
