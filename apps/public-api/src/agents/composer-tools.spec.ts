import { composerBlock, isConfirmation } from './composer-tools';

describe('isConfirmation', () => {
  it('takes an explicit yes, and not a question, a refusal or a hedge', () => {
    for (const yes of ['Yes, create it', 'ok go ahead', 'Sounds good, please create it.', 'Confirmed']) expect(isConfirmation(yes)).toBe(true);
    for (const no of ['Create a workflow that sends invoices', 'No, not yet', "Looks fine but don't create it", 'wait, change the name']) expect(isConfirmation(no)).toBe(false);
  });
});

describe('composerBlock', () => {
  it('writes a :::composer_block marker with the type and its data as JSON', () => {
    expect(composerBlock('creation_result', { created: [{ type: 'workflow', id: 3, name: 'Hello' }] })).toBe(
      ':::composer_block creation_result\n{"created":[{"type":"workflow","id":3,"name":"Hello"}]}\n:::',
    );
  });
});
