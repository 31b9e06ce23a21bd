// The EP the engine's conformance specs load on: wasm (onnxruntime-web) unless REACHLAB_TEST_EP
// names cpu (onnxruntime-node from the native/ package), so the same specs, with the same bounds,
// check the native CPU provider (npm --prefix native run conformance; CI runs it).
import type { ExecutionProvider } from '../types.ts';

const TEST_EPS = ['wasm', 'cpu'] as const;

function testEp(): (typeof TEST_EPS)[number] {
  const v = process.env.REACHLAB_TEST_EP ?? 'wasm';
  if (!(TEST_EPS as readonly string[]).includes(v)) throw new Error(`REACHLAB_TEST_EP must be one of ${TEST_EPS.join(', ')}, got ${JSON.stringify(v)}`);
  return v as (typeof TEST_EPS)[number];
}

export const TEST_EP: ExecutionProvider = testEp();
