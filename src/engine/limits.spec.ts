import { describe, expect, it } from 'vitest';
import { checkTextFileSize, readTextResponse, TEXT_FILE_LIMITS, textFileLimit } from './limits.ts';
import { FilesReader } from './sources/files.ts';
import { HubReader } from './sources/hub.ts';

const MB = 2 ** 20;

describe('text file limits', () => {
  it('states a bound and its reason for each checkpoint text file', () => {
    expect(TEXT_FILE_LIMITS['config.json'].bytes).toBe(MB);
    expect(textFileLimit('sub/tokenizer.json').bytes).toBe(64 * MB);
    expect(textFileLimit('chat_template.jinja').bytes).toBe(MB);
    expect(textFileLimit('toString').bytes).toBe(MB); // a file named like an Object member gets the default bound
    expect(() => checkTextFileSize('m', 'config.json', MB)).not.toThrow();
    expect(() => checkTextFileSize('m', 'config.json', 300 * MB)).toThrow(/config\.json in m is 300\.0 MB, more than the 1\.0 MB read for it \(a model config is a few KB\)/);
  });

  it('refuses a 300 MB config.json from its Content-Length without reading the body', async () => {
    let pulled = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(c) {
        pulled++;
        c.enqueue(new Uint8Array(MB));
      },
    });
    const res = new Response(body, { headers: { 'content-length': String(300 * MB) } });
    await expect(readTextResponse(res, 'org/m@main', 'config.json')).rejects.toThrow(/config\.json in org\/m@main is 300\.0 MB/);
    expect(pulled).toBeLessThanOrEqual(1); // the stream's start-up pull only; nothing was read
  });

  it('cuts off an unsized reply as soon as it passes the bound', async () => {
    let sent = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(c) {
        sent += 256 * 1024;
        c.enqueue(new Uint8Array(256 * 1024));
      },
    });
    await expect(readTextResponse(new Response(body), 'org/m@main', 'config.json')).rejects.toThrow(/config\.json in org\/m@main is 1\.3 MB, more than the 1\.0 MB/);
    expect(sent).toBeLessThan(3 * MB);
  });

  it('FilesReader.text refuses an oversized config.json by name', async () => {
    const big = '{"a":"' + 'x'.repeat(2 * MB) + '"}';
    const files = new FilesReader([new File([big], 'config.json')]);
    await expect(files.text('config.json')).rejects.toThrow(/config\.json in .* is 2\.0 MB, more than the 1\.0 MB/);
    expect(await new FilesReader([new File(['{"a":1}'], 'config.json')]).text('config.json')).toBe('{"a":1}');
  });

  it('HubReader.text refuses an oversized config.json from its Content-Length, and reads a small one', async () => {
    const big = '{"a":"' + 'x'.repeat(2 * MB) + '"}';
    const hub = new HubReader({ repo: 'org/m', endpoint: 'http://hub.invalid' }, undefined, async () => new Response(big, { headers: { 'content-length': String(big.length) } }));
    await expect(hub.text('config.json')).rejects.toThrow(/^config\.json in org\/m@main is 2\.0 MB, more than the 1\.0 MB read for it/);
    const small = new HubReader({ repo: 'org/m', endpoint: 'http://hub.invalid' }, undefined, async () => new Response('{"a":1}'));
    expect(await small.text('config.json')).toBe('{"a":1}');
  });
});
