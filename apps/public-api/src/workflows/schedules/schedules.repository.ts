import type { QueryDeepPartialEntity } from 'typeorm/query-builder/QueryPartialEntity';
import type { PublicApiDatabase } from '../../platform';
import { ScheduleEntity } from './schedule.entity';
import { errorMessage } from '@docflow/service-kit';

export type NewScheduleRow = Pick<ScheduleEntity, 'ownerId' | 'activityId' | 'name' | 'cronExpression' | 'timezone' | 'isActive' | 'skipIfRunning' | 'inputs' | 'nextRunAt'>;
export type ScheduleRowChanges = Partial<Omit<NewScheduleRow, 'ownerId'>>;

export class SchedulesRepository {
  constructor(private readonly database: PublicApiDatabase) {}

  private get repo() {
    return this.database.getRepository(ScheduleEntity);
  }

  listOwned(ownerId: number): Promise<ScheduleEntity[]> {
    return this.repo.find({ where: { ownerId }, order: { createdAt: 'DESC', id: 'DESC' } });
  }

  findOwned(id: number, ownerId: number): Promise<ScheduleEntity | null> {
    return this.repo.findOneBy({ id, ownerId });
  }

  insert(row: NewScheduleRow): Promise<ScheduleEntity> {
    return this.repo.save(this.repo.create({ ...row, lastStatus: 'never_run', runCount: 0, failureCount: 0 }));
  }

  async update(id: number, ownerId: number, changes: ScheduleRowChanges): Promise<ScheduleEntity | null> {
    const result = await this.repo.update({ id, ownerId }, changes as QueryDeepPartialEntity<ScheduleEntity>);
    return result.affected ? this.findOwned(id, ownerId) : null;
  }

  async delete(id: number, ownerId: number): Promise<boolean> {
    return ((await this.repo.delete({ id, ownerId })).affected ?? 0) > 0;
  }

  /**
   * Takes the active schedules due at `now` (rows another replica holds are
   * skipped), moves each one's next_run_at on with `next`, and returns them:
   * each due tick is taken by exactly one replica. A schedule whose next run
   * cannot be computed is paused with the reason instead (and not returned),
   * so that one bad row never holds up the others.
   */
  claimDue(now: Date, limit: number, next: (s: ScheduleEntity) => Date): Promise<ScheduleEntity[]> {
    return this.database.transaction(async (m) => {
      const repo = m.getRepository(ScheduleEntity);
      const due = await repo
        .createQueryBuilder('s')
        .where('s.is_active AND s.next_run_at <= :now', { now })
        .orderBy('s.next_run_at', 'ASC')
        .limit(limit)
        .setLock('pessimistic_write')
        .setOnLocked('skip_locked')
        .getMany();
      const claimed: ScheduleEntity[] = [];
      for (const s of due) {
        let nextRunAt: Date;
        try {
          nextRunAt = next(s);
        } catch (err) {
          const reason = `paused: the next run cannot be computed (${errorMessage(err)})`;
          await repo.update({ id: s.id }, { isActive: false, nextRunAt: null, lastStatus: 'failed', lastError: reason.slice(0, 2000) });
          continue;
        }
        await repo.update({ id: s.id }, { nextRunAt, lastRunAt: now });
        claimed.push(s);
      }
      return claimed;
    });
  }

  /** Whether an execution is still queued, running or waiting for input. */
  async executionActive(executionId: number): Promise<boolean> {
    const rows = (await this.database.query(`SELECT 1 FROM workflow_executions WHERE id = $1 AND status IN ('queued', 'running', 'awaiting_user_input')`, [executionId])) as unknown[];
    return rows.length > 0;
  }

  async recordStart(id: number, executionId: number): Promise<void> {
    await this.database.query(`UPDATE workflow_schedules SET last_status = 'running', last_execution_id = $2, last_error = NULL, run_count = run_count + 1, updated_at = now() WHERE id = $1`, [
      id,
      executionId,
    ]);
  }

  async recordFailure(id: number, error: string): Promise<void> {
    await this.database.query(`UPDATE workflow_schedules SET last_status = 'failed', last_error = $2, run_count = run_count + 1, failure_count = failure_count + 1, updated_at = now() WHERE id = $1`, [
      id,
      error.slice(0, 2000),
    ]);
  }

  /** last_status follows the last run once it ends: success, or failed (failure_count counted). */
  async settleFinishedRuns(): Promise<void> {
    await this.database.query(`
      UPDATE workflow_schedules s
         SET last_status = CASE WHEN e.status = 'completed' THEN 'success' ELSE 'failed' END,
             failure_count = s.failure_count + CASE WHEN e.status = 'completed' THEN 0 ELSE 1 END,
             last_error = CASE WHEN e.status = 'completed' THEN NULL ELSE e.error END,
             updated_at = now()
        FROM workflow_executions e
       WHERE e.id = s.last_execution_id AND s.last_status IN ('running', 'queued') AND e.status IN ('completed', 'failed', 'cancelled')`);
  }
}
