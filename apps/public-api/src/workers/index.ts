// The workers role: background work started by PUBLIC_API_ROLES=workers (see main.ts).

// Used by other modules.
export { startHousekeeping } from './housekeeping';
