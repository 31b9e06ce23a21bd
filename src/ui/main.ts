import { mount } from 'svelte';
import App from './App.svelte';
import { createBackend } from './backend-factory';
import { AddressBar } from './lib/address';
import { registerOfflineWorker } from './offline/register.svelte';
import { AppState } from './stores/app.svelte';
import './styles.css';

function storage(): Storage | null {
  try {
    return window.localStorage;
  } catch {
    return null; // storage disabled: preferences last for the page
  }
}

const target = document.getElementById('app')!;

createBackend(new URL(location.href)).then(
  async ({ backend, scripted }) => {
    const app = new AppState(backend, storage());
    // The address opens its screen (#screen=…, lib/address.ts) with Setup filled from its permalink
    // part; #study=… opens the Study screen with the link's plan in the editor (not started).
    await app.openFirst(location.hash).catch((e: unknown) => app.fail(e));
    // Back, Forward, and an address pasted into this open tab (a #study= link changes only the hash)
    const addressBar = new AddressBar(window);
    addressBar.watch((h) => void app.openAddress(h));
    void app.init();
    // A promise nobody awaited still reaches the person, as a message.
    window.addEventListener('unhandledrejection', (e) => app.fail(e.reason));
    for (const event of ['online', 'offline']) window.addEventListener(event, () => app.setOnline(navigator.onLine));
    mount(App, { target, props: { app, scripted, addressBar } });
    registerOfflineWorker(() => app.setup.firstLoadSettled);
  },
  (e: unknown) => {
    // Never a blank page: say what failed, as text.
    const box = document.createElement('div');
    box.className = 'message error';
    box.setAttribute('role', 'alert');
    box.dataset.testid = 'startup-error';
    const title = document.createElement('p');
    title.textContent = 'ReachLab could not start.';
    const detail = document.createElement('pre');
    detail.textContent = e instanceof Error ? e.message : String(e);
    box.append(title, detail);
    target.replaceChildren(box);
  },
);
