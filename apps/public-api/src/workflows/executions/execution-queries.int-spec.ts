import { escapeLiteral } from 'pg';
import { openTestBed, type TestBed } from '../../test-support/test-app';
import { querySqlPrepared } from '@docflow/persistence';
import { APPLY_RESULTS_SQL, START_STATEMENT } from './execution-queries';
import { createActor } from './test-support/actors';

let bed: TestBed;

beforeAll(async () => {
  bed = await openTestBed();
});

afterAll(async () => {
  await bed?.close();
});

describe('plan of the start statement (START_STATEMENT, planned once per connection)', () => {
  const explainStart = (id: number, owner: number, period: string) =>
    `EXPLAIN (COSTS OFF) EXECUTE ${START_STATEMENT.name}(${id}, ${owner}, '{"a":1}', 'wf_plan', now(), 10, ${period}, 5, 10)`;

  it('reaches every table by an index in its generic plan, even one made while the executions table was nearly empty', async () => {
    const owner = await createActor(bed.database, 'start_plan_owner');
    const [activity] = (await bed.database.query(`INSERT INTO activities (name, level, owner_id, workflow_definition) VALUES ('a', 'user', $1, '{}') RETURNING id`, [owner.id])) as { id: number }[];
    const ids = (await bed.database.query(
      `INSERT INTO workflow_executions (activity_id, user_id, status, workflow_definition, inputs, task_states)
       SELECT $1, $2, CASE WHEN g % 3 = 0 THEN 'queued' ELSE 'completed' END, '{}', '{"a":1}', '{}' FROM generate_series(1, 20) g RETURNING id`,
      [activity!.id, owner.id],
    )) as { id: number }[];
    await bed.database.query('ANALYZE workflow_executions');
    const id = ids[2]!.id;

    // The trap: a generic plan made now, with the planner's defaults, reads the small table whole (and keeps doing so as it grows).
    const plain = (await bed.database.transaction(async (m) => {
      await m.query(START_STATEMENT.text.replace(`PREPARE ${START_STATEMENT.name}(`, 'PREPARE start_plan_control('));
      await m.query("SET LOCAL plan_cache_mode = 'force_generic_plan'");
      const rows = (await m.query(explainStart(id, owner.id, "'2026-11-01'").replace(START_STATEMENT.name, 'start_plan_control'))) as { 'QUERY PLAN': string }[];
      await m.query('DEALLOCATE start_plan_control');
      return rows.map((r) => r['QUERY PLAN']).join('\n');
    })) as string;
    expect(plain).toContain('Seq Scan on workflow_executions');

    for (const period of ['NULL', "'2026-11-01'"]) {
      const [result] = await querySqlPrepared(bed.database, START_STATEMENT, explainStart(id, owner.id, period));
      const plan = (result!.rows as { 'QUERY PLAN': string }[]).map((r) => r['QUERY PLAN']).join('\n');
      expect(plan).not.toContain('Seq Scan');
      expect(plan).toContain('Index Scan using workflow_executions_pkey on workflow_executions e');
      expect(plan).toContain('Index Cond: (id = $1)');
      expect(plan).toContain('Index Only Scan using workflow_executions_user_status_idx');
      expect(plan).toContain('Index Scan using workflow_executions_user_created_idx');
    }
  });
});

describe('plans of the batched results statement (APPLY_RESULTS_SQL)', () => {
  it('finds the executions of a batch by primary key, also in the generic plan of the prepared statement, rather than reading the table', async () => {
    const owner = await createActor(bed.database, 'plans_owner');
    const [activity] = (await bed.database.query(`INSERT INTO activities (name, level, owner_id, workflow_definition) VALUES ('a', 'user', $1, '{}') RETURNING id`, [owner.id])) as { id: number }[];
    // Finished executions with a definition each: a table of a few thousand rows, as in the pipeline benchmark.
    await bed.database.query(
      `INSERT INTO workflow_executions (activity_id, user_id, status, workflow_definition, inputs, task_states, resume_count, total_cost, job_id)
       SELECT $1, $2, CASE WHEN g % 50 = 0 THEN 'running' ELSE 'completed' END, jsonb_build_object('nodes', repeat('x', 600)), '{}', '{}', 0, 0, 'wf_' || g
         FROM generate_series(1, 3000) g`,
      [activity!.id, owner.id],
    );
    await bed.database.query('ANALYZE workflow_executions');
    const ids = ((await bed.database.query("SELECT id FROM workflow_executions WHERE status = 'running' ORDER BY id LIMIT 2")) as { id: number }[]).map((r) => r.id);
    const row = (id: number) => ({ execution_id: id, job_id: `wf_${id}`, status: 'completed', rank: 3, task_states: {}, outputs: {}, steps: [] });
    const plans: string[] = [];
    await bed.database.transaction(async (m) => {
      await m.query(`PREPARE batch_plan(jsonb, int[]) AS ${APPLY_RESULTS_SQL}`);
      // Custom plans for the first five executions, then the generic plan PostgreSQL keeps for a named statement.
      for (let i = 0; i < 7; i += 1) {
        const plan = (await m.query(`EXPLAIN EXECUTE batch_plan(${escapeLiteral(JSON.stringify(ids.map(row)))}, ARRAY[${ids.join(',')}])`)) as { 'QUERY PLAN': string }[];
        plans.push(plan.map((p) => p['QUERY PLAN']).join('\n'));
      }
      await m.query('DEALLOCATE batch_plan');
    });
    for (const plan of plans) {
      expect(plan).toContain('Index Scan using workflow_executions_pkey on workflow_executions e');
      expect(plan).not.toContain('Seq Scan on workflow_executions');
    }
  });
});
