/**
 * Issue #18 acceptance, items 1 and 2, against the six services: alice
 * requests an export of her data and downloads the archive; bob requests the
 * deletion of his account, cancels it, requests it again and sees it
 * complete after the grace (shortened to a few seconds here), his workflow's
 * job gone from the router too.
 */
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import yauzl from 'yauzl';
import { uploadText } from './support/document-jobs';
import { eventually, Stack } from './support/stack';
import { definition, edge, endNode, objectSchema, startNode, WorkflowApi } from './support/workflow-api';

jest.setTimeout(120000);

const GRACE_SECONDS = 4;

let stack: Stack;

beforeAll(async () => {
  stack = await Stack.start({ portOffset: 1100, env: { ACCOUNT_DELETION_GRACE_SECONDS: String(GRACE_SECONDS), GDPR_INTERVAL_SECONDS: '1' } });
});

afterAll(async () => {
  await stack?.stop();
});

interface ExportView {
  id: number;
  status: string;
  size_bytes: number | null;
  download_url: string | null;
}

interface DeletionView {
  id: number;
  status: string;
  scheduled_for: string;
}

/** The names and contents of a zip archive's entries. */
function unzip(buffer: Buffer): Promise<Map<string, Buffer>> {
  return new Promise((resolve, reject) => {
    yauzl.fromBuffer(buffer, { lazyEntries: true }, (err, zip) => {
      if (err || !zip) return reject(err ?? new Error('no zip'));
      const out = new Map<string, Buffer>();
      zip.on('entry', (entry: yauzl.Entry) =>
        zip.openReadStream(entry, (e, stream) => {
          if (e || !stream) return reject(e ?? new Error('no stream'));
          const chunks: Buffer[] = [];
          stream.on('data', (c: Buffer) => chunks.push(c));
          stream.on('end', () => {
            out.set(entry.fileName, Buffer.concat(chunks));
            zip.readEntry();
          });
        }),
      );
      zip.on('end', () => resolve(out));
      zip.on('error', reject);
      zip.readEntry();
    });
  });
}

/** The code of the first step-up mail not in `seen`. */
async function stepUpCode(seen: Set<string>): Promise<string> {
  const dir = stack.env.OUTBOX_DIR!;
  return eventually(
    async () => {
      for (const f of (await readdir(dir).catch(() => [] as string[])).filter((n) => n.endsWith('.eml') && !seen.has(n))) {
        const m = /verification code is (\d{6})/.exec(await readFile(path.join(dir, f), 'utf8'));
        if (m) return m[1];
      }
      return undefined;
    },
    20000,
    'the step-up mail',
  );
}

describe('data export and account deletion (issue #18 acceptance)', () => {
  it('alice requests an export of her data and downloads the archive', async () => {
    const alice = await WorkflowApi.login(stack.api, 'alice@docflow.local', 'Alice#Pass123');
    const text = 'Alice keeps her lease here.';
    const documentId = await uploadText(alice, 'Lease', text, 'lease.txt');

    const requested = await alice.expect<{ data: ExportView }>(202, 'POST', '/users/me/export');
    expect(requested.data.status).toBe('pending');
    const ready = await eventually(
      async () => {
        const view = (await alice.expect<{ data: ExportView }>(200, 'GET', '/users/me/export')).data;
        return view.status === 'ready' ? view : undefined;
      },
      30000,
      'the export to be ready',
    );
    expect(ready.download_url!.startsWith(`${stack.url('public-api')}/api/users/me/export/${ready.id}/download?`)).toBe(true);

    // The link is all it takes: no bearer token.
    const res = await fetch(ready.download_url!, { signal: AbortSignal.timeout(15000) });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/zip');
    const archive = Buffer.from(await res.arrayBuffer());
    expect(archive.length).toBe(ready.size_bytes);
    const entries = await unzip(archive);
    const manifest = JSON.parse(entries.get('manifest.json')!.toString('utf8')) as { user_id: number; files: { path: string }[]; sections: { path: string }[] };
    expect(manifest.user_id).toBe((await alice.me()).id);
    expect(manifest.sections.map((s) => s.path)).toEqual(expect.arrayContaining(['identity/account.json', 'documents/documents.json', 'workflows/executions.json', 'agents/conversations.json']));
    expect(entries.get(`documents/files/${documentId}-lease.txt`)?.toString('utf8')).toBe(text);
    expect(JSON.parse(entries.get('identity/account.json')!.toString('utf8'))).toEqual([expect.objectContaining({ username: 'alice', email: 'alice@docflow.local' })]);
  });

  it('bob requests deletion, cancels it, requests it again and sees it complete after the grace', async () => {
    const bob = await WorkflowApi.login(stack.api, 'bob@docflow.local', 'Bob#Pass123');
    const bobId = (await bob.me()).id;
    await uploadText(bob, 'Notes', 'Bob’s notes.', 'notes.txt');
    const activity = await bob.createActivity({
      name: 'bob flow',
      workflow_definition: definition([startNode(), endNode('done', 'Done')], [edge('start', 'done')], objectSchema({ n: { type: 'number' } })),
      status: 'active',
    });
    const execution = await bob.createExecution(activity, { n: 1 });
    const started = await bob.execute(execution, { n: 1 });
    await bob.waitFor(execution);
    const routerJob = () => fetch(`${stack.url('router')}/api/v1/jobs/${encodeURIComponent(started.job_id)}`, { headers: { 'x-api-key': stack.env.ROUTER_API_KEY! } });
    expect((await routerJob()).status).toBe(200);

    expect((await bob.request('POST', '/users/me/deletion')).status).toBe(403);
    const seen = new Set(await readdir(stack.env.OUTBOX_DIR!).catch(() => [] as string[]));
    await bob.expect(200, 'POST', '/auth/step-up');
    await bob.expect(200, 'POST', '/auth/step-up/verify', { code: await stepUpCode(seen) });
    const stepUp = { 'X-Step-Up-Verified': 'true' };

    const first = await bob.request<{ data: DeletionView }>('POST', '/users/me/deletion', undefined, stepUp);
    expect(first.status).toBe(202);
    expect(first.body.data.status).toBe('pending');
    const cancelled = await bob.expect<{ data: DeletionView }>(200, 'DELETE', '/users/me/deletion');
    expect(cancelled.data).toMatchObject({ id: first.body.data.id, status: 'cancelled' });
    // Past the first request's date, bob is still there.
    await new Promise((r) => setTimeout(r, (GRACE_SECONDS + 2) * 1000));
    expect((await bob.request('GET', '/users/me')).status).toBe(200);
    expect((await bob.request('GET', '/users/me/deletion')).status).toBe(404);

    const second = await bob.request<{ data: DeletionView }>('POST', '/users/me/deletion', undefined, stepUp);
    expect(second.status).toBe(202);
    expect((await bob.expect<{ data: DeletionView }>(200, 'GET', '/users/me/deletion')).data.id).toBe(second.body.data.id);
    await eventually(async () => ((await bob.request('GET', '/users/me')).status === 401 ? true : undefined), 30000, 'the deletion to run');

    const login = await new WorkflowApi(stack.api).request('POST', '/auth/local', { identifier: 'bob@docflow.local', password: 'Bob#Pass123' });
    expect(login.status).toBe(400);
    expect((await routerJob()).status).toBe(404);
    const admin = await WorkflowApi.login(stack.api, 'admin@docflow.local', 'Admin#Pass123');
    const audit = await eventually(
      async () => {
        const rows = (
          await admin.expect<{ data: { action: string; details: Record<string, unknown> }[] }>(200, 'GET', `/admin/audit-log?filters[actor_user][$eq]=${bobId}&pagination[pageSize]=100&sort=id:asc`)
        ).data;
        return rows.some((r) => r.action === 'gdpr.delete.completed') ? rows : undefined;
      },
      15000,
      'gdpr.delete.completed',
    );
    expect(audit.filter((r) => r.action.startsWith('gdpr.delete.')).map((r) => r.action)).toEqual(['gdpr.delete.confirmed', 'gdpr.delete.cancelled', 'gdpr.delete.confirmed', 'gdpr.delete.completed']);
    expect(audit.filter((r) => r.action === 'service.cascade_delete').map((r) => r.details.service)).toEqual(['workflows', 'agents', 'data_shield', 'rag', 'documents', 'identity']);
    expect(audit.find((r) => r.action === 'service.cascade_delete' && r.details.service === 'workflows')!.details.removed).toMatchObject({ executions: 1, activities: 1, routerJobs: 1 });
  });
});
