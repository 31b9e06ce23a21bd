import { describe, expect, it } from 'vitest';
import { sha256Hex } from '../util/hash.ts';
import { createPrng } from '../util/prng.ts';
import { Sha256 } from './sha256.ts';

describe('Sha256 (incremental)', () => {
  it('matches the FIPS 180-2 test vectors', () => {
    const enc = new TextEncoder();
    expect(new Sha256().update(enc.encode('abc')).hex()).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    expect(new Sha256().hex()).toBe('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
    expect(new Sha256().update(enc.encode('abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq')).hex()).toBe(
      '248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1',
    );
  });

  it('agrees with WebCrypto over random data fed in uneven chunks', async () => {
    const rng = createPrng(11);
    for (const size of [1, 55, 56, 63, 64, 65, 1000, 100_003]) {
      const data = new Uint8Array(size);
      for (let i = 0; i < size; i++) data[i] = rng.int(256);
      const h = new Sha256();
      for (let i = 0; i < size; ) {
        const n = 1 + rng.int(200);
        h.update(data.subarray(i, i + n));
        i += n;
      }
      expect(h.hex()).toBe(await sha256Hex(data));
    }
  });
});
