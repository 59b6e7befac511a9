import { escapeLiteral } from 'pg';
import { sqlLiteral } from './pg-pool';

describe('sqlLiteral', () => {
  it('writes the literal node-postgres escapeLiteral writes', () => {
    const samples = [
      '',
      'plain',
      "it's",
      "''",
      'back\\slash',
      "both ' and \\ and \\'",
      '{"a":"x\\"y","b":[1,2],"c":"l\'apostrophe"}',
      'é ü 漢字 🙂 \u0001 \n\t',
      '\\',
      "'",
      JSON.stringify({ outputs: { text: "O'Brien \\ C:\\path", nested: { list: ["'", '\\\\'] } } }).repeat(200),
    ];
    for (const s of samples) expect([s, sqlLiteral(s)]).toEqual([s, escapeLiteral(s)]);
  });
});
