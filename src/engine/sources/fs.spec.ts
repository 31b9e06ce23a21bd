import { describe, expect, it } from 'vitest';
import { FsReader } from './fs.ts';

const DIR = new URL('../../../test/fixtures/reference/tiny-qwen3/', import.meta.url).pathname;

describe('FsReader', () => {
  it('reads sizes, text and byte ranges at a position', async () => {
    const r = new FsReader(DIR);
    expect(r.label).toBe('tiny-qwen3');
    expect(await r.size('model.safetensors')).toBe(354024);
    expect(JSON.parse(await r.text('config.json')).model_type).toBe('qwen3');
    const head = await r.range('model.safetensors', 8, 10);
    expect(new TextDecoder().decode(head)).toBe('{"');
  });

  it('names missing files and refuses paths that leave the folder', async () => {
    const r = new FsReader(DIR);
    expect(await r.exists('nope.json')).toBe(false);
    await expect(r.text('nope.json')).rejects.toMatchObject({ code: 'not-found', message: expect.stringMatching(/^nope\.json not found in folder tiny-qwen3/) });
    await expect(r.text('../tiny-qwen2/config.json')).rejects.toThrow(/refusing file name/);
    await expect(r.range('config.json', 0, 1e6)).rejects.toThrow(/config\.json in tiny-qwen3 is truncated/);
  });
});
