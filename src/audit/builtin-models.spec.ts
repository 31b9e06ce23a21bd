import { describe, expect, it } from 'vitest';
import { BUILTIN_MODELS, builtinModel, builtinRef } from './builtin-models';

describe('the built-in models', () => {
  it('reads every spelling of a reference to one entry, and nothing else', () => {
    const [micro, rl] = BUILTIN_MODELS;
    for (const ref of ['builtin:micro-arith', 'reachlab/micro-arith', 'builtin:reachlab/micro-arith']) expect(builtinModel(ref)).toBe(micro);
    expect(builtinModel('builtin:micro-arith-rl')).toBe(rl);
    for (const ref of ['micro-arith', 'builtin:nope', 'Qwen/Qwen2.5-0.5B', 'builtin:reachlab/nope']) expect(builtinModel(ref)).toBeNull();
    expect(BUILTIN_MODELS.map(builtinRef)).toEqual(['builtin:micro-arith', 'builtin:micro-arith-rl']);
  });
});
