import { AppError } from '@docflow/service-kit';
import { parseCreateWebhook, parseUpdateWebhook } from './webhooks.dto';

function errorsOf(fn: () => unknown): unknown {
  try {
    fn();
  } catch (err) {
    if (err instanceof AppError) return { message: err.message, errors: err.details.errors };
    throw err;
  }
  throw new Error('expected an error');
}

describe('webhook bodies', () => {
  it('reads a new webhook, wrapped or flat, with the activity as an id, a numeric string or {id}', () => {
    expect(parseCreateWebhook({ data: { activity: { id: '7' }, name: ' Intake ', allowed_mime_types: ['application/pdf', 'application/pdf'], event_type: '' } })).toEqual({
      activityId: 7,
      name: 'Intake',
      allowedMimeTypes: ['application/pdf'],
      eventType: null,
    });
    expect(parseCreateWebhook({ activity_id: 3, max_file_size_mb: 5 })).toEqual({ activityId: 3, maxFileSizeMb: 5 });
  });

  it('names every problem, the activity first, then the settings in their order', () => {
    expect(errorsOf(() => parseCreateWebhook({ name: '', active: 'yes', max_file_size_mb: 99, allowed_mime_types: ['text/x-nope'] }))).toEqual({
      message: 'Invalid webhook',
      errors: [
        'activity: is required and must be an activity id',
        'name: must be a non-empty string',
        'active: must be true or false',
        'max_file_size_mb: must be an integer from 1 to 50',
        expect.stringMatching(/^allowed_mime_types: "text\/x-nope" is not one of /),
      ],
    });
  });

  it('takes any subset on update, and refuses a body that changes nothing', () => {
    expect(parseUpdateWebhook({ data: { auto_enable_rag: true } })).toEqual({ autoEnableRag: true });
    expect(errorsOf(() => parseUpdateWebhook({ unknown: 1 }))).toEqual({
      message: 'Invalid webhook',
      errors: ['give at least one of name, active, event_type, accept_files, max_file_size_mb, allowed_mime_types, auto_enable_rag, allowed_origins'],
    });
  });
});
