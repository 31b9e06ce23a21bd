import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHubServer, type HubServer } from '../../test/hub-server.ts';
import { layerWeights, openCheckpoint, requiredTensors, type Checkpoint } from './checkpoint.ts';
import { encodeSafetensors, readSafetensorsHeader, type TensorToWrite } from './safetensors.ts';
import { MemoryReader } from './sources/memory.ts';
import { openReader } from './sources/reader.ts';
import type { LoadProgress } from './types.ts';

const MODELS = ['tiny-qwen2', 'tiny-llama', 'tiny-qwen3'] as const;
const dirUrl = (m: string) => new URL(`../../test/fixtures/reference/${m}/`, import.meta.url);
const dirPath = (m: string) => dirUrl(m).pathname;
const fixtureFiles = (m: string): Record<string, Uint8Array<ArrayBuffer>> =>
  Object.fromEntries(readdirSync(dirUrl(m)).map((f) => [f, new Uint8Array(readFileSync(new URL(f, dirUrl(m))))]));

let hub: HubServer;
beforeAll(async () => {
  hub = await startHubServer({ repos: Object.fromEntries(MODELS.map((m) => [`ref/${m}`, dirPath(m)])) });
});
afterAll(() => hub.close());

async function allTensors(ck: Checkpoint): Promise<Map<string, Float32Array>> {
  const out = new Map<string, Float32Array>();
  for (const name of ck.tensorNames().sort()) out.set(name, await ck.readF32(name));
  return out;
}

describe('reference checkpoints', () => {
  it.each(MODELS)('%s loads the same from fs, the Hub and picked files', async (m) => {
    const fromFs = await openCheckpoint(openReader({ kind: 'fs', dir: dirPath(m) }));
    const fromHub = await openCheckpoint(openReader({ kind: 'hub', repo: `ref/${m}`, endpoint: hub.url }));
    const files = Object.entries(fixtureFiles(m)).map(([name, bytes]) => {
      const f = new File([bytes], name);
      Object.defineProperty(f, 'webkitRelativePath', { value: `${m}/${name}` });
      return f;
    });
    const fromFiles = await openCheckpoint(openReader({ kind: 'files', files }));

    expect(fromFs.name).toBe(m);
    expect(fromFiles.name).toBe(m);
    expect(fromHub.name).toBe(`ref/${m}@main`);
    expect(fromHub.config).toEqual(fromFs.config);
    await expect(fromFs.fingerprint()).rejects.toThrow(/needs every weight read first/);

    const required = requiredTensors(fromFs.config);
    expect(fromFs.weightBytes).toBe(required.reduce((s, r) => s + r.shape.reduce((a, b) => a * b, 1) * (fromFs.tensorInfo(r.name).dtype === 'F32' ? 4 : 2), 0));
    const a = await allTensors(fromFs);
    expect(await allTensors(fromHub)).toEqual(a);
    expect(await allTensors(fromFiles)).toEqual(a);
    for (const r of required) expect(a.get(r.name)!.length).toBe(r.shape.reduce((x, y) => x * y, 1));
    // content-addressed: the same bytes give one fingerprint from disk, the Hub and picked files
    const fp = await fromFs.fingerprint();
    expect(fp).toMatch(/^[0-9a-f]{64}$/);
    expect(await fromHub.fingerprint()).toBe(fp);
    expect(await fromFiles.fingerprint()).toBe(fp);
  });

  it('gives a different fingerprint when one weight byte differs, and the same when read as f16', async () => {
    const m = MODELS[0];
    const files = fixtureFiles(m);
    const weights = Object.keys(files).find((f) => f.endsWith('.safetensors'))!;
    const changed = { ...files, [weights]: Uint8Array.from(files[weights]) };
    changed[weights][changed[weights].length - 1] ^= 1; // last byte: inside the last tensor's data
    const open = (fs: Record<string, Uint8Array<ArrayBuffer>>) => openCheckpoint(openReader({
      kind: 'files',
      files: Object.entries(fs).map(([name, bytes]) => {
        const f = new File([bytes], name);
        Object.defineProperty(f, 'webkitRelativePath', { value: `${m}/${name}` });
        return f;
      }),
    }));
    const [a, b, c] = [await open(files), await open(changed), await open(files)];
    for (const r of requiredTensors(a.config)) {
      await a.readF32(r.name);
      await b.readF32(r.name);
      await c.readF16(r.name);
    }
    const fp = await a.fingerprint();
    expect(await c.fingerprint()).toBe(fp);
    expect(await b.fingerprint()).not.toBe(fp);
  });

  it('converts tiny-qwen2 BF16 to the value its bits encode', async () => {
    const ck = await openCheckpoint(openReader({ kind: 'fs', dir: dirPath('tiny-qwen2') }));
    const info = ck.tensorInfo('model.embed_tokens.weight');
    expect(info).toEqual({ dtype: 'BF16', shape: [379, 64], file: 'model.safetensors' });
    const file = readFileSync(new URL('model.safetensors', dirUrl('tiny-qwen2')));
    const dataStart = 8 + Number(file.readBigUInt64LE(0));
    // first element: bits 0x3e54 = sign 0, exponent 0x7c (2^-3), mantissa 0x54/128 -> (1 + 84/128) / 8
    expect(file.readUInt16LE(dataStart)).toBe(0x3e54);
    const w = await ck.readF32('model.embed_tokens.weight'); // [vocab, hidden]
    expect(w[0]).toBe((1 + 84 / 128) / 8);
    // every element: bf16 bits are the top half of the f32 bits
    for (let i = 0; i < w.length; i += 97) {
      const f = Buffer.alloc(4);
      f.writeUInt16LE(file.readUInt16LE(dataStart + 2 * i), 2);
      expect(w[i]).toBe(f.readFloatLE(0));
    }
  });

  it('converts tiny-llama F16 (sharded) element by element from the f16 formula', async () => {
    const ck = await openCheckpoint(openReader({ kind: 'fs', dir: dirPath('tiny-llama') }));
    const name = 'model.embed_tokens.weight';
    const info = ck.tensorInfo(name);
    expect(info).toMatchObject({ dtype: 'F16', shape: [379, 48], file: 'model-00002-of-00002.safetensors' });
    const header = await readSafetensorsHeader(new MemoryReader('x', fixtureFiles('tiny-llama')), info.file);
    const start = header.tensors.get(name)!.start;
    const file = readFileSync(new URL(info.file, dirUrl('tiny-llama')));
    const w = await ck.readF32(name);
    for (let i = 0; i < w.length; i += 53) {
      const h = file.readUInt16LE(start + 2 * i);
      const exp = (h >> 10) & 31, frac = h & 1023, sign = h & 0x8000 ? -1 : 1;
      const expected = exp === 0 ? sign * frac * 2 ** -24 : sign * (1 + frac / 1024) * 2 ** (exp - 15);
      expect(w[i]).toBe(expected);
    }
    const f16 = await ck.readF16(name);
    expect(f16[7]).toBe(file.readUInt16LE(start + 14));
  });

  it('reads tiny-qwen3 F32 as stored', async () => {
    const ck = await openCheckpoint(openReader({ kind: 'fs', dir: dirPath('tiny-qwen3') }));
    const name = layerWeights(2).qNorm;
    expect(ck.tensorInfo(name)).toMatchObject({ dtype: 'F32', shape: [16] });
    const files = fixtureFiles('tiny-qwen3');
    const t = (await readSafetensorsHeader(new MemoryReader('x', files), 'model.safetensors')).tensors.get(name)!;
    const stored = new DataView(files['model.safetensors'].buffer, t.start, 64);
    const w = await ck.readF32(name);
    expect(Array.from(w)).toEqual(Array.from({ length: 16 }, (_, i) => stored.getFloat32(4 * i, true)));
  });

  it('reads weights from the Hub by range only, and reports progress in bytes', async () => {
    const bytes: Array<[string, number, number]> = [];
    const progress: LoadProgress[] = [];
    const from = hub.requests.length;
    const ck = await openCheckpoint(
      openReader({ kind: 'hub', repo: 'ref/tiny-llama', endpoint: hub.url }, (f, l, t) => bytes.push([f, l, t])),
      (p) => progress.push(p),
    );
    for (const r of requiredTensors(ck.config)) await ck.readF32(r.name);
    const weightRequests = hub.requests.slice(from).filter((r) => r.path.endsWith('.safetensors') && r.method === 'GET');
    expect(weightRequests.length).toBeGreaterThan(0);
    expect(weightRequests.every((r) => r.range !== undefined && r.status === 206)).toBe(true);
    // besides the size probes, one read-ahead block per shard (each shard is under 16 MB)
    expect(weightRequests.filter((r) => r.range !== 'bytes=0-0').map((r) => r.path).sort()).toEqual(
      ['/ref/tiny-llama/resolve/main/model-00001-of-00002.safetensors', '/ref/tiny-llama/resolve/main/model-00002-of-00002.safetensors'],
    );
    expect(progress[0]).toMatchObject({ phase: 'config', item: 'config.json' });
    const weights = progress.filter((p) => p.phase === 'weights');
    expect(weights.at(-1)).toMatchObject({ loadedBytes: ck.weightBytes, totalBytes: ck.weightBytes });
    expect(weights.map((p) => p.loadedBytes)).toEqual([...weights.map((p) => p.loadedBytes)].sort((x, y) => x - y));
    const shard = 'model-00002-of-00002.safetensors';
    const last = bytes.filter(([f]) => f === shard).at(-1)!;
    expect(last[2]).toBe(readFileSync(new URL(shard, dirUrl('tiny-llama'))).length);
    expect(last[1]).toBeLessThanOrEqual(last[2]);
  });
});

// ---- bad checkpoints, built from the reference files ----

async function tensorsOf(files: Record<string, Uint8Array>, file: string): Promise<TensorToWrite[]> {
  const h = await readSafetensorsHeader(new MemoryReader('x', files), file);
  return [...h.tensors.values()].map((t) => ({ name: t.name, dtype: t.dtype, shape: t.shape, data: files[file].slice(t.start, t.end) }));
}

async function qwen3With(edit: (ts: TensorToWrite[]) => TensorToWrite[], config?: (c: Record<string, unknown>) => void) {
  const files = fixtureFiles('tiny-qwen3');
  const out: Record<string, Uint8Array | string> = { ...files, 'model.safetensors': encodeSafetensors(edit(await tensorsOf(files, 'model.safetensors'))) };
  if (config) {
    const c = JSON.parse(new TextDecoder().decode(files['config.json']));
    config(c);
    out['config.json'] = JSON.stringify(c);
  }
  return openCheckpoint(new MemoryReader('bad-qwen3', out));
}

function llamaWithIndex(edit: (map: Record<string, string>) => void, drop: string[] = []) {
  const files: Record<string, Uint8Array | string> = fixtureFiles('tiny-llama');
  const index = JSON.parse(new TextDecoder().decode(files['model.safetensors.index.json'] as Uint8Array));
  edit(index.weight_map);
  files['model.safetensors.index.json'] = JSON.stringify(index);
  for (const f of drop) delete files[f];
  return openCheckpoint(new MemoryReader('bad-llama', files));
}

describe('chat_template.jinja', () => {
  it('is read from fs, the Hub and picked files (and enters the fingerprint); absent, it is null', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'reachlab-jinja-'));
    cpSync(dirPath('tiny-qwen2'), dir, { recursive: true });
    const jinja = '{% for m in messages %}[{{ m.role }}] {{ m.content }}\n{% endfor %}';
    writeFileSync(join(dir, 'chat_template.jinja'), jinja);
    const withFile = await startHubServer({ repos: { 'ref/jinja': dir } });
    try {
      const names = readdirSync(dir);
      const files = names.map((name) => {
        const f = new File([readFileSync(join(dir, name))], name);
        Object.defineProperty(f, 'webkitRelativePath', { value: `jinja/${name}` });
        return f;
      });
      const opened = [
        await openCheckpoint(openReader({ kind: 'fs', dir })),
        await openCheckpoint(openReader({ kind: 'hub', repo: 'ref/jinja', endpoint: withFile.url })),
        await openCheckpoint(openReader({ kind: 'files', files })),
      ];
      for (const ck of opened) expect(ck.chatTemplateJinja).toBe(jinja);
      const without = await openCheckpoint(openReader({ kind: 'fs', dir: dirPath('tiny-qwen2') }));
      expect(without.chatTemplateJinja).toBeNull();
      for (const ck of [opened[0], without]) for (const name of requiredTensors(ck.config).map((r) => r.name)) await ck.readF32(name);
      expect(await opened[0].fingerprint()).not.toBe(await without.fingerprint());
    } finally {
      await withFile.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('bad checkpoints', () => {
  it('refuses a missing tensor, naming it', async () => {
    const gone = layerWeights(1).up;
    await expect(qwen3With((ts) => ts.filter((t) => t.name !== gone))).rejects.toMatchObject({
      code: 'bad-checkpoint',
      message: expect.stringMatching(/missing tensor model\.layers\.1\.mlp\.up_proj\.weight \(expected shape \[96,40\]\)/),
    });
  });

  it('refuses a shape mismatch, with expected and actual shapes', async () => {
    const name = layerWeights(0).kNorm;
    const edit = (ts: TensorToWrite[]) => ts.map((t) => (t.name === name ? { ...t, shape: [8], data: t.data.slice(0, 32) } : t));
    await expect(qwen3With(edit)).rejects.toThrow(/tensor model\.layers\.0\.self_attn\.k_norm\.weight in model\.safetensors has shape \[8\], expected \[16\]/);
  });

  it('refuses a needed tensor stored as an integer dtype', async () => {
    const name = 'model.norm.weight';
    const edit = (ts: TensorToWrite[]) => ts.map((t) => (t.name === name ? { ...t, dtype: 'I32' as const } : t));
    await expect(qwen3With(edit)).rejects.toMatchObject({
      code: 'unsupported-dtype',
      message: expect.stringMatching(/tensor model\.norm\.weight in model\.safetensors has dtype I32/),
    });
  });

  it('ignores extra tensors the architecture does not use, whatever their dtype', async () => {
    const extra: TensorToWrite = { name: 'model.layers.0.self_attn.rotary_emb.inv_freq', dtype: 'I64', shape: [2], data: new Uint8Array(16) };
    const ck = await qwen3With((ts) => [...ts, extra]);
    expect(ck.tensorInfo(extra.name)).toEqual({ dtype: 'I64', shape: [2], file: 'model.safetensors' });
    await expect(ck.readF32(extra.name)).rejects.toThrow(/rotary_emb\.inv_freq in model\.safetensors has dtype I64; only F32, F16 and BF16/);
  });

  it('refuses an unsupported model_type from the config', async () => {
    await expect(qwen3With((ts) => ts, (c) => (c.model_type = 'phi3'))).rejects.toMatchObject({
      code: 'unsupported-architecture',
      message: expect.stringMatching(/model_type "phi3" is not supported \(supported: llama, qwen2, qwen3\)/),
    });
  });

  it('refuses a truncated weight file', async () => {
    const files: Record<string, Uint8Array> = fixtureFiles('tiny-qwen3');
    files['model.safetensors'] = files['model.safetensors'].slice(0, 100_000);
    await expect(openCheckpoint(new MemoryReader('cut', files))).rejects.toThrow(/model\.safetensors: tensor .* outside the data section/);
  });

  it('refuses a shard name with ".." in the index', async () => {
    await expect(llamaWithIndex((m) => (m['model.norm.weight'] = '../model-00001-of-00002.safetensors'))).rejects.toThrow(
      /refusing shard name "\.\.\/model-00001-of-00002\.safetensors" \(for tensor model\.norm\.weight\)/,
    );
  });

  it('refuses a missing shard, naming it', async () => {
    await expect(llamaWithIndex(() => undefined, ['model-00002-of-00002.safetensors'])).rejects.toMatchObject({
      code: 'bad-checkpoint',
      message: expect.stringMatching(/shard model-00002-of-00002\.safetensors named in model\.safetensors\.index\.json is missing from bad-llama/),
    });
  });

  it('refuses an index entry whose shard lacks the tensor', async () => {
    await expect(llamaWithIndex((m) => (m['lm_head.weight'] = 'model-00002-of-00002.safetensors'))).rejects.toThrow(
      /puts tensor lm_head\.weight in model-00002-of-00002\.safetensors, but model-00002-of-00002\.safetensors has no such tensor/,
    );
  });

  it('refuses, before allocating, a tensor too large for one f32 buffer', async () => {
    // A reader that claims a 6 GB weight file: only the header is ever read.
    const files = fixtureFiles('tiny-qwen3');
    const ts = await tensorsOf(files, 'model.safetensors');
    const small = encodeSafetensors(ts);
    const huge = { name: 'extra.huge', dtype: 'BF16', shape: [3 * 2 ** 30] };
    const hdr = JSON.parse(new TextDecoder().decode(small.subarray(8, 8 + Number(new DataView(small.buffer).getBigUint64(0, true)))));
    const dataLen = small.length - 8 - Number(new DataView(small.buffer).getBigUint64(0, true));
    hdr[huge.name] = { dtype: huge.dtype, shape: huge.shape, data_offsets: [dataLen, dataLen + 6 * 2 ** 30] };
    const json = new TextEncoder().encode(JSON.stringify(hdr));
    const head = new Uint8Array(8 + json.length);
    new DataView(head.buffer).setBigUint64(0, BigInt(json.length), true);
    head.set(json, 8);
    const body = small.subarray(small.length - dataLen);
    const mem = new MemoryReader('big', files);
    const reader = {
      label: 'big',
      exists: (f: string) => mem.exists(f),
      text: (f: string) => mem.text(f),
      size: async (f: string) => (f === 'model.safetensors' ? head.length + dataLen + 6 * 2 ** 30 : mem.size(f)),
      range: async (f: string, a: number, b: number) => {
        if (f !== 'model.safetensors') return mem.range(f, a, b);
        // the virtual file: head, body, then 6 GB of zeros
        const prefix = new Uint8Array(head.length + body.length);
        prefix.set(head);
        prefix.set(body, head.length);
        const out = new Uint8Array(b - a);
        if (a < prefix.length) out.set(prefix.subarray(a, Math.min(b, prefix.length)));
        return out;
      },
    };
    const ck = await openCheckpoint(reader);
    await expect(ck.readF32(huge.name)).rejects.toMatchObject({
      code: 'out-of-memory',
      message: 'tensor extra.huge [3221225472] needs 12.00 GiB as f32, more than one browser ArrayBuffer holds (2 GiB)',
    });
    expect(Array.from(await ck.readF32('model.norm.weight'))).toEqual(Array.from(await (await qwen3With((x) => x)).readF32('model.norm.weight')));
  });

  it('refuses a folder without weights or config', async () => {
    const files: Record<string, Uint8Array> = fixtureFiles('tiny-qwen3');
    delete files['model.safetensors'];
    await expect(openCheckpoint(new MemoryReader('empty', files))).rejects.toMatchObject({
      code: 'not-found',
      message: 'no model.safetensors or model.safetensors.index.json in empty',
    });
    await expect(openCheckpoint(new MemoryReader('none', {}))).rejects.toMatchObject({ code: 'not-found', message: expect.stringMatching(/config\.json not found in none/) });
    await expect(openCheckpoint(new MemoryReader('junk', { 'config.json': '{"model_type": ' }))).rejects.toThrow(/config\.json is not JSON/);
  });

  it('refuses a config.json, generation_config.json or tokenizer_config.json with a repeated key, naming it', async () => {
    const base = fixtureFiles('tiny-qwen3');
    const text = (f: string) => new TextDecoder().decode(base[f]);
    for (const file of ['config.json', 'generation_config.json', 'tokenizer_config.json']) {
      if (!base[file]) continue;
      // the repeated key first, so the value JSON.parse would keep is the file's own
      const repeated = text(file).replace('{', '{"rope_theta": 1,');
      const files = { ...base, [file]: new TextEncoder().encode(file === 'config.json' ? repeated : repeated.replace('{"rope_theta": 1,', '{"x": 1, "x": 2,')) };
      await expect(openCheckpoint(new MemoryReader('dup', files))).rejects.toMatchObject({
        code: 'bad-checkpoint',
        message: expect.stringMatching(new RegExp(`^${file.replace('.', '\\.')} is refused: duplicate key "(rope_theta|x)" at the top level \\(line \\d+\\)$`)),
      });
    }
  });
});
