import { parseDetectorCreate, parseDetectorUpdate, parseSubjectSetting } from './data-shield.dto';

/** A 400 with this message listing exactly these problems. */
const refused = (message: string, errors: string[]) => expect.objectContaining({ status: 400, message, details: { errors } });

describe('detector bodies (parseBody with a class per kind and write)', () => {
  it('reads a new word list: trimmed unique words, defaults for what is left out', () => {
    expect(parseDetectorCreate('word_list', { data: { name: 'Codes', entity_type: 'PROJECT_CODE', words: [' alpha ', 'alpha', 'beta', ''] } })).toEqual({
      name: 'Codes',
      entityType: 'PROJECT_CODE',
      pattern: null,
      words: ['alpha', 'beta'],
      contextWords: null,
      score: null,
      scoreThreshold: null,
      enabled: true,
    });
  });

  it('names every missing field of a new recognizer, in the order of its fields', () => {
    expect(() => parseDetectorCreate('recognizer', { score: 2 })).toThrow(
      refused('Invalid Data Shield recognizer', [
        'name must be 1 to 100 letters, digits, spaces, dots, dashes or underscores',
        'entity_type must be upper-case letters, digits and single underscores, starting with a letter, at most 40 characters',
        'pattern must be a string',
        'score must be a number from 0 to 1',
      ]),
    );
  });

  it('refuses a field of another kind before anything else', () => {
    expect(() => parseDetectorCreate('pattern', { name: '', words: ['x'] })).toThrow(refused('Invalid Data Shield pattern', ['words is not a field of a pattern']));
  });

  it('on update checks and returns only the fields given; null clears a score', () => {
    expect(parseDetectorUpdate('recognizer', { score: null, enabled: false })).toEqual({ score: null, enabled: false });
    expect(() => parseDetectorUpdate('word_list', { words: [] })).toThrow(refused('Invalid Data Shield word list', ['words must hold at least one word or phrase']));
    expect(() => parseDetectorUpdate('pattern', { enabled: null })).toThrow(refused('Invalid Data Shield pattern', ['enabled must be true or false']));
  });
});

describe('a subject setting', () => {
  it('needs enabled; no entity types reads as all', () => {
    expect(parseSubjectSetting({ enabled: true, entity_types: [] })).toEqual({ enabled: true, entityTypes: null });
    expect(() => parseSubjectSetting({ entity_types: ['email'] })).toThrow(
      refused('Invalid Data Shield setting', ['enabled must be true or false', 'entity_types must be an array of entity type names such as EMAIL or PERSON']),
    );
  });
});
