import { eventTypeMatches, filterMatches, subscriptionMatches, validateSubscriptionRule } from './subscription-match';

const pdf = { event_type: 'file_created', file_name: 'Invoice-42.PDF', file_mime_type: 'application/pdf', folder_id: 'inbox', file_size: 1200 };

describe('eventTypeMatches', () => {
  it('takes the type itself or *, and reads a missing or empty list as the default [*]', () => {
    expect(eventTypeMatches(['file_created'], 'file_created')).toBe(true);
    expect(eventTypeMatches(['file_modified'], 'file_created')).toBe(false);
    expect(eventTypeMatches(['file_modified', '*'], 'file_created')).toBe(true);
    expect(eventTypeMatches(undefined, 'file_created')).toBe(true);
    expect(eventTypeMatches([], 'file_modified')).toBe(true);
  });
});

describe('filterMatches', () => {
  it('matches `name` and `mime_type` against file_name and file_mime_type, with wildcards, ignoring case', () => {
    expect(filterMatches({ name: '*.pdf' }, pdf)).toBe(true);
    expect(filterMatches({ name: 'invoice-*' }, pdf)).toBe(true);
    expect(filterMatches({ name: '*.txt' }, pdf)).toBe(false);
    expect(filterMatches({ mime_type: 'application/*' }, pdf)).toBe(true);
    expect(filterMatches({ mime_type: 'image/*' }, pdf)).toBe(false);
  });

  it('needs every key to match; an array matches when any value does', () => {
    expect(filterMatches({ name: '*.pdf', folder_id: 'inbox' }, pdf)).toBe(true);
    expect(filterMatches({ name: '*.pdf', folder_id: 'other' }, pdf)).toBe(false);
    expect(filterMatches({ name: ['*.docx', '*.pdf'] }, pdf)).toBe(true);
    expect(filterMatches({ name: ['*.docx', '*.txt'] }, pdf)).toBe(false);
  });

  it('compares other keys exactly (no wildcards), scalars by their text', () => {
    expect(filterMatches({ folder_id: 'in*' }, pdf)).toBe(false);
    expect(filterMatches({ size: 1200 }, pdf)).toBe(true);
    expect(filterMatches({ size: '1200' }, pdf)).toBe(true);
    expect(filterMatches({ size: 1201 }, pdf)).toBe(false);
  });

  it('does not match a key the payload lacks, nor a payload value that is an object', () => {
    expect(filterMatches({ owner: 'alice' }, pdf)).toBe(false);
    expect(filterMatches({ meta: 'x' }, { ...pdf, meta: { a: 1 } })).toBe(false);
  });

  it('reads no inherited property of the payload', () => {
    expect(filterMatches({ constructor: '*' }, pdf)).toBe(false);
    expect(filterMatches({ toString: '*' }, pdf)).toBe(false);
  });

  it('matches everything when the filter is empty or missing', () => {
    expect(filterMatches({}, pdf)).toBe(true);
    expect(filterMatches(null, pdf)).toBe(true);
  });
});

describe('subscriptionMatches', () => {
  it('needs both the type and the filter', () => {
    expect(subscriptionMatches({ event_types: ['file_created'], filter: { name: '*.pdf' } }, 'file_created', pdf)).toBe(true);
    expect(subscriptionMatches({ event_types: ['file_modified'], filter: { name: '*.pdf' } }, 'file_created', pdf)).toBe(false);
    expect(subscriptionMatches({ event_types: ['*'], filter: { name: '*.txt' } }, 'file_created', pdf)).toBe(false);
  });
});

describe('validateSubscriptionRule', () => {
  it('accepts the spec examples', () => {
    expect(validateSubscriptionRule({ event_types: ['file_created', 'file_modified'], filter: { name: '*.pdf', mime_type: 'application/pdf' } })).toEqual([]);
    expect(validateSubscriptionRule({ event_types: ['*'] })).toEqual([]);
    expect(validateSubscriptionRule({})).toEqual([]);
  });

  it('names each problem', () => {
    expect(validateSubscriptionRule({ event_types: 'file_created' })).toEqual(['event_types must be an array of strings']);
    expect(validateSubscriptionRule({ event_types: ['file_deleted'] })).toEqual(['event_types: unknown event type "file_deleted"']);
    expect(validateSubscriptionRule({ filter: ['*.pdf'] })).toEqual(['filter must be an object']);
    expect(validateSubscriptionRule({ filter: { name: { $regex: '.*' } } })).toEqual(['filter.name must be a string, number, boolean or an array of them']);
    expect(validateSubscriptionRule({ filter: { name: 'x'.repeat(300) } })).toEqual(['filter.name values must have at most 256 characters']);
    expect(validateSubscriptionRule({ filter: { name: [] } })).toEqual(['filter.name must list 1 to 50 values']);
  });
});
