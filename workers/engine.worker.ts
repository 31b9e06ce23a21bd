// The engine's home in the browser: a module worker serving one in-process Engine over comlink.
import { createEngine } from '../src/engine/engine';
import { setOrtWasmPaths } from '../src/engine/ort';
import { exposeEngine } from '../src/engine/remote';

setOrtWasmPaths(`${import.meta.env.BASE_URL}ort/`);
exposeEngine(createEngine());
