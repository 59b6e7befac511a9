import { decodeFloat4Array, dot, fuse, idf, packFloat32, planFullText, tsqueryLiteral, unpackFloat32 } from './ranking';

describe('tsqueryLiteral', () => {
  it('quotes a lexeme so that nothing in it is read as an operator', () => {
    expect(tsqueryLiteral('leav')).toBe("'leav'");
    expect(tsqueryLiteral("o'neil")).toBe("'o''neil'");
    expect(tsqueryLiteral('a\\b')).toBe("'a\\\\b'");
    expect(tsqueryLiteral('x|y&!z')).toBe("'x|y&!z'");
  });
});

describe('planFullText', () => {
  it('lets the rarest words drive the scan up to the budget and weighs every word by IDF', () => {
    const plan = planFullText(
      [
        { lexeme: 'polici', df: 9000 },
        { lexeme: 'orion', df: 12 },
        { lexeme: 'leav', df: 400 },
        { lexeme: 'day', df: 700 },
      ],
      10000,
      1000,
    );
    expect(plan?.scans).toEqual(["'orion' | 'leav'", "'orion' & 'leav' & 'day' & 'polici'", "'orion' | 'leav' | 'day' | 'polici'"]);
    expect(plan?.anyTerm).toBe("'orion' | 'leav' | 'day' | 'polici'");
    const weights = plan!.terms.map((t) => t.weight);
    expect(weights).toEqual([...weights].sort((a, b) => b - a));
    expect(plan!.terms[0]).toEqual({ query: "'orion'", weight: idf(12, 10000) });
    expect(idf(12, 10000)).toBeGreaterThan(6);
    expect(idf(9000, 10000)).toBeLessThan(0.2);
  });

  it('starts with chunks holding every word when all words are common', () => {
    const plan = planFullText(
      [
        { lexeme: 'employe', df: 5000 },
        { lexeme: 'polici', df: 9000 },
      ],
      10000,
      1000,
    );
    expect(plan?.scans).toEqual(["'employe' & 'polici'", "'employe' | 'polici'"]);
  });

  it('leaves out words no visible chunk holds, and gives nothing when none is left', () => {
    expect(
      planFullText(
        [
          { lexeme: 'zeppelin', df: 0 },
          { lexeme: 'door', df: 3 },
        ],
        100,
        1000,
      )?.scans,
    ).toEqual(["'door'"]);
    expect(planFullText([{ lexeme: 'zeppelin', df: 0 }], 100, 1000)).toBeNull();
    expect(planFullText([], 100, 1000)).toBeNull();
  });
});

describe('vectors', () => {
  it('packs float32 little-endian and reads it back', () => {
    const v = [0.5, -0.25, 1, 0];
    const packed = packFloat32(v);
    expect(packed.toString('hex')).toBe('0000003f000080be0000803f00000000');
    expect([...unpackFloat32(packed)]).toEqual(v);
  });

  it("decodes PostgreSQL's binary real[] (array_send)", () => {
    const header = Buffer.alloc(20);
    header.writeInt32BE(1, 0); // one dimension
    header.writeInt32BE(0, 4); // no NULLs
    header.writeUInt32BE(700, 8); // float4
    header.writeInt32BE(2, 12); // two elements
    header.writeInt32BE(1, 16); // lower bound
    const body = Buffer.alloc(16);
    body.writeInt32BE(4, 0);
    body.writeFloatBE(0.75, 4);
    body.writeInt32BE(4, 8);
    body.writeFloatBE(-2, 12);
    expect([...decodeFloat4Array(Buffer.concat([header, body]))!]).toEqual([0.75, -2]);
    header.writeInt32BE(1, 4);
    expect(decodeFloat4Array(Buffer.concat([header, body]))).toBeNull();
  });

  it('multiplies vectors of one size only', () => {
    expect(dot([1, 2, 3], [4, 5, 6])).toBe(32);
    expect(dot([1, 2], [1, 2, 3])).toBeNull();
  });
});

describe('fuse', () => {
  it('adds 1/(k + rank) from each ranking and ranks only positive similarities', () => {
    const sims = new Map([
      [7, 0.9],
      [3, 0.5],
      [9, -0.2],
    ]);
    const out = fuse([3, 5], sims, 60, 10);
    expect(out.map((r) => r.id)).toEqual([3, 7, 5]);
    expect(out[0]).toEqual({ id: 3, ftsRank: 1, vectorRank: 2, similarity: 0.5, score: 1 / 61 + 1 / 62 });
    expect(out[1]).toEqual({ id: 7, ftsRank: null, vectorRank: 1, similarity: 0.9, score: 1 / 61 });
    expect(out[2]).toEqual({ id: 5, ftsRank: 2, vectorRank: null, similarity: null, score: 1 / 62 });
    expect(fuse([3, 5], sims, 60, 1).map((r) => r.id)).toEqual([3]);
  });
});
