// Display preferences, kept in localStorage: large text for projectors.

const KEY = 'reachlab.prefs.v1';

export class Prefs {
  largeText = $state(false);
  readonly storage: Pick<Storage, 'getItem' | 'setItem'> | null;

  constructor(storage: Pick<Storage, 'getItem' | 'setItem'> | null) {
    this.storage = storage;
    try {
      const saved = JSON.parse(storage?.getItem(KEY) ?? 'null');
      if (saved && typeof saved.largeText === 'boolean') this.largeText = saved.largeText;
    } catch {
      // unreadable preferences fall back to defaults
    }
  }

  setLargeText(on: boolean): void {
    this.largeText = on;
    try {
      this.storage?.setItem(KEY, JSON.stringify({ largeText: on }));
    } catch {
      // storage full or disabled: the preference lasts for this page only
    }
  }
}
