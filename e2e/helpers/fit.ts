// What does not fit the viewport, as e2e tests of every screen check it (issue 21).
import type { Page } from '@playwright/test';

/** What does not fit the viewport: the page's own width, controls cut off or overflowing their box. */
export async function fitProblems(page: Page, tablesMustFit: boolean): Promise<string[]> {
  return page.evaluate((tables) => {
    const problems: string[] = [];
    const vw = document.documentElement.clientWidth;
    if (document.documentElement.scrollWidth > vw) problems.push(`page is ${document.documentElement.scrollWidth} px wide in a ${vw} px viewport`);
    // shown: laid out, and not inside a box visually hidden for screen readers (1 px, overflow hidden)
    const hiddenBox = (el: Element | null): boolean => {
      for (let a = el; a; a = a.parentElement) {
        const r = a.getBoundingClientRect();
        if (getComputedStyle(a).overflow === 'hidden' && r.width <= 1 && r.height <= 1) return true;
      }
      return false;
    };
    const visible = (el: Element) => (el as HTMLElement).offsetParent !== null && !hiddenBox(el);
    for (const el of document.querySelectorAll('button, select, input:not([type=file]), a.button-like, label.button-like')) {
      if (!visible(el)) continue;
      const r = el.getBoundingClientRect();
      const name = (el.textContent ?? '').trim().slice(0, 40) || el.getAttribute('data-testid') || el.tagName;
      if (r.right > vw + 1 || r.left < -1) problems.push(`"${name}" reaches past the viewport (${Math.round(r.left)}–${Math.round(r.right)} px)`);
      if (el.tagName === 'BUTTON' && el.scrollWidth > el.clientWidth + 1) problems.push(`"${name}" is clipped (${el.scrollWidth} px of text in ${el.clientWidth} px)`);
    }
    if (tables) {
      for (const wrap of document.querySelectorAll('.table-wrap')) {
        if (visible(wrap) && wrap.scrollWidth > wrap.clientWidth + 1) {
          problems.push(`table "${wrap.querySelector('caption')?.textContent?.trim().slice(0, 40) ?? '?'}" scrolls sideways (${wrap.scrollWidth} px in ${wrap.clientWidth} px)`);
        }
      }
    }
    return problems;
  }, tablesMustFit);
}
