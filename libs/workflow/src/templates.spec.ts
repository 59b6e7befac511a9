import { buildScope, hasTemplate, lookupPath, parsePath, resolveTemplates, resolveTemplateString } from './templates';

const scope = buildScope({
  inputs: { name: 'Ada', amount: 42, recipients: ['a@x.test', 'b@x.test'], flag: false, nothing: null, nested: { deep: { value: 'v' } } },
  context: { user_id: 7, execution_id: 99 },
  outputs: {
    fetch: { document_id: 12, items: [{ id: 'i-1', tags: ['x'] }, { id: 'i-2' }], meta: { 'key.with.dots': 'dotted' } },
    'node-2': { status: 'ok' },
  },
});

describe('parsePath', () => {
  it('splits dotted, indexed and quoted paths', () => {
    expect(parsePath('a')).toEqual(['a']);
    expect(parsePath(' n1.items.0.id ')).toEqual(['n1', 'items', '0', 'id']);
    expect(parsePath('n1.items[0].id')).toEqual(['n1', 'items', '0', 'id']);
    expect(parsePath('m[1][2]')).toEqual(['m', '1', '2']);
    expect(parsePath(`n1["key.with.dots"].x`)).toEqual(['n1', 'key.with.dots', 'x']);
    expect(parsePath(`n1['k'].x`)).toEqual(['n1', 'k', 'x']);
    expect(parsePath('node-2.status')).toEqual(['node-2', 'status']);
  });

  it('rejects malformed paths', () => {
    for (const bad of ['', 'a..b', '.a', 'a.', 'a b', 'a[x]', 'a[0', 'a.[0]', "a['x]"]) {
      expect(parsePath(bad)).toBeUndefined();
    }
  });
});

describe('resolveTemplateString', () => {
  it('returns the raw value for a string that is exactly one template', () => {
    expect(resolveTemplateString('{{recipients}}', scope)).toEqual(['a@x.test', 'b@x.test']);
    expect(resolveTemplateString('{{amount}}', scope)).toBe(42);
    expect(resolveTemplateString('{{flag}}', scope)).toBe(false);
    expect(resolveTemplateString('{{nothing}}', scope)).toBeNull();
    expect(resolveTemplateString('{{ fetch.items[1] }}', scope)).toEqual({ id: 'i-2' });
    expect(resolveTemplateString('{{fetch.items.0.tags.0}}', scope)).toBe('x');
    expect(resolveTemplateString('{{fetch.meta["key.with.dots"]}}', scope)).toBe('dotted');
    expect(resolveTemplateString('{{node-2.status}}', scope)).toBe('ok');
  });

  it('copies objects so callers cannot alter the scope through them', () => {
    const list = resolveTemplateString('{{recipients}}', scope) as string[];
    list.push('c@x.test');
    expect(scope['recipients']).toEqual(['a@x.test', 'b@x.test']);
  });

  it('stringifies templates inside longer text', () => {
    expect(resolveTemplateString('Hello {{name}}, you owe {{ amount }}.', scope)).toBe('Hello Ada, you owe 42.');
    expect(resolveTemplateString('to={{recipients}}', scope)).toBe('to=["a@x.test","b@x.test"]');
    expect(resolveTemplateString('item {{fetch.items[0]}}', scope)).toBe('item {"id":"i-1","tags":["x"]}');
    expect(resolveTemplateString('[{{nothing}}] {{flag}}', scope)).toBe('[] false');
    expect(resolveTemplateString('/docs/{{fetch.document_id}}/by/{{user_id}}', scope)).toBe('/docs/12/by/7');
  });

  it('leaves unresolvable templates literally', () => {
    expect(resolveTemplateString('{{missing}}', scope)).toBe('{{missing}}');
    expect(resolveTemplateString('Hi {{missing.x}} and {{name}}', scope)).toBe('Hi {{missing.x}} and Ada');
    expect(resolveTemplateString('{{fetch.items[5].id}}', scope)).toBe('{{fetch.items[5].id}}');
    expect(resolveTemplateString('{{name.length}}', scope)).toBe('{{name.length}}');
    expect(resolveTemplateString('{{recipients.length}}', scope)).toBe('{{recipients.length}}');
    expect(resolveTemplateString('{{a b}}', scope)).toBe('{{a b}}');
    expect(resolveTemplateString('{{}} {{ }}', scope)).toBe('{{}} {{ }}');
    expect(resolveTemplateString('{{ {{name}} }}', scope)).toBe('{{ Ada }}');
    expect(resolveTemplateString('no templates', scope)).toBe('no templates');
  });

  it('never evaluates code', () => {
    expect(resolveTemplateString('{{amount + 1}}', scope)).toBe('{{amount + 1}}');
    expect(resolveTemplateString('{{process.exit()}}', scope)).toBe('{{process.exit()}}');
    expect(resolveTemplateString("{{constructor.constructor('return process')()}}", scope)).toBe("{{constructor.constructor('return process')()}}");
  });

  it('refuses prototype keys anywhere in a path', () => {
    for (const path of ['__proto__', 'constructor', 'name.constructor', 'fetch.__proto__', 'fetch.constructor.prototype', 'toString', 'hasOwnProperty']) {
      expect(resolveTemplateString(`{{${path}}}`, scope)).toBe(`{{${path}}}`);
    }
    const own = JSON.parse('{"__proto__": {"polluted": true}, "constructor": {"prototype": 1}}') as Record<string, unknown>;
    expect(lookupPath(own, '__proto__.polluted')).toEqual({ found: false });
    expect(lookupPath(own, 'constructor')).toEqual({ found: false });
  });
});

describe('resolveTemplateString with an escape', () => {
  const upper = (value: string) => `[${value.toUpperCase()}]`;

  it('passes every inserted value through the escape, and only those', () => {
    expect(resolveTemplateString('Hi {{name}}, {{amount}} {{nothing}}!', scope, { escape: upper })).toBe('Hi [ADA], [42] []!');
    expect(resolveTemplateString('{{recipients}}', scope, { escape: upper })).toBe('[["A@X.TEST","B@X.TEST"]]');
  });

  it('leaves unresolved templates as literal text, unescaped', () => {
    expect(resolveTemplateString('{{nope}} and {{name}}', scope, { escape: upper })).toBe('{{nope}} and [ADA]');
    expect(resolveTemplateString('{{nope}}', scope, { escape: upper })).toBe('{{nope}}');
  });
});

describe('resolveTemplates', () => {
  it('resolves deep inside objects and arrays without mutating the input', () => {
    const config = {
      url: 'https://api.test/users/{{user_id}}',
      to: '{{recipients}}',
      headers: { 'X-Run': '{{execution_id}}' },
      body: { ids: ['{{fetch.items.0.id}}', '{{fetch.items[1].id}}'], count: 3, on: true, none: null, text: 'n={{amount}}' },
    };
    const before = JSON.stringify(config);
    expect(resolveTemplates(config, scope)).toEqual({
      url: 'https://api.test/users/7',
      to: ['a@x.test', 'b@x.test'],
      headers: { 'X-Run': 99 },
      body: { ids: ['i-1', 'i-2'], count: 3, on: true, none: null, text: 'n=42' },
    });
    expect(JSON.stringify(config)).toBe(before);
  });

  it('does not template object keys and does not re-resolve resolved values', () => {
    const local = buildScope({ inputs: { evil: '{{secret}}', secret: 's3cr3t' } });
    expect(resolveTemplates({ '{{secret}}': '{{evil}}' }, local)).toEqual({ '{{secret}}': '{{secret}}' });
    expect(resolveTemplates('x {{evil}}', local)).toBe('x {{secret}}');
  });

  it('drops __proto__ keys from copies and never pollutes prototypes', () => {
    const hostile = JSON.parse('{"a": "{{name}}", "__proto__": {"polluted": "yes"}, "nested": {"__proto__": {"polluted": "yes"}}}') as unknown;
    const out = resolveTemplates(hostile, scope) as Record<string, unknown>;
    expect(out).toEqual({ a: 'Ada', nested: {} });
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
    expect(Object.prototype.hasOwnProperty.call(out, '__proto__')).toBe(false);
  });

  it('keeps constructor and prototype as ordinary own keys of copied data', () => {
    const out = resolveTemplates({ constructor: '{{name}}', prototype: 1 }, scope) as Record<string, unknown>;
    expect(out['constructor']).toBe('Ada');
    expect(out['prototype']).toBe(1);
    expect(Object.prototype.constructor).toBe(Object);
  });

  it('passes non-string scalars through', () => {
    expect(resolveTemplates(5, scope)).toBe(5);
    expect(resolveTemplates(null, scope)).toBeNull();
    expect(resolveTemplates(undefined, scope)).toBeUndefined();
  });
});

describe('buildScope', () => {
  it('lets node outputs win over inputs, and the context over both', () => {
    const s = buildScope({
      inputs: { user_id: 'spoofed', a: 1, n1: 'input' },
      context: { user_id: 7, execution_id: 9 },
      outputs: { n1: { x: 1 }, user_id: { id: 1 }, execution_id: { id: 2 } },
    });
    expect(s).toEqual({ user_id: 7, a: 1, execution_id: 9, n1: { x: 1 } });
  });

  it('takes context names from the context alone, even when the run has none', () => {
    // A run without a user (a bare router job) must not let an input or a node named user_id stand in for one.
    const s = buildScope({ inputs: { user_id: 1, execution_id: 2, a: 1 }, outputs: { user_id: { id: 1 } } });
    expect(s).toEqual({ a: 1 });
    expect(resolveTemplateString('{{user_id}}', s)).toBe('{{user_id}}');
  });

  it('ignores non-object layers and __proto__ keys', () => {
    const s = buildScope({ inputs: JSON.parse('{"__proto__": {"admin": true}, "ok": 1}'), outputs: [1] });
    expect(s).toEqual({ ok: 1 });
    expect((s as Record<string, unknown>)['admin']).toBeUndefined();
  });
});

describe('hasTemplate', () => {
  it('detects templates', () => {
    expect(hasTemplate('a {{b}}')).toBe(true);
    expect(hasTemplate('a {b}')).toBe(false);
    expect(hasTemplate('{{}}')).toBe(false);
  });
});
