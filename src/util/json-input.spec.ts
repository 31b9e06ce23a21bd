import { describe, expect, it } from 'vitest';
import { JsonInputError, MAX_JSON_DEPTH, parseJsonInput } from './json-input';

describe('parseJsonInput', () => {
  it('parses JSON as JSON.parse does, a leading byte-order mark aside', () => {
    expect(parseJsonInput('{"a":[1,{"b":null}],"c":"\\u0061"}')).toEqual({ a: [1, { b: null }], c: 'a' });
    expect(parseJsonInput('{"a":{"a":1}}')).toEqual({ a: { a: 1 } });
    expect(parseJsonInput('\uFEFF[1]')).toEqual([1]);
  });

  it("keeps JSON.parse's own error for text that is not JSON", () => {
    let native = '';
    try {
      JSON.parse('{"a":');
    } catch (e) {
      native = (e as Error).message;
    }
    expect(() => parseJsonInput('{"a":')).toThrow(SyntaxError);
    expect(() => parseJsonInput('{"a":')).toThrow(native);
  });

  it('refuses a key repeated in one object, naming it and where it is', () => {
    expect(() => parseJsonInput('{"a":1,"a":2}')).toThrow(new JsonInputError('duplicate key "a" at the top level (line 1)'));
    expect(() => parseJsonInput('{"a":1,"\\u0061":2}')).toThrow('duplicate key "a" at the top level');
    expect(() => parseJsonInput('{\n "s": [\n  {"m": 1},\n  {"m": 2, "m": 3}\n ]\n}')).toThrow('duplicate key "m" at s[1] (line 4)');

  });

  it('quotes a huge repeated key, and a path of huge keys, clipped', () => {
    const k = 'k'.repeat(100_000);
    const message = (text: string) => {
      try {
        parseJsonInput(text);
      } catch (e) {
        return (e as Error).message;
      }
      return '';
    };
    const dup = message(`{"${k}":1,"${k}":2}`);
    expect(dup).toBe(`duplicate key "${'k'.repeat(200)}… (100,000 characters in all)" at the top level (line 1)`);
    expect(message(`{"${k}":{"a":1,"a":2}}`)).toBe(`duplicate key "a" at ${'k'.repeat(200)}… (100,000 characters in all) (line 1)`);
  });

  it(`refuses nesting deeper than ${MAX_JSON_DEPTH}, without recursing into it`, () => {
    const nest = (n: number) => `${'['.repeat(n)}${']'.repeat(n)}`;
    expect(() => parseJsonInput(nest(MAX_JSON_DEPTH))).not.toThrow();
    expect(() => parseJsonInput(nest(MAX_JSON_DEPTH + 1))).toThrow(new JsonInputError('nested deeper than 64 levels (at line 1)'));
    expect(() => parseJsonInput(nest(1_000_000))).toThrow(/nested deeper than 64 levels/);
    expect(() => parseJsonInput('{"a":{"b":1}}', 1)).toThrow(/nested deeper than 1 levels/);
  });

  it('reads keys and strings holding quotes, backslashes and brackets as JSON does', () => {
    const tricky = { 'a\\': '}"\\', b: '[{"', c: { 'a\\': 1, 'a\\"': 2, ',': [',', '"'] } };
    expect(parseJsonInput(JSON.stringify(tricky, null, 1))).toEqual(tricky);
    expect(() => parseJsonInput('{"x":[1,{"k\\"":1,"k\\"":2}]}')).toThrow('duplicate key "k\\"" at x[1] (line 1)');
    // a value equal to a key is not a key
    expect(parseJsonInput('{"a":"a","b":["a","a"]}')).toEqual({ a: 'a', b: ['a', 'a'] });
  });

  it('reads 20 MB of whitespace and a 20 MB string in well under the seconds a per-character parser took', () => {
    let t = performance.now();
    expect(parseJsonInput(`${' '.repeat(20_000_000)}{"a":1}`)).toEqual({ a: 1 });
    expect(performance.now() - t).toBeLessThan(2000);
    t = performance.now();
    expect((parseJsonInput(JSON.stringify({ a: '1'.repeat(20_000_000) })) as { a: string }).a).toHaveLength(20_000_000);
    expect(performance.now() - t).toBeLessThan(2000);
  });
});
