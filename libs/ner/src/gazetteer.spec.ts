import { Gazetteer, normaliseLists } from './gazetteer';
import { tokenize } from './tokenizer';

describe('Gazetteer', () => {
  const gazetteer = new Gazetteer(normaliseLists({ city: ['York', 'New York', 'Saint-Étienne'], first: ['York', 'Anna'] }));
  const hits = (text: string): string[] => gazetteer.match(tokenize(text)).map((h) => h.map((x) => `${x.list}:${x.pos}`).join(',') || '-');

  it('marks the longest entry of each list, in any case', () => {
    expect(hits('from NEW YORK to saint-étienne')).toEqual(['-', 'city:B', 'city:E,first:S', '-', 'city:S']);
  });

  it('lets one token sit in several lists', () => {
    expect(hits('York and Anna')).toEqual(['city:S,first:S', '-', 'first:S']);
  });

  it('drops the hits a training filter refuses', () => {
    const kept = gazetteer.match(tokenize('York'), (list) => list !== 'city');
    expect(kept[0]).toEqual([{ list: 'first', pos: 'S' }]);
  });

  it('normalises entries as the tokenizer sees them, sorted and unique', () => {
    expect(normaliseLists({ x: ["St. John's", 'st. john’s', 'Oslo', 'oslo'] })).toEqual({ x: ['oslo', "st. john 's", 'st. john ’s'] });
  });
});
