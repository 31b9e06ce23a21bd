import { describe, expect, it } from 'vitest';
import { FilesReader } from './files.ts';

function file(path: string, content: string): File {
  const slash = path.lastIndexOf('/');
  const f = new File([content], path.slice(slash + 1));
  if (slash >= 0) Object.defineProperty(f, 'webkitRelativePath', { value: path });
  return f;
}

describe('FilesReader', () => {
  it('strips the common top folder of a folder pick', async () => {
    const loads: Array<[string, number, number]> = [];
    const r = new FilesReader([file('my-model/config.json', '{"a":1}'), file('my-model/w.bin', '0123456789')], (f, l, t) => loads.push([f, l, t]));
    expect(r.label).toBe('my-model');
    expect(await r.exists('config.json')).toBe(true);
    expect(await r.exists('my-model/config.json')).toBe(false);
    expect(await r.text('config.json')).toBe('{"a":1}');
    expect(await r.size('w.bin')).toBe(10);
    expect(new TextDecoder().decode(await r.range('w.bin', 3, 7))).toBe('3456');
    expect(loads).toEqual([['config.json', 7, 7], ['w.bin', 4, 10]]);
  });

  it('keeps names of loose files and of subfolders below the top one', async () => {
    const loose = new FilesReader([file('config.json', '{}'), file('tokenizer.json', '[]')]);
    expect(loose.label).toBe('picked files');
    expect(await loose.text('tokenizer.json')).toBe('[]');
    const nested = new FilesReader([file('m/config.json', '{}'), file('m/sub/x.json', 'x')]);
    expect(await nested.text('sub/x.json')).toBe('x');
  });

  it('names a file that was not picked, and refuses reads past its end', async () => {
    const r = new FilesReader([file('m/config.json', '{}')]);
    await expect(r.text('tokenizer.json')).rejects.toMatchObject({ code: 'not-found', message: 'tokenizer.json is not among the picked files (m)' });
    await expect(r.range('config.json', 0, 3)).rejects.toThrow(/config\.json in m is truncated: bytes \[0, 3\) requested, file has 2/);
    expect(() => new FilesReader([])).toThrow(/no files were picked/);
  });
});
