// @vitest-environment jsdom
import { describe, expect, it } from 'vitest';
import { AddressBar, readAddress, writeAddress } from './address';

/** The next popstate of this window (jsdom moves through the history asynchronously). */
const popped = () => new Promise<void>((resolve) => window.addEventListener('popstate', () => setTimeout(resolve, 0), { once: true }));

describe('address', () => {
  it('writes a screen and its parameters, and reads them back', () => {
    const hash = writeAddress('question', { run: 'run 1/2', q: 'a&b' });
    expect(hash).toBe('#screen=question&run=run+1%2F2&q=a%26b');
    const { screen, params } = readAddress(hash);
    expect([screen, params.get('run'), params.get('q')]).toEqual(['question', 'run 1/2', 'a&b']);
  });

  it('reads a hash without a screen (a Setup permalink, a study link, nothing) as none', () => {
    for (const hash of ['', '#', '#model=builtin&qseed=1', '#study=e30']) expect(readAddress(hash).screen).toBeNull();
    expect(readAddress(`#screen=library&x=${'a'.repeat(40_000)}`).screen).toBeNull();
  });

  it('steps the history on a move to another route, rewrites it otherwise, and hears Back once', async () => {
    history.replaceState(null, '', '#');
    const bar = new AddressBar(window);
    const heard: string[] = [];
    const stop = bar.watch((h) => heard.push(h));
    const setup = {}, library = {}, question = {};
    bar.show(setup, '#model=builtin', false); // the first route: in place
    bar.show(setup, '#model=builtin&qseed=2', false); // the same route, changed: in place
    bar.show(library, '#screen=library', false);
    bar.show(question, '#screen=question&run=r&q=1', false);
    expect(history.length).toBe(3);
    expect(heard).toEqual([]); // what the app writes is no move of the person's

    let back = popped();
    history.back();
    await back;
    expect(location.hash).toBe('#screen=library');
    back = popped();
    history.back();
    await back;
    expect(location.hash).toBe('#model=builtin&qseed=2');
    // once per move, though the browser sends popstate and hashchange for it
    expect(heard).toEqual(['#screen=library', '#model=builtin&qseed=2']);

    // a route opened from its address (as Back just did) keeps its step: no new one
    bar.show({}, '#model=builtin&qseed=2', true);
    expect(history.length).toBe(3);
    // a pasted address is heard too
    location.hash = '#screen=help';
    await new Promise((r) => setTimeout(r, 0));
    expect(heard.at(-1)).toBe('#screen=help');
    stop();
  });
});
