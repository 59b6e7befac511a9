// Container health check: GET http://127.0.0.1:<port>/_health must answer 204.
// The port is the service's own variable (e.g. ROUTER_PORT), else the
// runtime contract's default for $SERVICE. Exit 0 healthy, 1 not.
import http from 'node:http';

const PORTS = {
  'public-api': ['PUBLIC_API_PORT', 1337],
  router: ['ROUTER_PORT', 8010],
  'llm-service': ['LLM_SERVICE_PORT', 8020],
  'data-shield': ['DATA_SHIELD_PORT', 8030],
  'workflow-processor': ['WORKFLOW_PROCESSOR_PORT', 8040],
  'extraction-processor': ['EXTRACTION_PROCESSOR_PORT', 8050],
};

const known = PORTS[process.env.SERVICE ?? ''];
if (!known) {
  console.error(`healthcheck: unknown SERVICE "${process.env.SERVICE ?? ''}"`);
  process.exit(1);
}
const port = Number(process.env[known[0]] || known[1]);
const req = http.get({ host: '127.0.0.1', port, path: '/_health', timeout: 4000 }, (res) => {
  res.resume();
  if (res.statusCode !== 204) console.error(`healthcheck: /_health answered ${res.statusCode}`);
  process.exit(res.statusCode === 204 ? 0 : 1);
});
req.on('timeout', () => req.destroy(new Error('no answer within 4 s')));
req.on('error', (err) => {
  console.error(`healthcheck: ${err.message}`);
  process.exit(1);
});
