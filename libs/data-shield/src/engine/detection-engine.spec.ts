import type { DetectedEntity } from '../entities';
import { CapitalisedWordHeuristic, type NamedEntityRecognizer } from '../l3/named-entities';
import { DetectionEngine, DetectorError } from './detection-engine';
import { resolveOverlaps } from './overlaps';

const e = (type: string, start: number, end: number, priority: number, score = 0.5): DetectedEntity => ({
  type,
  start,
  end,
  priority,
  score,
  layer: priority === 100 ? 'L1' : priority === 75 ? 'L2' : 'L3',
  source: 'test',
});

function types(engine: DetectionEngine, text: string, entityTypes?: string[]) {
  return engine.detect(text, { entityTypes }).entities.map((x) => `${x.type}:${text.slice(x.start, x.end)}`);
}

describe('overlap resolution (spec 4.17 rule 5)', () => {
  it('prefers the higher priority over a longer span', () => {
    expect(resolveOverlaps([e('PERSON', 0, 20, 50, 0.99), e('EMAIL', 5, 15, 100, 0.5)], ' '.repeat(30))).toEqual([e('EMAIL', 5, 15, 100, 0.5)]);
  });
  it('then the longer span, then the higher score, and never keeps duplicates', () => {
    const out = resolveOverlaps([e('A', 0, 5, 75, 0.9), e('B', 0, 8, 75, 0.1), e('C', 10, 14, 50, 0.4), e('D', 10, 14, 50, 0.8), e('D', 10, 14, 50, 0.8)], ' '.repeat(20));
    expect(out.map((x) => x.type)).toEqual(['B', 'D']);
  });
  it("keeps a tagger span's words outside a higher-priority value, without the separators at the cut", () => {
    const text = 'Ship to 99449 18 McPherson Road, +1 415-555-2671 Victoria';
    const address = { ...e('LOCATION', 8, text.length, 50, 0.8), divisible: true };
    const phone = e('PHONE', 33, 48, 100, 0.95);
    expect(resolveOverlaps([address, phone], text).map((x) => `${x.type}:${text.slice(x.start, x.end)}`)).toEqual(['LOCATION:99449 18 McPherson Road', 'PHONE:+1 415-555-2671', 'LOCATION:Victoria']);
    // A span that is not divisible still goes whole, and a piece with no letter is not kept.
    expect(resolveOverlaps([e('LOCATION', 8, text.length, 50, 0.8), phone], text)).toEqual([phone]);
    const street = e('X', 17, 31, 100);
    expect(resolveOverlaps([{ ...e('LOCATION', 8, 31, 50, 0.8), divisible: true }, street], text)).toEqual([street]);
  });

  it('keeps disjoint spans, sorted by start', () => {
    expect(resolveOverlaps([e('B', 6, 8, 50), e('A', 0, 5, 50)], ' '.repeat(10)).map((x) => x.type)).toEqual(['A', 'B']);
  });
});

describe('DetectionEngine: L1', () => {
  const engine = new DetectionEngine();

  it('finds e-mail, card (spaces and dashes), IBAN, SSN, IPv4, Aadhaar and PAN', () => {
    const text =
      'Mail jane.doe+x@example.co.uk, card 4111 1111 1111 1111 or 5500-0055-5555-5559, IBAN GB82 WEST 1234 5698 7654 32, SSN 078-05-1120, host 10.0.0.254, Aadhaar 2341 2341 2346, PAN ABCPE1234F.';
    expect(types(engine, text)).toEqual([
      'EMAIL:jane.doe+x@example.co.uk',
      'CREDIT_CARD:4111 1111 1111 1111',
      'CREDIT_CARD:5500-0055-5555-5559',
      'IBAN:GB82 WEST 1234 5698 7654 32',
      'SSN:078-05-1120',
      'IP:10.0.0.254',
      'AADHAAR:2341 2341 2346',
      'PAN:ABCPE1234F',
    ]);
  });

  it('refuses values that fail their validators', () => {
    const text = 'Card 4111 1111 1111 1112, IBAN GB82 WEST 1234 5698 7654 31, SSN 666-12-3456 and 900-12-3456, IP 300.1.2.3, Aadhaar 2341 2341 2347.';
    expect(types(engine, text)).toEqual([]);
  });

  it('finds phone numbers only with formatting characters, in several regions', () => {
    expect(types(engine, 'Call +1 (415) 555-2671, 020 7946 0958, +49 30 901820, +49 30 26418969 or (212) 555-0199.', ['PHONE'])).toEqual([
      'PHONE:+1 (415) 555-2671',
      'PHONE:020 7946 0958',
      'PHONE:+49 30 901820',
      'PHONE:+49 30 26418969',
      'PHONE:(212) 555-0199',
    ]);
    expect(types(engine, 'Call 4155552671 or 02079460958.', ['PHONE'])).toEqual([]);
  });

  it('does not take a date with its time, a postcode and house number, or a weakly valid id for a phone', () => {
    expect(types(engine, 'Date: 1978-04-13 12:20:39', ['PHONE'])).toEqual([]);
    expect(types(engine, 'Send it to 99449 18 McPherson Road, or to 62573 103 Cassidy Street.', ['PHONE'])).toEqual([]);
    expect(types(engine, 'ZIP: 75534-030', ['PHONE'])).toEqual([]);
  });

  it('keeps a weakly valid number after a phone word, and a + or parentheses number anywhere', () => {
    expect(types(engine, 'Phone: 72 128 827', ['PHONE'])).toEqual(['PHONE:72 128 827']);
    expect(types(engine, 'Reference: +1 617-734-9731, then (212) 555-0199 Main Street.', ['PHONE'])).toEqual(['PHONE:+1 617-734-9731', 'PHONE:(212) 555-0199']);
  });

  it('reads a trunk prefix in parentheses and numbers in unallocated blocks when written with their country code', () => {
    expect(types(engine, 'Desk: +41 (0)44 668 18 00', ['PHONE'])).toEqual(['PHONE:+41 (0)44 668 18 00']);
    expect(types(engine, 'Desk: +1-903-140-4508x769 or +447700 921 916', ['PHONE'])).toEqual(['PHONE:+1-903-140-4508x769', 'PHONE:+447700 921 916']);
    expect(types(engine, 'Code +12 345', ['PHONE'])).toEqual([]);
  });

  it('needs context for an unformatted nine-digit SSN', () => {
    expect(types(engine, 'Reference 078051120 attached.', ['SSN'])).toEqual([]);
    expect(types(engine, 'Her SSN is 078051120.', ['SSN'])).toEqual(['SSN:078051120']);
  });

  it('returns only the types a request names', () => {
    expect(types(engine, 'Mail a@b.io, card 4111111111111111', ['EMAIL'])).toEqual(['EMAIL:a@b.io']);
  });

  it('scans a long run of letters without @ in one pass', () => {
    expect(types(engine, `${'a'.repeat(200_000)} x@y.org`, ['EMAIL'])).toEqual(['EMAIL:x@y.org']);
  });
});

describe('DetectionEngine: L3 patterns and context', () => {
  const engine = new DetectionEngine();

  it('finds URLs with and without a scheme, trimming trailing punctuation', () => {
    expect(types(engine, 'See https://example.com/a?b=1. Or www.docflow.io, or acme-corp.com.', ['URL'])).toEqual(['URL:https://example.com/a?b=1', 'URL:www.docflow.io', 'URL:acme-corp.com']);
  });

  it('raises weak digit patterns with their context words only', () => {
    expect(types(engine, 'Passport number 912345678 was renewed.')).toContain('US_PASSPORT:912345678');
    expect(types(engine, 'Order 912345678 was shipped.')).toEqual([]);
    expect(types(engine, 'Driver license D1234567 expires soon.')).toContain('US_DRIVER_LICENSE:D1234567');
    expect(types(engine, 'Wire to bank account 000123456789 today.')).toContain('US_BANK_NUMBER:000123456789');
  });

  it('validates ITINs, DEA numbers and Bitcoin addresses', () => {
    expect(types(engine, 'ITIN 912-70-1234 on file.')).toContain('US_ITIN:912-70-1234');
    expect(types(engine, 'DEA AB1234563 for the prescriber.')).toContain('MEDICAL_LICENSE:AB1234563');
    expect(types(engine, 'DEA AB1234564 for the prescriber.')).not.toContain('MEDICAL_LICENSE:AB1234564');
    expect(types(engine, 'Send to 1BvBMSEYstWetqTFn5Au4m4GFg7xJaNVN2 now.')).toContain('CRYPTO:1BvBMSEYstWetqTFn5Au4m4GFg7xJaNVN2');
  });

  it('finds DATE_TIME only when named', () => {
    expect(types(engine, 'Meet on March 3, 2024 at 10:30 am.')).toEqual([]);
    expect(types(engine, 'Meet on March 3, 2024 at 10:30 am.', ['DATE_TIME'])).toEqual(['DATE_TIME:March 3, 2024', 'DATE_TIME:10:30 am']);
  });

  it('finds a year after a word that introduces one, not a number that merely looks like one', () => {
    expect(types(engine, 'It is a 2017 film, set in 1985.', ['DATE_TIME'])).toEqual(['DATE_TIME:2017', 'DATE_TIME:1985']);
    expect(types(engine, 'Room 2017 at 1985 Main Road, and the 2019 123 code.', ['DATE_TIME'])).toEqual([]);
  });
});

describe('DetectionEngine: named entities and tenants', () => {
  it('takes PERSON, LOCATION, ORGANIZATION and NRP from the tagger it is given', () => {
    const tagger: NamedEntityRecognizer = { tag: (t) => [{ type: 'LOCATION', start: t.indexOf('Paris'), end: t.indexOf('Paris') + 5, score: 0.9 }] };
    expect(types(new DetectionEngine({ ner: tagger }), 'Flights to Paris.')).toEqual(['LOCATION:Paris']);
  });

  it('ships a capitalised-word heuristic as a stand-in tagger', () => {
    expect(types(new DetectionEngine({ ner: new CapitalisedWordHeuristic() }), 'Please ask Dr. Watson and Jane Smith at Acme Widgets Inc about it.', ['PERSON', 'ORGANIZATION'])).toEqual([
      'PERSON:Watson',
      'PERSON:Jane Smith',
      'ORGANIZATION:Acme Widgets Inc',
    ]);
  });

  it('fails closed with DetectorError when a detector throws', () => {
    const broken: NamedEntityRecognizer = {
      tag: () => {
        throw new Error('model not loaded');
      },
    };
    expect(() => new DetectionEngine({ ner: broken }).detect('Jane Smith')).toThrow(DetectorError);
  });

  it('runs tenant patterns (L1), word lists (L2) and recognizers (L3), skipping malformed regexes', () => {
    const engine = new DetectionEngine();
    const tenant = engine.compileTenant({
      tenant: '7',
      patterns: [
        { name: 'policy', entity_type: 'POLICY_NUMBER', pattern: 'POL-\\d{6}' },
        { name: 'broken', entity_type: 'BROKEN', pattern: '(unclosed' },
        { name: 'backref', entity_type: 'BROKEN', pattern: '(a)\\1' },
      ],
      word_lists: [{ name: 'projects', entity_type: 'PROJECT', words: ['Project Falcon', 'Bluebird'] }],
      recognizers: [{ name: 'member', entity_type: 'MEMBER_ID', pattern: '\\b[A-Z]{2}\\d{6}\\b', context_words: ['member'], score: 0.3, score_threshold: 0.6 }],
    });
    expect(tenant.skipped).toEqual(['broken', 'backref']);
    const text = 'POL-123456 covers project falcon; member AB123456. The archive box on the third shelf is labelled ZZ654321.';
    expect(engine.detect(text, { tenant }).entities.map((x) => `${x.type}/${x.layer}:${text.slice(x.start, x.end)}`)).toEqual([
      'POLICY_NUMBER/L1:POL-123456',
      'PROJECT/L2:project falcon',
      'MEMBER_ID/L3:AB123456',
    ]);
  });

  it('runs a catastrophic tenant regex on a long input in linear time, without crashing', () => {
    const engine = new DetectionEngine();
    const tenant = engine.compileTenant({ tenant: '7', patterns: [{ name: 'evil', entity_type: 'EVIL', pattern: '(a+)+$' }], word_lists: [], recognizers: [] });
    const text = `${'a'.repeat(50_000)}!`;
    expect(engine.detect(text, { tenant }).entities).toEqual([]);
  });
});
