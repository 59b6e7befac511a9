import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { parse, parseAllDocuments } from 'yaml';
import { QUEUES } from '@docflow/contracts';

// The Helm chart (deploy/helm/docflow) and the monitoring files (deploy/monitoring), checked
// without a cluster or the helm binary: the chart's templates use only `{{ .Values.x }}`-style
// substitution and whole-file `if` blocks, which render() below reproduces.

const ROOT = path.resolve(__dirname, '..');
const CHART = path.join(__dirname, 'helm', 'docflow');

type Doc = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

function lookup(scope: unknown, dotted: string): unknown {
  return dotted.split('.').reduce<unknown>((at, key) => (at && typeof at === 'object' ? (at as Record<string, unknown>)[key] : undefined), scope);
}

interface RenderContext {
  Values: Record<string, unknown>;
  Chart: Record<string, unknown>;
  Release: Record<string, unknown>;
}

function render(template: string, ctx: RenderContext): string {
  const blocks = template.replace(/\{\{- if (not )?\.Values\.([\w.]+) \}\}\n?([\s\S]*?)\{\{- end \}\}\n?/g, (_m, not: string | undefined, key: string, body: string) =>
    Boolean(lookup(ctx.Values, key)) !== Boolean(not) ? body : '',
  );
  const text = blocks.replace(/\{\{ \.(Values|Chart|Release)\.([\w.]+) \}\}/g, (m, root: keyof RenderContext, key: string) => {
    const value = lookup(ctx[root], key);
    if (value === undefined || value === null || typeof value === 'object') throw new Error(`${m} has no scalar value`);
    return String(value);
  });
  if (text.includes('{{')) throw new Error(`template syntax the test renderer does not know: ${/\{\{[^}]*\}\}/.exec(text)?.[0]}`);
  return text;
}

const values = parse(readFileSync(path.join(CHART, 'values.yaml'), 'utf8')) as Doc;
const chart = parse(readFileSync(path.join(CHART, 'Chart.yaml'), 'utf8')) as Doc;
const templateDir = path.join(CHART, 'templates');
const templates = readdirSync(templateDir).filter((f) => f.endsWith('.yaml'));

function context(overrides: (v: Doc) => void = () => undefined): RenderContext {
  const v = structuredClone(values);
  overrides(v);
  return { Values: v, Chart: { Name: chart.name, AppVersion: chart.appVersion }, Release: { Name: 'docflow', Namespace: 'docflow' } };
}

function renderChart(ctx: RenderContext): Doc[] {
  return templates
    .flatMap((file) =>
      parseAllDocuments(render(readFileSync(path.join(templateDir, file), 'utf8'), ctx)).map((d) => {
        if (d.errors.length) throw new Error(`${file}: ${d.errors[0]?.message}`);
        return d.toJS() as Doc | null;
      }),
    )
    .filter((d): d is Doc => d !== null);
}

const withKeda = renderChart(context());
const withoutKeda = renderChart(context((v) => (v.autoscaling.keda.enabled = false)));
const ofKind = (docs: Doc[], kind: string) => docs.filter((d) => d.kind === kind);
const deployments = ofKind(withKeda, 'Deployment');
const matches = (selector: Record<string, string> | undefined, labels: Record<string, string>) =>
  !!selector && Object.keys(selector).length > 0 && Object.entries(selector).every(([k, v]) => labels[k] === v);
const podLabels = (d: Doc) => d.spec.template.metadata.labels as Record<string, string>;
const policyFor = (name: string) => ofKind(withKeda, 'NetworkPolicy').find((p) => p.metadata.name === name) as Doc;

describe('Helm chart deploy/helm/docflow', () => {
  it('renders every template to manifests with apiVersion, kind and metadata.name, with or without KEDA', () => {
    expect(templates.length).toBeGreaterThan(5);
    for (const doc of [...withKeda, ...withoutKeda]) {
      expect(typeof doc.apiVersion).toBe('string');
      expect(typeof doc.kind).toBe('string');
      expect(doc.metadata?.name).toMatch(/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/);
    }
  });

  it('runs the six services, each image pinned to a version tag', () => {
    expect(deployments.map((d) => d.metadata.name).sort()).toEqual(['data-shield', 'extraction-processor', 'llm-service', 'public-api', 'router', 'workflow-processor']);
    expect(values.image.tag).toMatch(/^\d+\.\d+\.\d+/);
    for (const d of deployments) {
      for (const c of d.spec.template.spec.containers as Doc[]) {
        const tag = /:([^/:]+)$/.exec(c.image)?.[1];
        expect(tag).toBe(values.image.tag);
        expect(c.image).not.toMatch(/:latest$/);
      }
    }
  });

  it('gives every Deployment resources, probes, a PodDisruptionBudget and a NetworkPolicy of its own', () => {
    const pdbs = ofKind(withKeda, 'PodDisruptionBudget');
    const policies = ofKind(withKeda, 'NetworkPolicy');
    for (const d of deployments) {
      for (const c of d.spec.template.spec.containers as Doc[]) {
        expect(c.resources.requests).toEqual(expect.objectContaining({ cpu: expect.anything(), memory: expect.anything() }));
        expect(c.resources.limits).toEqual(expect.objectContaining({ cpu: expect.anything(), memory: expect.anything() }));
        expect(c.readinessProbe.httpGet.path).toBe('/_health');
        expect(c.livenessProbe).toBeDefined();
        expect(c.startupProbe).toBeDefined();
      }
      expect(pdbs.filter((p) => matches(p.spec.selector.matchLabels, podLabels(d)))).toHaveLength(1);
      expect(policies.filter((p) => matches(p.spec.podSelector.matchLabels, podLabels(d)))).toHaveLength(1);
    }
    const denyAll = policies.filter((p) => Object.keys(p.spec.podSelector).length === 0);
    expect(denyAll).toEqual([expect.objectContaining({ spec: { podSelector: {}, policyTypes: ['Ingress'] } })]);
  });

  it('lets only the public API be reached from outside the namespace, through the Ingress, with its internal routes blocked', () => {
    const outsidePeers = (name: string) => (policyFor(name).spec.ingress as Doc[]).flatMap((rule) => rule.from as Doc[]).filter((peer) => peer.namespaceSelector || peer.ipBlock);
    const namespaceOf = (peer: Doc) => peer.namespaceSelector?.matchLabels?.['kubernetes.io/metadata.name'];
    for (const d of deployments) {
      const allowed = d.metadata.name === 'public-api' ? [values.monitoring.namespace, values.ingress.controllerNamespace] : [values.monitoring.namespace];
      expect(outsidePeers(d.metadata.name).map(namespaceOf).sort()).toEqual([...allowed].sort());
    }
    for (const s of ofKind(withKeda, 'Service')) expect(s.spec.type).toBe('ClusterIP');

    const ingress = ofKind(withKeda, 'Ingress')[0] as Doc;
    const paths = (ingress.spec.rules as Doc[]).flatMap((r) => r.http.paths as Doc[]);
    const backendOf = (p: string) => paths.find((x) => x.path === p)?.backend.service.name;
    expect(new Set(paths.map((p) => p.backend.service.name))).toEqual(new Set(['public-api', 'docflow-internal-blocked']));
    expect(backendOf('/')).toBe('public-api');
    expect(backendOf('/internal')).toBe('docflow-internal-blocked');
    expect(backendOf('/api/internal')).toBe('docflow-internal-blocked');
    const blocked = ofKind(withKeda, 'Service').find((s) => s.metadata.name === 'docflow-internal-blocked') as Doc;
    for (const d of deployments) expect(matches(blocked.spec.selector, podLabels(d))).toBe(false);
  });

  it('scales both processors on their RabbitMQ queue depth with KEDA, plus CPU, and on CPU alone without KEDA', () => {
    const queues: Record<string, string> = { 'workflow-processor': QUEUES.workflow, 'extraction-processor': QUEUES.extraction };
    const scaled = ofKind(withKeda, 'ScaledObject');
    expect(ofKind(withKeda, 'HorizontalPodAutoscaler')).toEqual([]);
    expect(scaled.map((s) => s.spec.scaleTargetRef.name).sort()).toEqual(Object.keys(queues).sort());
    for (const s of scaled) {
      const triggers = s.spec.triggers as Doc[];
      expect(triggers.find((t) => t.type === 'rabbitmq')?.metadata).toEqual(expect.objectContaining({ mode: 'QueueLength', queueName: queues[s.spec.scaleTargetRef.name] }));
      expect(triggers.find((t) => t.type === 'cpu')).toBeDefined();
      expect(s.spec.maxReplicaCount).toBeGreaterThan(s.spec.minReplicaCount);
    }
    const auth = ofKind(withKeda, 'TriggerAuthentication')[0] as Doc;
    expect(auth.spec.secretTargetRef[0]).toEqual(expect.objectContaining({ parameter: 'host', name: values.existingSecret, key: 'AMQP_URL' }));

    const hpas = ofKind(withoutKeda, 'HorizontalPodAutoscaler');
    expect(ofKind(withoutKeda, 'ScaledObject')).toEqual([]);
    expect(hpas.map((h) => h.spec.scaleTargetRef.name).sort()).toEqual(Object.keys(queues).sort());
    for (const h of hpas) expect(h.spec.metrics[0].resource.name).toBe('cpu');
  });

  it('runs several public-API replicas only on the s3 storage driver, which the ConfigMap passes on', () => {
    const config = (ofKind(withKeda, 'ConfigMap')[0] as Doc).data as Record<string, string>;
    const publicApi = deployments.find((d) => d.metadata.name === 'public-api') as Doc;
    expect(publicApi.spec.replicas).toBeGreaterThan(1);
    expect(config.STORAGE_DRIVER).toBe('s3');
    expect(config.S3_BUCKET).toBe(values.storage.bucket);
    expect(publicApi.spec.template.spec.volumes).toBeUndefined();
  });

  it('gives the three pruning services one retention, and turns tracing on only with a collector', () => {
    const config = (ofKind(withKeda, 'ConfigMap')[0] as Doc).data as Record<string, string>;
    expect(config.EXECUTION_RETENTION_DAYS).toBe(String(values.retention.executionDays));
    expect(config).not.toHaveProperty('OTEL_EXPORTER_OTLP_ENDPOINT');
    const traced = renderChart(context((v) => (v.tracing.otlpEndpoint = 'http://otel-collector.monitoring:4318')));
    expect(((ofKind(traced, 'ConfigMap')[0] as Doc).data as Record<string, string>).OTEL_EXPORTER_OTLP_ENDPOINT).toBe('http://otel-collector.monitoring:4318');
  });

  it('documents the first-admin step with the CLI the public-API image carries', () => {
    const notes = readFileSync(path.join(templateDir, 'NOTES.txt'), 'utf8');
    expect(notes).toContain('node dist/apps/public-api/cli/user-create.js');
    expect(notes).toContain('--super-admin');
    expect(readdirSync(path.join(ROOT, 'apps/public-api/src/cli'))).toContain('user-create.ts');
  });
});

/** Metric names the services register: `metrics.counter|gauge|histogram('name' | NAME, ...)`, NAME a string constant of the file. */
function exportedMetrics(): Set<string> {
  const names = new Set<string>();
  const walk = (dir: string): string[] =>
    readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
      e.isDirectory() ? (e.name === 'node_modules' ? [] : walk(path.join(dir, e.name))) : /(?<!\.spec|\.int-spec)\.ts$/.test(e.name) ? [path.join(dir, e.name)] : [],
    );
  for (const file of [...walk(path.join(ROOT, 'apps')), ...walk(path.join(ROOT, 'libs'))]) {
    const source = readFileSync(file, 'utf8');
    for (const m of source.matchAll(/\b(counter|gauge|histogram)(?:<[^>]*>)?\(\s*(?:'([a-z_:][a-z0-9_:]*)'|([A-Za-z_]\w*)\s*,)/g)) {
      const name = m[2] ?? new RegExp(`\\b${m[3]}\\s*=\\s*'([a-z_:][a-z0-9_:]*)'`).exec(source)?.[1];
      if (!name) continue;
      names.add(name);
      if (m[1] === 'histogram') for (const suffix of ['_bucket', '_sum', '_count']) names.add(name + suffix);
    }
    // The histogram every service registers in libs/service-kit (new client.Histogram({ name: ... })).
    for (const m of source.matchAll(/new client\.Histogram\(\{\s*name: '([a-z_:][a-z0-9_:]*)'/g)) for (const s of ['', '_bucket', '_sum', '_count']) names.add(m[1] + s);
  }
  return names;
}

/** Series names in a PromQL expression: identifiers left once strings, label matchers, ranges, grouping clauses and function calls are removed. */
function metricNames(expr: string): string[] {
  const stripped = expr
    .replace(/"(?:[^"\\]|\\.)*"/g, '')
    .replace(/\{[^}]*\}/g, ' ')
    .replace(/\[[^\]]*\]/g, ' ')
    .replace(/\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, ' ');
  const keywords = new Set(['and', 'or', 'unless', 'bool', 'offset']);
  return [...stripped.matchAll(/(?<![\w$.])([a-zA-Z_:][a-zA-Z0-9_:]*)(?![a-zA-Z0-9_:]|\s*\()/g)].map((m) => m[1] as string).filter((n) => !keywords.has(n));
}

// Series from outside Docflow: Prometheus's own `up`, and the unacknowledged count of RabbitMQ's rabbitmq_prometheus
// plugin (/metrics/per-object), which a passive declare cannot read; ready and dead-letter depths are the router's.
const EXTERNAL = new Set(['up', 'rabbitmq_queue_messages_unacked']);

describe('dashboards and alerts (deploy/monitoring)', () => {
  const exported = exportedMetrics();
  const dashboard = JSON.parse(readFileSync(path.join(__dirname, 'monitoring', 'grafana-dashboard.json'), 'utf8')) as Doc;
  const dashboardExprs = (dashboard.panels as Doc[]).flatMap((p) => ((p.targets ?? []) as Doc[]).map((t) => t.expr as string));
  const rules = (parse(readFileSync(path.join(__dirname, 'monitoring', 'alerts.yaml'), 'utf8')) as Doc).groups.flatMap((g: Doc) => g.rules as Doc[]) as Doc[];

  it('finds the metrics the services register (the scan itself works)', () => {
    for (const name of [
      'docflow_queue_messages',
      'docflow_queue_dlq_messages',
      'http_request_duration_seconds_bucket',
      'workflow_executions_total',
      'llm_cost_usd_total',
      'docflow_audit_rows_dropped_total',
      'public_api_execution_results_total',
    ]) {
      expect(exported).toContain(name);
    }
    expect(metricNames('sum by (route) (rate(http_request_duration_seconds_count{status_code=~"5.."}[5m])) / up')).toEqual(['http_request_duration_seconds_count', 'up']);
  });

  it('names only metrics that exist, in every dashboard panel and alert rule', () => {
    const unknown = [...dashboardExprs, ...rules.map((r) => r.expr as string)].flatMap(metricNames).filter((n) => !exported.has(n) && !EXTERNAL.has(n));
    expect(unknown).toEqual([]);
  });

  it('covers route traffic, executions, queues and dead letters, processor concurrency, LLM cost and Data Shield latency', () => {
    const all = [...dashboardExprs, ...rules.map((r) => r.expr as string)].join('\n');
    for (const needle of [
      'http_request_duration_seconds_bucket',
      'status_code=~"5.."',
      'workflow_executions_total',
      'docflow_queue_messages',
      'docflow_queue_dlq_messages',
      'docflow_queue_consumers',
      'workflow_executions_in_flight',
      'extraction_jobs_in_flight',
      'llm_cost_usd_total',
      'service="data-shield"',
    ]) {
      expect(all).toContain(needle);
    }
    for (const rule of rules) {
      expect(rule.alert).toMatch(/^Docflow[A-Za-z]+$/);
      expect(rule.annotations.summary).toBeTruthy();
      expect(['warning', 'critical']).toContain(rule.labels.severity);
    }
  });
});
