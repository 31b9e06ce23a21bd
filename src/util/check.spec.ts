import { describe, expect, it } from 'vitest';
import { bool, exact, fieldProblems, num, opt, str, where } from './check';

describe('check helpers', () => {
  it('num: an exclusive lower bound; str: a length bound; both named in the refusal', () => {
    expect(num({ above: 0, max: 5 })(0.5, 't')).toBe(0.5);
    expect(() => num({ above: 0, max: 5 })(0, 't')).toThrow('t: expected a number > 0 ≤ 5, got number 0');
    expect(() => str({ max: 3 })('abcd', 's')).toThrow('s: expected a string of at most 3 characters, got "abcd"');
  });
  it('where refuses a checked value its rule rejects, in its words', () => {
    const even = where(num({ int: true }), (n) => n % 2 === 0, 'an even integer');
    expect(even(4, 'n')).toBe(4);
    expect(() => even(3, 'n')).toThrow('n: expected an even integer, got number 3');
  });
  it('exact refuses an unknown key by name; fieldProblems lists each field\'s first problem', () => {
    const fields = { a: bool, b: opt(str()) };
    expect(exact(fields, 'flag')({ a: true }, 'x')).toEqual({ a: true });
    expect(() => exact(fields, 'flag')({ a: true, c: 1 }, 'x')).toThrow('x: expected one of the flags a, b, got an unknown flag "c"');
    expect(fieldProblems(fields, { a: 1, b: 2 })).toEqual(['a: expected true or false, got number 1', 'b: expected a string, got number 2']);
    expect(fieldProblems(fields, { a: false })).toEqual([]);
  });
});
