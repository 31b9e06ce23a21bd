// The address (URL hash) of a screen: `#screen=<name>` and the screen's parameters, then the
// permalink of the setup (lib/permalink.ts: model, task, qseed, pseed, cond), so that a reload on
// any screen keeps Setup's fields, e.g.
//   #screen=question&run=<run id>&q=<question id>&model=builtin&task=builtin:arith-2d:20&…
// A hash without `screen=` is Setup's (its permalink alone) or a study link (lib/study-link.ts,
// `study=`). Screens' parameter names must not be the permalink's. The address is data: only the
// screen table (src/ui/screens.ts) gives it a meaning, and what it cannot read is named.

/** What an address names: a screen (null: none, so Setup or a study link) and its parameters. */
export interface Address {
  screen: string | null;
  params: URLSearchParams;
}

/** The longest hash read as an address: a study link's plan and a permalink, with room to spare
 *  (each has its own limit). */
const MAX_ADDRESS = 32_768;

export function readAddress(hash: string): Address {
  const raw = hash.startsWith('#') ? hash.slice(1) : hash;
  const params = new URLSearchParams(raw.length > MAX_ADDRESS ? '' : raw);
  const screen = params.get('screen');
  params.delete('screen');
  return { screen, params };
}

export function writeAddress(screen: string, params: Record<string, string> = {}): string {
  return `#${new URLSearchParams({ screen, ...params }).toString()}`;
}

/** Hashes as one address, in order ('' and '#' add nothing). */
export function joinAddress(...hashes: string[]): string {
  return `#${hashes.map((h) => h.replace(/^#/, '')).filter((h) => h !== '').join('&')}`;
}

/** The permalink part of an address (all but a study link's plan, which a permalink does not read
 *  and whose length it would refuse). */
export function permalinkPart(hash: string): string {
  const params = new URLSearchParams(hash.replace(/^#/, ''));
  params.delete('study');
  return `#${params.toString()}`;
}

type Window_ = Pick<Window, 'addEventListener' | 'removeEventListener'> & { location: { hash: string }; history: Pick<History, 'pushState' | 'replaceState'> };

/** The browser's address bar, kept in step with the screen shown. */
export class AddressBar {
  /** The address last written or seen. */
  private last: string;
  /** The route whose address was last written. */
  private shown: object | null = null;

  constructor(private readonly win: Window_) {
    this.last = win.location.hash;
  }

  /** Shows the address of the route now shown (any value standing for a screen and its parameters):
   *  a new step of the history when the person moved to another route (Back returns from it); in
   *  place of the current step when the same route changed (Setup's permalink follows its fields),
   *  on the first route, and on a route opened from its address (Back, a link). */
  show(route: object, address: string, fromAddress: boolean): void {
    const step = this.shown !== null && this.shown !== route && !fromAddress;
    this.shown = route;
    this.last = address;
    if (this.win.location.hash === address) return;
    if (step) this.win.history.pushState(null, '', address);
    else this.win.history.replaceState(null, '', address);
  }

  /** Calls `open` with the hash each time the person moves through the history (Back, Forward) or
   *  types or pastes another address into this tab: once per change, though the browser may send
   *  both popstate and hashchange for it. Returns the function that stops watching. */
  watch(open: (hash: string) => void): () => void {
    const onChange = () => {
      const now = this.win.location.hash;
      if (now === this.last) return;
      this.last = now;
      open(now);
    };
    this.win.addEventListener('popstate', onChange);
    this.win.addEventListener('hashchange', onChange);
    return () => {
      this.win.removeEventListener('popstate', onChange);
      this.win.removeEventListener('hashchange', onChange);
    };
  }
}
