import { mount } from 'svelte';
import App from './App.svelte';
import { createBackend } from './backend-factory';
import { parsePermalink } from './lib/permalink';
import { parseStudyLink, watchStudyLinks } from './lib/study-link';
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
  ({ backend, scripted }) => {
    const app = new AppState(backend, storage());
    // #study=… opens the Study screen with the link's plan in the editor (not started); any other
    // hash is a run permalink for Setup.
    const studyLink = parseStudyLink(location.hash);
    if (studyLink) {
      app.study.applyLink(studyLink);
      app.go('study');
    } else app.linkProblems = app.setup.applyPermalink(parsePermalink(location.hash));
    // a #study= link pasted into this open tab changes only the hash
    watchStudyLinks(window, () => location.hash, (link) => {
      app.study.applyLink(link);
      app.go('study');
    });
    void app.init();
    // A promise nobody awaited still reaches the person, as a message.
    window.addEventListener('unhandledrejection', (e) => app.fail(e.reason));
    for (const event of ['online', 'offline']) window.addEventListener(event, () => app.setOnline(navigator.onLine));
    mount(App, { target, props: { app, scripted } });
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
