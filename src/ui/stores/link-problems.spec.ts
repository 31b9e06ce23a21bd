// Issue 43: Setup lists the problems of the link opened last, never those of earlier links.
import { describe, expect, it } from 'vitest';
import { encodePermalink } from '../lib/permalink';
import { SCREENS } from '../screens';
import { TestBackend } from '../testing/test-backend';
import { AppState } from './app.svelte';

describe("Setup's link problems", () => {
  it('are those of the current link only: bad links pasted one after another do not accumulate', async () => {
    const app = new AppState(new TestBackend(), null, SCREENS);
    await app.openAddress('#screen=nowhere');
    expect(app.linkProblems).toEqual(['the link names no screen "nowhere"']);
    await app.openAddress('#screen=results&run=gone');
    expect(app.linkProblems).toEqual(['the link to Results cannot open: run "gone" is not in this browser\'s library']);
    await app.openAddress('#screen=elsewhere');
    expect(app.linkProblems).toEqual(['the link names no screen "elsewhere"']);
    // a good link clears them
    await app.openAddress(encodePermalink({}));
    expect(app.linkProblems).toEqual([]);
  });
});
