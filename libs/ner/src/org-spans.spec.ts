import type { TokenSpan } from './address-spans';
import { alignOrganisationSpans } from './org-spans';
import { tokenize } from './tokenizer';

type Given = [TokenSpan['type'], string, string];

/** Spans given as [type, first token text, last token text]; answers "TYPE:text" of what alignOrganisationSpans keeps. */
function align(text: string, spans: Given[], lists: Record<string, string[]> = {}): string[] {
  const tokens = tokenize(text);
  const index = (word: string, from = 0) => tokens.findIndex((t, i) => i >= from && t.text === word);
  const decoded = spans.map(([type, first, last]) => {
    const from = index(first);
    return { type, from, to: index(last, from) + 1, score: 0.8 };
  });
  const hits = tokens.map((t) =>
    Object.entries(lists)
      .filter(([, words]) => words.includes(t.text))
      .map(([list]) => ({ list, pos: 'S' as const })),
  );
  return alignOrganisationSpans(tokens, hits, decoded).map((s) => `${s.type}:${text.slice(tokens[s.from]!.start, tokens[s.to - 1]!.end)}`);
}

describe('alignOrganisationSpans', () => {
  it('makes a partners firm one ORGANIZATION when the tagger called one of its names a firm', () => {
    const text = 'Barnett, Melton and Garcia songwriter Samantha Bašić';
    const spans: Given[] = [
      ['PERSON', 'Barnett', 'Barnett'],
      ['PERSON', 'Melton', 'Melton'],
      ['ORGANIZATION', 'Garcia', 'Garcia'],
      ['PERSON', 'Samantha', 'Bašić'],
    ];
    expect(align(text, spans)).toEqual(['ORGANIZATION:Barnett, Melton and Garcia', 'PERSON:Samantha Bašić']);
    expect(
      align('naomi ryan\nhubbard, fox and gillespie\n', [
        ['PERSON', 'hubbard', 'hubbard'],
        ['ORGANIZATION', 'gillespie', 'gillespie'],
      ]),
    ).toEqual(['ORGANIZATION:hubbard, fox and gillespie']);
  });

  it('leaves lists of people and of places alone', () => {
    const people: Given[] = [
      ['PERSON', 'Pruitt', 'Pruitt'],
      ['PERSON', 'Dawson', 'Dawson'],
      ['PERSON', 'Lee', 'Lee'],
    ];
    expect(align('Please forward this to Pruitt, Dawson and Lee.', people)).toEqual(['PERSON:Pruitt', 'PERSON:Dawson', 'PERSON:Lee']);
    const towns: Given[] = [
      ['ORGANIZATION', 'Fagerøy', 'Fagerøy'],
      ['LOCATION', 'Piro', 'Piro'],
      ['LOCATION', 'Laarne', 'Laarne'],
    ];
    expect(align('We drove through Fagerøy, Piro and Laarne.', towns)).toEqual(['ORGANIZATION:Fagerøy', 'LOCATION:Piro', 'LOCATION:Laarne']);
    const longer: Given[] = [
      ['ORGANIZATION', 'Mayert', 'Mayert'],
      ['PERSON', 'Angela', 'Angela'],
      ['PERSON', 'Britt-Marie', 'Grouer'],
    ];
    expect(align('Mayert, Angela and Britt-Marie Grouer met.', longer)).toEqual(['ORGANIZATION:Mayert', 'PERSON:Angela', 'PERSON:Britt-Marie Grouer']);
    expect(align('Ames, Barnett, Melton and Garcia', [['ORGANIZATION', 'Garcia', 'Garcia']])).toEqual(['ORGANIZATION:Garcia']);
  });

  it('calls a name that ends in an organisation word a firm, unless it is an address or a listed place', () => {
    const lists = { orgsuffix: ['Traders', 'Union'], country: ['Soviet', 'Union'] };
    expect(align('Call Northwind Traders today', [['PERSON', 'Northwind', 'Traders']], lists)).toEqual(['ORGANIZATION:Northwind Traders']);
    expect(align('Call Northwind traders today', [['PERSON', 'Northwind', 'traders']], lists)).toEqual(['PERSON:Northwind traders']);
    expect(align('It is at 12 Northwind Traders', [['LOCATION', '12', 'Traders']], lists)).toEqual(['LOCATION:12 Northwind Traders']);
  });

  it("gives a firm's initials in brackets after it the firm's type, and leaves a person's or a place's alone", () => {
    const text = 'The Eastfield Housing Authority (EHA) wrote to Lena Ward (LW) about the United Arab Emirates (UAE).';
    const spans: Given[] = [
      ['ORGANIZATION', 'Eastfield', 'Authority'],
      ['PERSON', 'EHA', 'EHA'],
      ['PERSON', 'Lena', 'Ward'],
      ['LOCATION', 'United', 'Emirates'],
    ];
    expect(align(text, spans)).toEqual(['ORGANIZATION:Eastfield Housing Authority', 'ORGANIZATION:EHA', 'PERSON:Lena Ward', 'LOCATION:United Arab Emirates']);
    expect(align('Ask Quorra Labs (QL).', [['ORGANIZATION', 'Quorra', 'Labs']])).toEqual(['ORGANIZATION:Quorra Labs', 'ORGANIZATION:QL']);
    expect(align('Ask Quorra Labs (XY).', [['ORGANIZATION', 'Quorra', 'Labs']])).toEqual(['ORGANIZATION:Quorra Labs']);
  });
});
