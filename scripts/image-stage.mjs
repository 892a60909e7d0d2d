#!/usr/bin/env node
// Stages one image's build context from the host's compiled dist/ and a node_modules
// installed from package-lock.json (scripts/build-images.sh makes both):
//
//   node scripts/image-stage.mjs <server|storage-initializer|controller|router> <node_modules> <out-dir>
//
// What goes in is derived, not listed: the compiled files reachable from the image's entry
// point (static imports and literal dynamic imports), and the npm packages those files import,
// closed over their dependencies as installed in that tree (each package's package.json,
// found where Node finds it: the tree is npm ci's, plus what scripts/build-tfjs-node.sh added).
// A package added to the code is picked up by the next build; a package no longer imported
// drops out. Then everything the platform
// and Node never load is pruned: other platforms' native binaries, source maps, type
// declarations and browser bundles (licence files stay).
import fs from 'node:fs';
import path from 'node:path';
import { builtinModules } from 'node:module';

// The server images also carry the SDK entry (the package's `exports`): an image built FROM
// them with a `--model_module` under /app imports `kserve-ts` by its own name (see SDK_IMAGES).
const ENTRIES = {
  server: ['dist/bin/kserve-ts.js', 'dist/server/sdk/index.js'],
  // The server plus the native TensorFlow binding (tfjs-node on libtensorflow) for SavedModels;
  // staged from a tree where scripts/build-tfjs-node.sh has installed the binding.
  'server-tensorflow': ['dist/bin/kserve-ts.js', 'dist/server/sdk/index.js'],
  'storage-initializer': ['dist/bin/storage-initializer.js'],
  controller: ['dist/bin/controller.js'],
  router: ['dist/bin/router.js'],
};
// The server image serves; its `kserve-ts controller` subcommand is the controller image's
// job, so its dynamic import is not followed. The storage-initializer is followed: the model
// puller (--model_config_file, server/puller/) downloads through its engine and providers.
const NOT_FOLLOWED = {
  server: ['dist/controller/'],
  'server-tensorflow': ['dist/controller/'],
};

const [target, prodModules, outDir] = process.argv.slice(2);
if (!target || !(target in ENTRIES) || !prodModules || !outDir) {
  console.error(`usage: image-stage.mjs <${Object.keys(ENTRIES).join('|')}> <node_modules> <out-dir>`);
  process.exit(2);
}
const root = process.cwd();
const prodRoot = path.join(prodModules, '..');
const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));
// What the code may import: its dependencies, and the optional features (package.json's
// optional peerDependencies: onnxruntime-node, TensorFlow, the cloud storage SDKs, the
// Kubernetes client), which are this repository's devDependencies so that a project
// installing kserve-ts gets only what it asks for. Anything else an image imports is a mistake.
const runtimePackages = new Set([...Object.keys(pkg.dependencies ?? {}), ...Object.keys(pkg.peerDependencies ?? {})]);
const builtins = new Set(builtinModules);

const IMPORT = /(?:\bfrom\s*|\bimport\s*\(\s*|\bimport\s+|\brequire\s*\(\s*)['"]([^'"]+)['"]/g;
// Files a module opens beside itself: worker entries (server/workers/worker-entry.ts) and assets
// located with `new URL('./x', import.meta.url)` (the .proto files).
const WORKER = /\bspawnWorker\(\s*import\.meta\.url,\s*['"]([^'"]+)['"]/g;
const SIBLING = /\bnew URL\(\s*['"](\.\/[^'"]+)['"],\s*import\.meta\.url\s*\)/g;
// Worker threads started from a compiled sibling: `new Worker(new URL('./x.js', base))`
// (storage-initializer/hash-pool.ts, whose base is import.meta.url held in a variable).
const WORKER_URL = /\bnew Worker\(\s*new URL\(\s*['"](\.\/[^'"]+\.js)['"]/g;
// Packages loaded through a name held in a constant, which the trace cannot see.
const EXTRA_PACKAGES = {
  'server-tensorflow': ['@tensorflow/tfjs-node'], // server/backends/tensorflow/tf-native.ts (TFJS_NODE)
};
// A bare specifier that names an npm package (the regexes above also see words in strings).
const PACKAGE_SPEC = /^(@[a-z0-9][\w.-]*\/)?[a-z0-9][\w.-]*(\/[\w./-]*)?$/;
// Imported only on paths a production image never takes.
const DEV_ONLY = new Set([
  'tsx', // registered in worker threads only when the server runs from TypeScript sources
]);

/** Compiled files reachable from the entries, and the bare specifiers they import. */
function traceDist() {
  const files = new Set();
  const packages = new Set();
  const queue = [...ENTRIES[target]];
  const skip = NOT_FOLLOWED[target] ?? [];
  while (queue.length > 0) {
    const rel = queue.pop();
    if (files.has(rel) || skip.some((p) => rel.startsWith(p))) continue;
    const abs = path.join(root, rel);
    if (!fs.existsSync(abs)) throw new Error(`${rel} is imported but not built (run npm run build)`);
    files.add(rel);
    if (!rel.endsWith('.js')) continue;
    const text = fs.readFileSync(abs, 'utf8');
    for (const m of text.matchAll(WORKER)) queue.push(path.relative(root, path.resolve(path.dirname(abs), `${m[1]}.js`)));
    for (const m of text.matchAll(SIBLING)) queue.push(path.relative(root, path.resolve(path.dirname(abs), m[1])));
    for (const m of text.matchAll(WORKER_URL)) queue.push(path.relative(root, path.resolve(path.dirname(abs), m[1])));
    for (const m of text.matchAll(IMPORT)) {
      const spec = m[1];
      if (spec.startsWith('.')) {
        queue.push(path.relative(root, path.resolve(path.dirname(abs), spec)));
      } else if (PACKAGE_SPEC.test(spec) && !spec.startsWith('node:') && !builtins.has(spec)) {
        const parts = spec.split('/');
        const name = spec.startsWith('@') ? `${parts[0]}/${parts[1]}` : parts[0];
        // The package's own name is a self-reference (cli/optional-package.ts reads its
        // package.json that way), never an installed package.
        if (!DEV_ONLY.has(name) && name !== pkg.name) packages.add(name);
      }
    }
  }
  return { files, packages };
}

/** The install path of `name` as required from the install path `from` ('' = the app), in Node's lookup order. */
function resolveInstall(name, from) {
  let dir = from;
  for (;;) {
    const candidate = dir === '' ? `node_modules/${name}` : `${dir}/node_modules/${name}`;
    if (fs.existsSync(path.join(prodRoot, candidate, 'package.json'))) return candidate;
    if (dir === '') return undefined;
    const idx = dir.lastIndexOf('/node_modules/');
    dir = idx < 0 ? '' : dir.slice(0, idx);
  }
}

/** Every install path needed by the root packages, through their dependencies as installed. */
function closure(rootPackages) {
  const seen = new Set();
  const queue = [];
  for (const name of rootPackages) {
    if (!runtimePackages.has(name)) throw new Error(`${name} is imported but is neither a dependency nor an optional peer dependency in package.json`);
    const at = resolveInstall(name, '');
    if (!at) throw new Error(`${name} is imported but not installed in ${prodModules}`);
    queue.push(at);
  }
  while (queue.length > 0) {
    const at = queue.pop();
    if (seen.has(at)) continue;
    seen.add(at);
    const manifest = JSON.parse(fs.readFileSync(path.join(prodRoot, at, 'package.json'), 'utf8'));
    const deps = { ...manifest.dependencies, ...manifest.optionalDependencies, ...manifest.peerDependencies };
    for (const dep of Object.keys(deps)) {
      const child = resolveInstall(dep, at);
      // Optional and peer dependencies the install left out stay out.
      if (child) queue.push(child);
    }
  }
  return [...seen].sort();
}

const PRUNED_FILE = /\.(map|d\.ts|d\.cts|d\.mts|tsbuildinfo)$|^(README|CHANGELOG|HISTORY)(\.\w+)?$/i;

function copyPruned(from, to) {
  fs.mkdirSync(to, { recursive: true });
  for (const e of fs.readdirSync(from, { withFileTypes: true })) {
    const src = path.join(from, e.name);
    const dst = path.join(to, e.name);
    if (e.isDirectory()) {
      if (e.name === 'node_modules') continue; // nested installs are copied as their own entries
      copyPruned(src, dst);
    } else if (e.isSymbolicLink()) {
      fs.symlinkSync(fs.readlinkSync(src), dst);
    } else if (!PRUNED_FILE.test(e.name)) {
      fs.copyFileSync(src, dst);
    }
  }
}

/** Per-package pruning of what Node on this platform never loads. */
const PACKAGE_PRUNE = {
  // Native binaries for every OS and CPU: keep this platform's.
  'onnxruntime-node': (dir) => {
    const bin = path.join(dir, 'bin', 'napi-v6');
    for (const os of fs.readdirSync(bin)) {
      for (const arch of fs.readdirSync(path.join(bin, os))) {
        if (os !== process.platform || arch !== process.arch) fs.rmSync(path.join(bin, os, arch), { recursive: true });
      }
      if (fs.readdirSync(path.join(bin, os)).length === 0) fs.rmSync(path.join(bin, os), { recursive: true });
    }
  },
  // UMD/ES bundles for browsers and mini-programs; Node loads `main` (dist/tf.node.js) only.
  '@tensorflow/tfjs': (dir) => {
    const dist = path.join(dir, 'dist');
    const main = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8')).main;
    for (const f of fs.readdirSync(dist)) {
      const rel = `dist/${f}`;
      if (rel === main) continue;
      if (f === 'miniprogram' || /^tf\.(min|es2017|fesm)/.test(f) || f === 'tf.js') fs.rmSync(path.join(dist, f), { recursive: true });
    }
  },
};

const { files, packages } = traceDist();
for (const name of EXTRA_PACKAGES[target] ?? []) {
  if (!fs.existsSync(path.join(prodModules, name))) throw new Error(`${name} is not installed in ${prodModules}`);
  packages.add(name);
}
const installs = closure(packages);
fs.rmSync(outDir, { recursive: true, force: true });
for (const rel of files) {
  fs.mkdirSync(path.join(outDir, path.dirname(rel)), { recursive: true });
  fs.copyFileSync(path.join(root, rel), path.join(outDir, rel));
}
// The CRDs the controller applies with --install-crds (controller/install-crds.ts finds
// controller/crds above its own module).
if (target === 'controller') {
  fs.mkdirSync(path.join(outDir, 'controller/crds'), { recursive: true });
  for (const f of fs.readdirSync(path.join(root, 'controller/crds'))) fs.copyFileSync(path.join(root, 'controller/crds', f), path.join(outDir, 'controller/crds', f));
}
for (const at of installs) {
  copyPruned(path.join(prodRoot, at), path.join(outDir, at));
  const name = at.slice(at.lastIndexOf('node_modules/') + 'node_modules/'.length);
  PACKAGE_PRUNE[name]?.(path.join(outDir, at));
}
// In the server images /app is the `kserve-ts` package itself, so a model module copied under
// /app resolves `import ... from 'kserve-ts'` (package self-reference) to the server's own SDK.
const SDK_IMAGES = new Set(['server', 'server-tensorflow']);
const staged = SDK_IMAGES.has(target)
  ? { name: pkg.name, version: pkg.version, private: true, type: 'module', license: pkg.license, exports: { '.': './dist/server/sdk/index.js' } }
  : { name: `kserve-ts-${target}`, version: pkg.version, private: true, type: 'module', license: pkg.license };
fs.writeFileSync(path.join(outDir, 'package.json'), `${JSON.stringify(staged, null, 2)}\n`);
console.error(`[image-stage] ${target}: ${files.size} compiled files, ${installs.length} packages (${[...packages].sort().join(', ')})`);
