// Imports off the page's thread: a module worker that reads, checks and stores one file at a time
// into the app's IndexedDB database (src/store/import-remote.ts).
import { exposeImporter } from '../src/store/import-remote';
import { IdbRunStore } from '../src/store/idb-store';

exposeImporter(() => IdbRunStore.open());
