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
 * One chunk of the bundle, compiled with the code cache at `cache` if there is one. The build
 * wraps each chunk in `(function (exports, require, module, __filename, __dirname, __bcsimModuleUrl) {…})`
 * (package.json bundle:cli), so its text compiles as read, without a copy, at its own line numbers.
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
