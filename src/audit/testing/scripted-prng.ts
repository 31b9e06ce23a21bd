// A Prng that returns a given list of uniforms, for searches derived by hand from their rules:
// int(n) = floor(u·n) as the real one; running past the list is an error, so a test also pins how
// many draws the rules make.

import type { Prng } from '../../util/prng';

export function scriptedPrng(uniforms: readonly number[]): Prng & { readonly used: number } {
  let i = 0;
  const next = () => {
    if (i >= uniforms.length) throw new Error(`scripted PRNG: draw ${i + 1} asked, only ${uniforms.length} scripted`);
    return uniforms[i++];
  };
  return {
    next,
    nextU32: () => Math.floor(next() * 4294967296),
    int: (n: number) => Math.floor(next() * n),
    get used() {
      return i;
    },
  };
}
