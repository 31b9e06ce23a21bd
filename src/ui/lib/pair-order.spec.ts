import { describe, expect, it } from 'vitest';
import { baseFirst, baseReason, modelRef } from './pair-order';

const run = (name: string, source = `hub:${name}`) => ({ id: name, manifest: { model: { fingerprint: name, name, source } } });

describe('Compare: base → trained', () => {
  it('puts the base first when the trained model was chosen first', () => {
    const base = run('reachlab/micro-arith', 'builtin:reachlab/micro-arith');
    const rl = run('reachlab/micro-arith-rl', 'builtin:reachlab/micro-arith-rl');
    expect(modelRef(rl.manifest.model)).toBe('builtin:micro-arith-rl');
    expect(baseFirst([rl, base])).toEqual({ pair: [base, rl], reason: 'a base/trained pair the study presets name' });
    expect(baseFirst([base, rl]).pair).toEqual([base, rl]);
  });

  it('knows the presets\' Hub pairs and a name that extends another, and keeps any other order', () => {
    expect(baseFirst([run('hkust-nlp/Qwen-2.5-0.5B-SimpleRL-Zoo'), run('Qwen/Qwen2.5-0.5B')]).pair.map((r) => r.id)).toEqual(['Qwen/Qwen2.5-0.5B', 'hkust-nlp/Qwen-2.5-0.5B-SimpleRL-Zoo']);
    expect(baseReason('me/tiny', 'me/tiny-dpo')).toBe("the trained model's name extends the base's");
    const [x, y] = [run('a/one'), run('b/two')];
    expect(baseFirst([y, x])).toEqual({ pair: [y, x], reason: null });
    expect(baseFirst([x, x]).reason).toBeNull();
  });
});
