// Start-up of the `bcsim` binary. Node 20 keeps no compiled code between runs (its
// compile cache came in 22), so every start parsed and compiled the CLI again. The build
// bundles the CLI as CommonJS chunks (dist/cli/start.cjs and chunk-*.cjs, loaded on first
// use as the ESM chunks were) and records V8's code cache of each chunk by running the
// CLI (finish-bundle.ts); this loader compiles every chunk with its cache.
// V8 takes a cache only for the same source length, V8 version and flags, so there is
// one cache per set of node flags (the bin's heap cap is one). A missing or rejected
// cache costs only the compile it would have saved: V8 compiles as without one.
import type { Script } from 'node:vm';

// Built-ins through getBuiltinModule, not `import`: an ESM import of node:fs builds its
// ESM facade, which reads every export and so loads the streams.
const { existsSync, mkdirSync, readFileSync, writeFileSync } = process.getBuiltinModule('node:fs');
const { basename, join } = process.getBuiltinModule('node:path');
const { fileURLToPath } = process.getBuiltinModule('node:url');
const vm = process.getBuiltinModule('node:vm');
const { createRequire } = process.getBuiltinModule('node:module');

const CLI_URL = new URL('.', import.meta.url).href;
const CLI_DIR = fileURLToPath(CLI_URL);
/** The bundle's entry: start.ts as CommonJS. */
export const BUNDLE_ENTRY = join(CLI_DIR, 'start.cjs');
/** Set by finish-bundle.ts: at exit, write the cache of every chunk this process loaded. */
export const RECORD_ENV = 'BCSIM_RECORD_CODE_CACHE';
/** Set by a test: at exit, report any chunk export whose live binding no longer equals the loader's copy. */
export const CHECK_EXPORTS_ENV = 'BCSIM_CHECK_CHUNK_EXPORTS';

/** The folder of the caches that fit these node flags. */
export function cacheDir(execArgv: readonly string[] = process.execArgv): string {
  const key = execArgv.join(' ').replace(/[^\w.=-]+/g, '_').replace(/^-+/, '');
  return join(CLI_DIR, 'code-cache', key === '' ? 'no-flags' : key);
}

/** Runs the bundled CLI; false when the build made no bundle (tsc alone). */
export function runBundle(): boolean {
  if (!existsSync(BUNDLE_ENTRY)) return false;
  const caches = cacheDir();
  const nodeRequire = createRequire(BUNDLE_ENTRY);
  const modules = new Map<string, { exports: unknown }>();
  const scripts = new Map<string, Script>();
  // commander requires child_process when it loads, for executable subcommands (bcsim has
  // none), and child_process loads net, dgram and the streams: it gets the module on first use.
  const childProcess = new Proxy({}, { get: (_, key) => (nodeRequire('node:child_process') as Record<PropertyKey, unknown>)[key] });
  const builtin = (specifier: string): unknown => (specifier === 'node:child_process' ? childProcess : nodeRequire(specifier));
  // A test sets CHECK_EXPORTS_ENV: at exit, every copied export must still equal its live binding.
  const checkExports = process.env[CHECK_EXPORTS_ENV] !== undefined;
  const checked: Array<[string, object, object]> = [];
  if (checkExports) process.on('exit', () => reportChangedExports(checked));
  // The chunks require each other as './chunk-….cjs'; anything else is Node's (built-ins, tinypool).
  const load = (file: string): unknown => {
    const loaded = modules.get(file);
    if (loaded) return loaded.exports;
    const module = { exports: {} };
    modules.set(file, module);
    const name = basename(file);
    const script = compileChunk(file, join(caches, `${name}.cache`));
    scripts.set(name, script);
    const require = (specifier: string): unknown => (specifier.startsWith('./') ? load(join(CLI_DIR, specifier)) : builtin(specifier));
    // __bcsimModuleUrl stands for import.meta.url: the chunks sit in dist/cli/, where the ESM ones did.
    script.runInThisContext().call(module.exports, module.exports, require, module, file, CLI_DIR, `${CLI_URL}${name}`);
    const live = module.exports;
    module.exports = dataExports(live);
    if (checkExports) checked.push([name, live, module.exports]);
    return module.exports;
  };
  if (process.env[RECORD_ENV]) {
    process.on('exit', () => {
      mkdirSync(caches, { recursive: true });
      for (const [name, script] of scripts) writeFileSync(join(caches, `${name}.cache`), script.createCachedData());
    });
  }
  load(BUNDLE_ENTRY);
  return true;
}

/**
 * A chunk's exports as read-only data properties. esbuild's CommonJS exports are getters
 * through one shared closure (`__copyProps`: `() => from[key]`), so every use of an import
 * from another chunk was a megamorphic keyed load plus a call: ~6 % of a 4 h run, more
 * with --pcap, whose recorder calls the codec's chunk per packet. Once a chunk
 * has run, its exports are final: src/ exports only const, function and class bindings
 * (test/cli/data-exports.test.ts checks), and bundled packages set their `export var`s while
 * they load.
 * A chunk required while it is still loading (a cycle) hands out its getters, as before.
 */
function dataExports(exports: object): object {
  const out = {};
  for (const key of Object.getOwnPropertyNames(exports)) {
    const { enumerable } = Object.getOwnPropertyDescriptor(exports, key) as PropertyDescriptor;
    Object.defineProperty(out, key, { value: (exports as Record<string, unknown>)[key], enumerable, writable: false, configurable: false });
  }
  return out;
}

function reportChangedExports(checked: ReadonlyArray<[string, object, object]>): void {
  for (const [name, live, copy] of checked) {
    for (const key of Object.getOwnPropertyNames(live)) {
      if (!Object.is((live as Record<string, unknown>)[key], (copy as Record<string, unknown>)[key])) {
        process.stderr.write(`bcsim: ${name}: export ${key} changed after the chunk loaded\n`);
        process.exitCode = 70;
      }
    }
  }
}

/**
 * One chunk of the bundle, compiled with the code cache at `cache` if there is one. The build
 * wraps each chunk in `(function (exports, require, module, __filename, __dirname, __bcsimModuleUrl) {…})`
 * (package.json bundle:cli), so its text compiles as read, without a copy, at its own line numbers.
 * @public test/cli/code-cache.test.ts imports it from dist/ in a child process, where knip cannot see.
 */
export function compileChunk(file: string, cache: string): Script {
  // ASCII (esbuild escapes the rest; finish-bundle.ts checks), so latin1 reads it as is, without decoding.
  return new vm.Script(readFileSync(file, 'latin1'), { filename: file, cachedData: readCache(cache) });
}

function readCache(file: string): Buffer | undefined {
  try {
    return readFileSync(file);
  } catch {
    return undefined;
  }
}
