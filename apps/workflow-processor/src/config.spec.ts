import { loadConfig } from '@docflow/service-kit';
import { TEST_SECRETS } from '@docflow/testing';
import { DEFAULT_WORKFLOW_LIMITS } from '@docflow/workflow';
import { mailSendersOf, runLimitsOf, WorkflowProcessorConfig, workflowLimitsOf } from './config';
import { DEFAULT_RUN_LIMITS } from './engine/workflow-run';

const load = (env: Record<string, string> = {}) => loadConfig(WorkflowProcessorConfig, { NODE_ENV: 'test', ...TEST_SECRETS, ...env });

describe('WorkflowProcessorConfig limits (README, Limits)', () => {
  it('defaults to the documented limits', () => {
    const config = load();
    expect(workflowLimitsOf(config)).toEqual(DEFAULT_WORKFLOW_LIMITS);
    expect(runLimitsOf(config)).toEqual(DEFAULT_RUN_LIMITS);
    expect(config.REST_API_MAX_RESPONSE_BYTES).toBe(10 * 1024 * 1024);
  });

  it('takes every limit from the environment', () => {
    const config = load({
      WORKFLOW_MAX_NODES: '50',
      WORKFLOW_MAX_FAN_OUT: '5',
      WORKFLOW_MAX_PARALLEL_NODES: '2',
      WORKFLOW_MAX_OUTPUT_BYTES: String(4 * 1024 * 1024),
      WORKFLOW_MAX_EMAIL_NODES: '1',
      MAIL_MAX_RECIPIENTS: '5',
      WAIT_MIN_POLL_INTERVAL_MS: '250',
      WAIT_MAX_TIMEOUT_SECONDS: '600',
      REST_API_MAX_TIMEOUT_SECONDS: '60',
    });
    expect(workflowLimitsOf(config)).toEqual({
      maxNodes: 50,
      maxFanOut: 5,
      maxEmailNodes: 1,
      maxRecipientsPerEmail: 5,
      minPollIntervalSeconds: 0.25,
      maxWaitTimeoutSeconds: 600,
      maxRestTimeoutSeconds: 60,
    });
    expect(runLimitsOf(config)).toEqual({ maxParallelNodes: 2, maxOutputBytes: 4 * 1024 * 1024 });
  });

  it('refuses limits out of range, naming them', () => {
    expect(() => load({ WORKFLOW_MAX_NODES: '0', WAIT_MIN_POLL_INTERVAL_MS: '1' })).toThrow(/WORKFLOW_MAX_NODES[\s\S]*WAIT_MIN_POLL_INTERVAL_MS/);
  });
});

describe('WorkflowProcessorConfig senders (MAIL_FROM_ALLOWED)', () => {
  it('allows the MAIL_FROM address alone by default, else the listed addresses and domains', () => {
    expect(mailSendersOf(load())).toEqual(['no-reply@docflow.local']);
    expect(mailSendersOf(load({ MAIL_FROM: 'Billing <billing@corp.example>' }))).toEqual(['billing@corp.example']);
    expect(mailSendersOf(load({ MAIL_FROM_ALLOWED: 'billing@corp.example, @notify.corp.example' }))).toEqual(['billing@corp.example', '@notify.corp.example']);
  });

  it('refuses entries that are neither an address nor @domain', () => {
    expect(() => load({ MAIL_FROM_ALLOWED: 'corp.example' })).toThrow(/MAIL_FROM_ALLOWED entries must be addresses or @domain/);
  });
});
