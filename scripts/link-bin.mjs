// npm links the bins of dependencies but not of the root package itself, so after
// `npm ci` in a clone, `npx kserve-ts` would not find the command. Link it the way npm
// links dependency bins: node_modules/.bin/<name> -> the built entry, executable.
import { chmodSync, mkdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import path from 'node:path';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const pkg = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8'));
const binDir = path.join(root, 'node_modules', '.bin');
mkdirSync(binDir, { recursive: true });
for (const [name, target] of Object.entries(pkg.bin ?? {})) {
  const abs = path.join(root, target);
  chmodSync(abs, 0o755);
  const link = path.join(binDir, name);
  rmSync(link, { force: true });
  symlinkSync(path.relative(binDir, abs), link);
}
