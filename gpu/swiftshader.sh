#!/usr/bin/env bash
# Runs a command with Dawn on SwiftShader's Vulkan: Debian's chromium package ships the ICD and a
# Vulkan loader in /usr/lib/chromium (SWIFTSHADER_DIR names another folder holding both).
set -euo pipefail
dir=${SWIFTSHADER_DIR:-/usr/lib/chromium}
if [ ! -f "$dir/vk_swiftshader_icd.json" ]; then
  echo "no SwiftShader Vulkan ICD in $dir (apt-get install chromium, or set SWIFTSHADER_DIR)" >&2
  exit 2
fi
export VK_ICD_FILENAMES="$dir/vk_swiftshader_icd.json"
export LD_LIBRARY_PATH="$dir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
exec "$@"
