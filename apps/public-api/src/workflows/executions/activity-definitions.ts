import type { WorkflowDefinition } from '@docflow/workflow';
import type { ActivityLevel } from '../activities/activity-vocabulary';

/** An activity's definition as `create` checked it, for one version of the activity's row. */
export interface CheckedActivityDefinition {
  activityId: number;
  /** The row version it was read at (`xmin`, see VersionedActivity). */
  version: string;
  level: ActivityLevel;
  ownerId: number | null;
  /** Normalised and validated (checkedDefinition). */
  definition: WorkflowDefinition;
  /** `definition` as the JSON an execution stores, serialised once. */
  definitionJson: string;
}

/** Entries live at most this long, so a row version (a 32-bit transaction id) can never come round again while cached. */
const TTL_MS = 60_000;
const MAX_ENTRIES = 1_000;

/**
 * Per process: the checked definition of the activities executions were
 * created from lately, so that a create of an activity's own definition
 * neither reads the activity nor normalises and validates its definition
 * again (issue #16). Nothing here is trusted alone: the create's INSERT
 * inserts only while the activity's row still has the version the entry was
 * read at, in the same statement (`insertIfActivityVersion`), so a change by
 * any process, or by SQL no process hears of, is in force for every create
 * committed after it; a create that finds the version moved drops the entry
 * and reads the activity afresh.
 */
export class ActivityDefinitionCache {
  private readonly entries = new Map<number, { entry: CheckedActivityDefinition; until: number }>();

  constructor(private readonly now: () => number = Date.now) {}

  get(activityId: number): CheckedActivityDefinition | undefined {
    const found = this.entries.get(activityId);
    if (!found) return undefined;
    if (found.until <= this.now()) {
      this.entries.delete(activityId);
      return undefined;
    }
    return found.entry;
  }

  set(entry: CheckedActivityDefinition): void {
    this.entries.delete(entry.activityId);
    // The oldest entry goes first: a Map iterates in insertion order.
    if (this.entries.size >= MAX_ENTRIES) this.entries.delete(this.entries.keys().next().value as number);
    this.entries.set(entry.activityId, { entry, until: this.now() + TTL_MS });
  }

  drop(activityId: number): void {
    this.entries.delete(activityId);
  }

  get size(): number {
    return this.entries.size;
  }
}
