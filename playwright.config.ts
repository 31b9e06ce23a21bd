import { defineConfig } from '@playwright/test';

// Debian's Chromium runs WebGPU headless on SwiftShader with these flags (docs/ARCHITECTURE.md "Tests").
export const CHROMIUM_ARGS = [
  '--headless=new',
  '--no-sandbox',
  '--enable-unsafe-webgpu',
  '--enable-features=Vulkan',
  '--use-webgpu-adapter=swiftshader',
  '--disable-vulkan-surface',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];

const PORT = Number(process.env.E2E_PORT ?? 4173);
/** A stand-in Hugging Face Hub on another origin: the reference checkpoints, one of them gated. */
export const HUB_PORT = Number(process.env.E2E_HUB_PORT ?? 8788);
export const HUB_TOKEN = 'hf_e2e_token';
const refs = ['tiny-qwen2', 'tiny-llama', 'tiny-qwen3'];
const hubArgs = [
  ...refs.map((r) => `--map reference/${r}=test/fixtures/reference/${r}`),
  '--map reference/gated-qwen2=test/fixtures/reference/tiny-qwen2',
  `--token ${HUB_TOKEN} --gated reference/gated-qwen2`,
].join(' ');

export default defineConfig({
  testDir: 'e2e',
  testMatch: '**/*.e2e.ts',
  timeout: 300_000,
  expect: { timeout: 60_000 },
  fullyParallel: false,
  workers: 1,
  reporter: [['list']],
  outputDir: 'test-results',
  use: {
    baseURL: `http://127.0.0.1:${PORT}`,
    headless: true,
    launchOptions: { executablePath: '/usr/bin/chromium', args: CHROMIUM_ARGS },
  },
  webServer: [
    {
      command: `npx vite preview --host 127.0.0.1 --port ${PORT} --strictPort --bypass-lock`,
      url: `http://127.0.0.1:${PORT}`,
      reuseExistingServer: !process.env.CI,
      timeout: 60_000,
    },
    {
      command: `npx tsx test/hub-server.ts --host 127.0.0.1 --port ${HUB_PORT} ${hubArgs}`,
      url: `http://127.0.0.1:${HUB_PORT}/reference/tiny-qwen2/resolve/main/config.json`,
      reuseExistingServer: !process.env.CI,
      timeout: 60_000,
    },
  ],
});
