#!/usr/bin/env bash
# ReachLab's GPU check (made by `npm run bench:gpu -- --pack DIR`): bash run.sh OUTDIR [bench options]
# Needs x86-64 Linux, an NVIDIA driver with Vulkan, and python3 with torch (CUDA) and transformers
# (PYTHON names another interpreter); no network. Writes OUTDIR/bench-gpu.json and prints a table.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${1:?usage: bash run.sh OUTDIR [bench options]}
shift
mkdir -p "$out"
out=$(cd "$out" && pwd)
py=${PYTHON:-python3}
"$py" "$here/unpack.py" "$here" "$out/pack"
# the system's Vulkan loader where there is one, else the one carried here
if ! ldconfig -p 2>/dev/null | grep -q 'libvulkan\.so\.1 '; then
  export LD_LIBRARY_PATH="$out/pack/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
fi
# NVIDIA's ICD where GPU containers mount it, outside the loader's default folders
if [ -z "${VK_ICD_FILENAMES:-}" ] && [ -f /usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json ]; then
  export VK_ICD_FILENAMES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
fi
exec "$out/pack/node" "$out/pack/bench.mjs" --out "$out" --work "$out/work" --python "$py" \
  --fixtures "$out/pack/reference" --torch-side "$out/pack/torch_side.py" "$@"
