import { type LintablePrompt, PromptLinter } from './prompt-linter';

const linter = new PromptLinter();

function prompt(overrides: Partial<LintablePrompt> = {}): LintablePrompt {
  return {
    roles: [{ role: 'system', prompt: 'You read invoices.' }],
    tasks: ['Find the invoice number and the total.'],
    instructions: ['Copy values exactly as written.'],
    outputFormat: 'json',
    exampleOutput: { invoice_number: 'INV-001', total: 120.5 },
    ...overrides,
  };
}

const rules = (p: LintablePrompt, placeholders?: string[]) => linter.lint(p, placeholders ? { placeholders } : {}).errors.map((e) => `${e.rule}@${e.field}`);

describe('PromptLinter', () => {
  it('passes a complete prompt', () => {
    expect(linter.lint(prompt())).toEqual({ ok: true, errors: [], warnings: [] });
  });

  it('flags undeclared {{placeholders}}, and accepts declared ones (warning about declared ones unused)', () => {
    const p = prompt({ tasks: ['Find the {{field_name}} of the {{ doc_type }}.'] });
    expect(rules(p)).toEqual(['unresolved_placeholder@tasks[0]', 'unresolved_placeholder@tasks[0]']);
    expect(rules(p, ['field_name'])).toEqual(['unresolved_placeholder@tasks[0]']);
    const report = linter.lint(p, { placeholders: ['field_name', 'doc_type', 'spare'] });
    expect(report.ok).toBe(true);
    expect(report.warnings).toEqual([expect.objectContaining({ rule: 'unresolved_placeholder', field: 'placeholders', message: expect.stringContaining('spare') })]);
  });

  it('flags malformed placeholders and markers of other template syntaxes', () => {
    expect(rules(prompt({ instructions: ['Use {{ }} here', 'and {{customer name}}', 'and {{open'] }))).toEqual([
      'malformed_placeholder@instructions[0]',
      'malformed_placeholder@instructions[1]',
      'malformed_placeholder@instructions[2]',
    ]);
    expect(rules(prompt({ tasks: ['Hello ${name}', 'Value [[amount]]', 'Key <AGENT_API_KEY>', 'TODO: finish'] }))).toEqual([
      'unresolved_placeholder@tasks[0]',
      'unresolved_placeholder@tasks[1]',
      'unresolved_placeholder@tasks[2]',
      'unresolved_placeholder@tasks[3]',
    ]);
  });

  it('asks a JSON prompt for its output schema (exampleOutput), not a text one', () => {
    expect(rules(prompt({ exampleOutput: null }))).toEqual(['missing_output_schema@exampleOutput']);
    expect(rules(prompt({ exampleOutput: {} }))).toEqual(['missing_output_schema@exampleOutput']);
    expect(rules(prompt({ exampleOutput: null, outputFormat: 'text' }))).toEqual([]);
  });

  it('finds secrets without repeating them', () => {
    const key = `sk-${'a1B2'.repeat(8)}`;
    const report = linter.lint(
      prompt({
        roles: [{ role: 'system', prompt: `Call the API with ${key}` }],
        instructions: ['Log in with password: hunter2-secret', 'Use postgres://app:s3cret@db.internal/prod', 'AKIAABCDEFGHIJKLMNOP is the key'],
      }),
    );
    // The URL's `s3cret@db.internal` also reads as an e-mail address to Data Shield.
    expect(report.errors.map((e) => `${e.rule}@${e.field}`)).toEqual([
      'secret@roles[0].prompt',
      'secret@instructions[0]',
      'secret@instructions[1]',
      'personal_data@instructions[1]',
      'secret@instructions[2]',
    ]);
    expect(JSON.stringify(report)).not.toContain(key);
    expect(JSON.stringify(report)).not.toContain('hunter2');
  });

  it('finds personal data with Data Shield detectors, in the template and in the example output', () => {
    const report = linter.lint(
      prompt({
        tasks: ['Send the result to jane.doe@example.com'],
        exampleOutput: { customer: { card: '4111 1111 1111 1111' }, total: 3 },
      }),
    );
    expect(report.errors).toEqual([
      expect.objectContaining({ rule: 'personal_data', field: 'tasks[0]', message: expect.stringContaining('EMAIL') }),
      expect.objectContaining({ rule: 'personal_data', field: 'exampleOutput.customer.card', message: expect.stringContaining('CREDIT_CARD') }),
    ]);
    expect(JSON.stringify(report)).not.toContain('jane.doe');
  });
});
