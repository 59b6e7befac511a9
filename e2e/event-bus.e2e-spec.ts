import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { Client } from 'pg';
import { eventually, Stack } from './support/stack';
import { chain, definition, endNode, objectSchema, startNode, taskNode, WorkflowApi, type ExecutionStatusView } from './support/workflow-api';

/**
 * The event bus through the whole stack, as the README walks through it: a
 * PDF copied into `<CLOUD_DRIVE_LOCAL_ROOT>/<alice's id>/inbox/` starts
 * alice's workflow, whose `cloud_drive_fetch_task` reads the file from her
 * drive (the workflow processor) and stores it through the public API's
 * internal import; the run completes. A `.txt` file starts nothing and shows
 * as `ignored` in the event log.
 */

jest.setTimeout(120000);

let stack: Stack;
let alice: WorkflowApi;
let bob: WorkflowApi;
let aliceId: number;

/** `%PDF-1.4` with one line of text: enough for the public API's content sniffing. */
function tinyPdf(text: string): Buffer {
  return Buffer.from(`%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\n% ${text}\ntrailer << /Root 1 0 R >>\n%%EOF\n`, 'latin1');
}

const fetchDefinition = definition(
  [startNode(), taskNode('fetch', 'cloud_drive_fetch_task', { file_id: '{{file_id}}' }, 'Fetch the file'), endNode()],
  chain('start', 'fetch', 'end'),
  objectSchema({ file_id: { type: 'string' }, file_name: { type: 'string' }, file_document_id: { type: 'integer' } }),
);

interface LogEntry {
  event_id: string;
  status: string;
  payload: { file_name: string };
  workflows_triggered: { subscription_id: number; execution_id: number }[];
}

beforeAll(async () => {
  stack = await Stack.start({ portOffset: 900, env: { CLOUD_DRIVE_SETTLE_SECONDS: '1', SCHEDULER_INTERVAL_SECONDS: '1', MAX_RUNNING_EXECUTIONS_PER_USER: '1000' } });
  [alice, bob] = await Promise.all([WorkflowApi.login(stack.api, 'alice@docflow.local', 'Alice#Pass123'), WorkflowApi.login(stack.api, 'bob@docflow.local', 'Bob#Pass123')]);
  aliceId = (await alice.me()).id;
});

afterAll(async () => {
  await stack?.stop();
});

it('a PDF dropped into the watched folder runs the subscribed workflow to completion; a .txt file is ignored', async () => {
  expect(await alice.expect(200, 'GET', '/cloud/oauth/status')).toMatchObject({ connected: true });
  const activity = await alice.createActivity({ name: 'Drive intake', status: 'active', workflow_definition: fetchDefinition });
  const source = (await alice.expect<{ data: { id: number; is_active: boolean } }>(201, 'POST', '/event-bus/sources', { source_type: 'cloud_drive', folder_id: 'inbox', folder_name: 'Inbox' })).data;
  expect(source.is_active).toBe(true);
  await alice.expect(201, 'POST', '/event-subscriptions', { data: { name: 'PDFs', event_source: source.id, activity, event_types: ['file_created'], filter: { name: '*.pdf' } } });
  // Bob sees none of it.
  expect((await bob.request('GET', `/event-sources/${source.id}`)).status).toBe(404);

  const inbox = path.join(stack.workDir, 'var', 'drive', String(aliceId), 'inbox');
  await mkdir(inbox, { recursive: true });
  await writeFile(path.join(inbox, 'invoice.pdf'), tinyPdf('Invoice 42'));
  await writeFile(path.join(inbox, 'notes.txt'), 'nothing to run');

  const logs = await eventually(
    async () => {
      const body = await alice.expect<{ data: LogEntry[] }>(200, 'GET', `/event-bus/logs?source_id=${source.id}`);
      return body.data.length === 2 && body.data.every((l) => l.status !== 'received' && l.status !== 'processing') ? body.data : undefined;
    },
    60000,
    'two finished events',
  );
  const pdf = logs.find((l) => l.payload.file_name === 'invoice.pdf')!;
  expect(logs.find((l) => l.payload.file_name === 'notes.txt')).toMatchObject({ status: 'ignored', workflows_triggered: [] });
  expect(pdf.status).toBe('processed');
  const executionId = pdf.workflows_triggered[0]!.execution_id;
  const done: ExecutionStatusView = await alice.waitFor(executionId, { timeoutMs: 60000 });
  expect(done.status).toBe('completed');
  const execution = await alice.expect<{ data: { inputs: Record<string, unknown> } }>(200, 'GET', `/workflow-executions/${executionId}`);
  const inputs = execution.data.inputs;
  expect(inputs).toMatchObject({ trigger_type: 'event', event_type: 'file_created', file_name: 'invoice.pdf', file_id: 'inbox/invoice.pdf', folder_id: 'inbox', file_document_id: expect.any(Number) });
  const fetched = done.outputs?.['fetch'];
  expect(fetched).toMatchObject({ file_id: 'inbox/invoice.pdf', file_name: 'invoice.pdf', mime_type: 'application/pdf', document_id: expect.any(Number) });
  const document = await alice.expect<{ data: { owner: { id: number } } }>(200, 'GET', `/documents/${String(inputs['file_document_id'])}`);
  expect(document.data.owner.id).toBe(aliceId);
});

it('killing the public API in the middle of a burst loses no file and starts no file twice', async () => {
  const quick = definition([startNode(), endNode()], chain('start', 'end'), objectSchema({ file_name: { type: 'string' } }));
  const activity = await alice.createActivity({ name: 'Burst intake', status: 'active', workflow_definition: quick });
  const source = (await alice.expect<{ data: { id: number } }>(201, 'POST', '/event-bus/sources', { source_type: 'cloud_drive', folder_id: 'burst' })).data;
  await alice.expect(201, 'POST', '/event-subscriptions', { data: { event_source: source.id, activity } });
  const folder = path.join(stack.workDir, 'var', 'drive', String(aliceId), 'burst');
  await mkdir(folder, { recursive: true });
  const files = 40;
  await Promise.all(Array.from({ length: files }, (_, i) => writeFile(path.join(folder, `doc-${i}.pdf`), tinyPdf(`doc ${i}`))));
  // Some events are recorded, most are not yet: kill the public API (no shutdown at all), then start it again.
  await eventually(
    async () => ((await alice.expect<{ data: LogEntry[] }>(200, 'GET', `/event-bus/logs?source_id=${source.id}&limit=100`)).data.length >= 3 ? true : undefined),
    60000,
    'the first events',
  );
  expect(await stack.stopService('public-api', 'SIGKILL')).toBeNull();
  stack.spawn('public-api');
  await stack.waitForHealth('public-api', 204, 60000);

  const logs = await eventually(
    async () => {
      const body = await alice.expect<{ data: LogEntry[] }>(200, 'GET', `/event-bus/logs?source_id=${source.id}&limit=100`);
      return body.data.length >= files && body.data.every((l) => l.status === 'processed') ? body.data : undefined;
    },
    110000,
    `${files} processed events`,
  );
  expect(logs).toHaveLength(files);
  expect(new Set(logs.map((l) => l.payload.file_name)).size).toBe(files);
  const pg = new Client({ connectionString: stack.db.url });
  await pg.connect();
  try {
    const runs = await pg.query<{ n: number; files: number }>(`SELECT count(*)::int AS n, count(DISTINCT inputs->>'file_name')::int AS files FROM workflow_executions WHERE activity_id = $1`, [
      activity,
    ]);
    expect(runs.rows[0]).toEqual({ n: files, files });
  } finally {
    await pg.end();
  }
}, 240000);
