// Safetensors parsing: 8-byte little-endian header length n, n bytes of JSON header, then the
// data section; each tensor's data_offsets are relative to the data section (which starts at 8+n).
// Also the shard index (model.safetensors.index.json). Every malformed input is refused with a
// message naming the file and the tensor.

import { EngineError } from './types.ts';
import type { CheckpointReader } from './sources/reader.ts';
import { quote } from '../util/clip.ts';

/** Bytes per element of every dtype the safetensors format defines. */
export const SAFETENSORS_DTYPE_BYTES = {
  BOOL: 1, U8: 1, I8: 1, F8_E5M2: 1, F8_E4M3: 1,
  I16: 2, U16: 2, F16: 2, BF16: 2,
  I32: 4, U32: 4, F32: 4,
  I64: 8, U64: 8, F64: 8,
} as const;
export type SafetensorsDtype = keyof typeof SAFETENSORS_DTYPE_BYTES;
/** The float formats the engine loads (converted to f32 on load). */
export type WeightDtype = 'F32' | 'F16' | 'BF16';
export function isWeightDtype(d: string): d is WeightDtype {
  return d === 'F32' || d === 'F16' || d === 'BF16';
}

const MAX_HEADER_BYTES = 100 * 1024 * 1024;

export interface TensorEntry {
  name: string;
  dtype: SafetensorsDtype;
  shape: number[];
  file: string;
  /** Absolute byte offsets in the file: [start, end). */
  start: number;
  end: number;
}

export interface SafetensorsHeader {
  file: string;
  fileSize: number;
  /** Absolute offset of the data section (8 + header length). */
  dataStart: number;
  tensors: Map<string, TensorEntry>;
  metadata: Record<string, unknown> | null;
}

function bad(message: string): EngineError {
  return new EngineError('bad-checkpoint', message);
}

/** Reads and validates the header of one safetensors file (two small range reads). */
export async function readSafetensorsHeader(reader: CheckpointReader, file: string): Promise<SafetensorsHeader> {
  const fileSize = await reader.size(file);
  if (fileSize < 8) throw bad(`${file} is truncated: ${fileSize} bytes, shorter than the 8-byte header length`);
  const lenBytes = await reader.range(file, 0, 8);
  const n = new DataView(lenBytes.buffer, lenBytes.byteOffset, 8).getBigUint64(0, true);
  if (n > BigInt(MAX_HEADER_BYTES)) throw bad(`${file}: header length ${n} bytes is over the 100 MB limit`);
  const headerLen = Number(n);
  if (8 + headerLen > fileSize) {
    throw bad(`${file}: header length ${headerLen} runs past the end of the file (${fileSize} bytes): truncated or not safetensors`);
  }
  const headerBytes = await reader.range(file, 8, 8 + headerLen);
  return parseSafetensorsHeader(file, fileSize, headerBytes);
}

/** Validates a header's JSON bytes for a file of `fileSize` bytes. */
export function parseSafetensorsHeader(file: string, fileSize: number, headerBytes: Uint8Array): SafetensorsHeader {
  const dataStart = 8 + headerBytes.length;
  const dataSize = fileSize - dataStart;
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(headerBytes);
  } catch {
    throw bad(`${file}: header is not valid UTF-8`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text); // trailing space padding is valid JSON whitespace
  } catch (e) {
    throw bad(`${file}: header is not JSON (${(e as Error).message})`);
  }
  if (!json || typeof json !== 'object' || Array.isArray(json)) throw bad(`${file}: header is not a JSON object`);
  const dup = firstDuplicateTopLevelKey(text);
  if (dup !== null) throw bad(`${file}: tensor ${quote(dup)} is listed twice in the header`);

  const tensors = new Map<string, TensorEntry>();
  let metadata: Record<string, unknown> | null = null;
  for (const [name, raw] of Object.entries(json as Record<string, unknown>)) {
    if (name === '__metadata__') {
      if (!raw || typeof raw !== 'object' || Array.isArray(raw)) throw bad(`${file}: __metadata__ is not an object`);
      metadata = raw as Record<string, unknown>;
      continue;
    }
    tensors.set(name, parseEntry(file, name, raw, dataStart, dataSize));
  }

  // No two non-empty tensors may share bytes.
  const spans = [...tensors.values()].filter((t) => t.end > t.start).sort((a, b) => a.start - b.start);
  for (let i = 1; i < spans.length; i++) {
    if (spans[i].start < spans[i - 1].end) {
      throw bad(`${file}: tensors ${spans[i - 1].name} and ${spans[i].name} overlap (data offsets ${rel(spans[i - 1], dataStart)} and ${rel(spans[i], dataStart)})`);
    }
  }
  return { file, fileSize, dataStart, tensors, metadata };
}

function rel(t: TensorEntry, dataStart: number): string {
  return `[${t.start - dataStart}, ${t.end - dataStart}]`;
}

function parseEntry(file: string, name: string, raw: unknown, dataStart: number, dataSize: number): TensorEntry {
  const where = `${file}: tensor ${name}`;
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) throw bad(`${where} has no {dtype, shape, data_offsets} entry`);
  const { dtype, shape, data_offsets: offsets } = raw as Record<string, unknown>;
  if (typeof dtype !== 'string') throw bad(`${where} has no dtype`);
  if (!Object.hasOwn(SAFETENSORS_DTYPE_BYTES, dtype)) {
    throw new EngineError('unsupported-dtype', `${where} has dtype ${quote(dtype)}, which safetensors does not define (supported: F32, F16, BF16)`);
  }
  if (!Array.isArray(shape) || !shape.every((d) => Number.isSafeInteger(d) && d >= 0)) {
    throw bad(`${where} has shape ${quote(shape)}, not a list of non-negative integers`);
  }
  if (!Array.isArray(offsets) || offsets.length !== 2 || !offsets.every((o) => Number.isSafeInteger(o) && o >= 0) || offsets[0] > offsets[1]) {
    throw bad(`${where} has data_offsets ${quote(offsets)}, not [begin, end] with 0 <= begin <= end`);
  }
  const [begin, end] = offsets as [number, number];
  if (end > dataSize) {
    throw bad(`${where} has data_offsets [${begin}, ${end}] outside the data section (${dataSize} bytes): file truncated or header corrupt`);
  }
  const elements = (shape as number[]).reduce((a, b) => a * b, 1);
  const bytes = elements * SAFETENSORS_DTYPE_BYTES[dtype as SafetensorsDtype];
  if (bytes !== end - begin) {
    throw bad(`${where}: shape ${quote(shape)} × ${dtype} is ${bytes} bytes but data_offsets [${begin}, ${end}] span ${end - begin}`);
  }
  return { name, dtype: dtype as SafetensorsDtype, shape: shape as number[], file, start: dataStart + begin, end: dataStart + end };
}

/**
 * The first key that occurs twice at the top level of a (valid) JSON object text, or null.
 * JSON.parse keeps the last duplicate silently, so the keys are scanned here.
 */
export function firstDuplicateTopLevelKey(text: string): string | null {
  const seen = new Set<string>();
  let depth = 0;
  let expectKey = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '"') {
      let j = i + 1;
      while (text[j] !== '"') j += text[j] === '\\' ? 2 : 1;
      if (depth === 1 && expectKey) {
        const key = JSON.parse(text.slice(i, j + 1)) as string;
        if (seen.has(key)) return key;
        seen.add(key);
        expectKey = false;
      }
      i = j;
    } else if (c === '{' || c === '[') {
      depth++;
      expectKey = depth === 1 && c === '{';
    } else if (c === '}' || c === ']') {
      depth--;
    } else if (c === ',' && depth === 1) {
      expectKey = true;
    }
  }
  return null;
}

/** tensor name -> shard file, from model.safetensors.index.json. */
export function parseShardIndex(text: string, indexFile = 'model.safetensors.index.json'): Map<string, string> {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (e) {
    throw bad(`${indexFile} is not JSON (${(e as Error).message})`);
  }
  const weightMap = (json as { weight_map?: unknown } | null)?.weight_map;
  if (!weightMap || typeof weightMap !== 'object' || Array.isArray(weightMap)) throw bad(`${indexFile} has no weight_map object`);
  const map = new Map<string, string>();
  for (const [tensor, shard] of Object.entries(weightMap as Record<string, unknown>)) {
    if (typeof shard !== 'string' || shard.length === 0) throw bad(`${indexFile}: tensor ${tensor} maps to ${quote(shard)}, not a file name`);
    if (shard.includes('..') || shard.includes('/') || shard.includes('\\') || shard.includes('://')) {
      throw bad(`${indexFile}: refusing shard name ${quote(shard)} (for tensor ${tensor}): shard names may not contain "..", "/", "\\" or "://"`);
    }
    map.set(tensor, shard);
  }
  if (map.size === 0) throw bad(`${indexFile}: weight_map is empty`);
  return map;
}

export interface TensorToWrite {
  name: string;
  dtype: SafetensorsDtype;
  shape: number[];
  /** Raw little-endian element bytes, shape × dtype size long. */
  data: Uint8Array;
}

/** Writes a safetensors file (header padded with spaces to a multiple of 8, as the reference writer does). */
export function encodeSafetensors(tensors: TensorToWrite[], metadata?: Record<string, string>): Uint8Array {
  const header: Record<string, unknown> = {};
  if (metadata) header.__metadata__ = metadata;
  let offset = 0;
  for (const t of tensors) {
    header[t.name] = { dtype: t.dtype, shape: t.shape, data_offsets: [offset, offset + t.data.length] };
    offset += t.data.length;
  }
  let json = new TextEncoder().encode(JSON.stringify(header));
  const padded = Math.ceil(json.length / 8) * 8;
  if (padded !== json.length) json = new TextEncoder().encode(JSON.stringify(header) + ' '.repeat(padded - json.length));
  const out = new Uint8Array(8 + json.length + offset);
  new DataView(out.buffer).setBigUint64(0, BigInt(json.length), true);
  out.set(json, 8);
  let pos = 8 + json.length;
  for (const t of tensors) {
    out.set(t.data, pos);
    pos += t.data.length;
  }
  return out;
}
