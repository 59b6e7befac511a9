import { escapeLiteral } from 'pg';
import { openTestBed, type TestBed } from '../../test-support/test-app';
import { APPLY_RESULTS_SQL } from './execution-queries';
import { createActor } from './test-support/actors';

let bed: TestBed;

beforeAll(async () => {
  bed = await openTestBed();
});

afterAll(async () => {
  await bed?.close();
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
