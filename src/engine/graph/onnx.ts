// A small builder over onnx-proto: named values, initializers, nodes, and ModelProto encoding.
// Standard ops are stamped with opset 17 (≤ 20 keeps them on the WebGPU EP); com.microsoft is v1.
// Initializers of EXTERNAL_MIN_BYTES or more are stored as ONNX external data: the protobuf names
// a location and onnxruntime-web takes the bytes from SessionOptions.externalData, copying them
// once into the WASM heap (or uploading them to the GPU) — no serialized second copy of the weights.
// A builder may instead declare weights as graph inputs (WeightsAs 'inputs'): a graph of several
// layer slots then runs any layers whose weights a run feeds (graph/layer.ts, runtime/model.ts).
import onnxProto from 'onnx-proto';
import { f32ToF16 } from '../dtype.ts';

const { onnx } = onnxProto;
const DT = onnx.TensorProto.DataType;
const AT = onnx.AttributeProto.AttributeType;
/** ONNX TensorProto data type codes (Cast's `to`). */
export const ONNX_TYPE_CODE: Record<FloatType, number> = { float32: DT.FLOAT, float16: DT.FLOAT16 };

const ONNX_OPSET = 17;
/** Initializers this large or larger go out of the protobuf as external data. */
const EXTERNAL_MIN_BYTES = 1024;

/** An encoded model and the external data its initializers point to (SessionOptions.externalData). */
export interface BuiltGraph {
  bytes: Uint8Array;
  externalData: { path: string; data: Uint8Array }[];
}
export const MS_DOMAIN = 'com.microsoft';

export type ElemType = 'float32' | 'float16' | 'int32' | 'int64' | 'bool' | 'uint8' | 'int8';
/** The activation (and dense weight) type of a graph. */
export type FloatType = 'float32' | 'float16';
const ELEM: Record<ElemType, number> = {
  float32: DT.FLOAT,
  float16: DT.FLOAT16,
  int32: DT.INT32,
  int64: DT.INT64,
  bool: DT.BOOL,
  uint8: DT.UINT8,
  int8: DT.INT8,
};

/** A dimension: a fixed size or a symbolic name (batch, seq, ...). */
export type Dim = number | string;
export type AttrValue = number | number[] | string | { float: number };

/** How `GraphBuilder.weight` declares a weight: an initializer, or a graph input the runs feed. */
export type WeightsAs = 'initializers' | 'inputs';

/** A weight declared as a graph input, with the data a run feeds under its name. */
export interface WeightInput {
  name: string;
  type: ElemType;
  dims: number[];
  data: ArrayBufferView;
}

export class GraphBuilder {
  private readonly nodes: onnxProto.onnx.INodeProto[] = [];
  private readonly inits: onnxProto.onnx.ITensorProto[] = [];
  private readonly inputs: onnxProto.onnx.IValueInfoProto[] = [];
  private readonly outputs: onnxProto.onnx.IValueInfoProto[] = [];
  private readonly external = new Map<string, Uint8Array>();
  private readonly raw = new Map<string, Uint8Array>();
  private readonly weightInputs: WeightInput[] = [];
  private counter = 0;

  constructor(
    private readonly name: string,
    private readonly weightsAs: WeightsAs = 'initializers',
  ) {}

  input(name: string, type: ElemType, dims: Dim[]): string {
    this.inputs.push(valueInfo(name, type, dims));
    return name;
  }

  output(name: string, type: ElemType, dims: Dim[]): void {
    this.outputs.push(valueInfo(name, type, dims));
  }

  /** An initializer of raw little-endian bytes: inline when small, else external data under its name. */
  init(name: string, type: ElemType, dims: number[], data: ArrayBufferView): string {
    const bytes = new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
    this.raw.set(name, bytes);
    if (bytes.length < EXTERNAL_MIN_BYTES) this.inits.push({ name, dataType: ELEM[type], dims, rawData: bytes });
    else {
      this.external.set(name, bytes);
      this.inits.push({ name, dataType: ELEM[type], dims, ...externalRef(name, bytes.length) });
    }
    return name;
  }

  /** A model weight: an initializer, or with WeightsAs 'inputs' a graph input (see `weights`). */
  weight(name: string, type: ElemType, dims: number[], data: ArrayBufferView): string {
    if (this.weightsAs === 'initializers') return this.init(name, type, dims, data);
    this.weightInputs.push({ name, type, dims, data });
    return this.input(name, type, dims);
  }

  /** The weights declared as inputs so far, in declaration order. */
  weights(): WeightInput[] {
    return this.weightInputs.slice();
  }

  /** A second initializer over the bytes of initializer `of`, with other dims (onnxruntime loads it separately). */
  alias(name: string, type: ElemType, dims: number[], of: string): string {
    const bytes = this.raw.get(of);
    if (!bytes) throw new Error(`graph ${this.name}: no initializer ${of}`);
    this.inits.push({ name, dataType: ELEM[type], dims, ...(this.external.has(of) ? externalRef(of, bytes.length) : { rawData: bytes }) });
    return name;
  }

  /** A float initializer from f32 values, stored as `type` (f16 rounds to nearest even). */
  floats(name: string, type: FloatType, dims: number[], data: Float32Array): string {
    return this.init(name, type, dims, type === 'float16' ? f32ToF16(data) : data);
  }

  /** Adds a node; returns its output names (fresh names unless given). */
  node(op: string, inputs: string[], opts: { outputs?: string[] | number; attrs?: Record<string, AttrValue>; domain?: string } = {}): string[] {
    const outs = Array.isArray(opts.outputs)
      ? opts.outputs
      : Array.from({ length: opts.outputs ?? 1 }, () => `${op.toLowerCase()}_${this.counter++}`);
    this.nodes.push({
      opType: op,
      domain: opts.domain ?? '',
      input: inputs,
      output: outs,
      name: `${op}_${this.counter++}`,
      attribute: Object.entries(opts.attrs ?? {}).map(([k, v]) => attribute(k, v)),
    });
    return outs;
  }

  /** One-output shorthand. */
  op(op: string, inputs: string[], attrs?: Record<string, AttrValue>, domain?: string): string {
    return this.node(op, inputs, { attrs, domain })[0];
  }

  nodeCount(): number {
    return this.nodes.length;
  }

  build(): BuiltGraph {
    return { bytes: this.toBytes(), externalData: [...this.external].map(([path, data]) => ({ path, data })) };
  }

  /** The model protobuf (external initializers only named: see build()). */
  private toBytes(): Uint8Array {
    const model = onnx.ModelProto.create({
      irVersion: 8,
      producerName: 'reachlab',
      opsetImport: [
        { domain: '', version: ONNX_OPSET },
        { domain: MS_DOMAIN, version: 1 },
      ],
      graph: {
        name: this.name,
        node: this.nodes,
        initializer: this.inits,
        input: this.inputs,
        output: this.outputs,
      },
    });
    return onnx.ModelProto.encode(model).finish();
  }
}

function externalRef(location: string, length: number): onnxProto.onnx.ITensorProto {
  return {
    dataLocation: onnx.TensorProto.DataLocation.EXTERNAL,
    externalData: [
      { key: 'location', value: location },
      { key: 'offset', value: '0' },
      { key: 'length', value: String(length) },
    ],
  };
}

function valueInfo(name: string, type: ElemType, dims: Dim[]): onnxProto.onnx.IValueInfoProto {
  return {
    name,
    type: {
      tensorType: {
        elemType: ELEM[type],
        shape: { dim: dims.map((d) => (typeof d === 'number' ? { dimValue: d } : { dimParam: d })) },
      },
    },
  };
}

function attribute(name: string, v: AttrValue): onnxProto.onnx.IAttributeProto {
  if (typeof v === 'string') return { name, type: AT.STRING, s: new TextEncoder().encode(v) };
  if (Array.isArray(v)) return { name, type: AT.INTS, ints: v };
  if (typeof v === 'object') return { name, type: AT.FLOAT, f: v.float };
  return { name, type: AT.INT, i: v };
}
