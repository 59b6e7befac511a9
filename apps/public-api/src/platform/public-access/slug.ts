import { uniqueViolation } from '@docflow/persistence';

/** A URL slug: lower-case letters and digits in dash-separated words. */
export const SLUG_PATTERN = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;
export const SLUG_MAX = 100;

/** A slug from a display name (`Support Bot!` → `support-bot`); `fallback` when nothing is left. */
export function slugify(name: string, fallback: string): string {
  const slug = name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, SLUG_MAX - 9)
    .replace(/-+$/g, '');
  return slug === '' ? fallback : slug;
}

/** The write's result, or `slug_taken` when it hit the unique slug index instead (agents, chatbots, squads). */
export async function slugTakenOr<T>(write: () => Promise<T>): Promise<T | 'slug_taken'> {
  try {
    return await write();
  } catch (err) {
    if (uniqueViolation(err) !== undefined) return 'slug_taken';
    throw err;
  }
}
