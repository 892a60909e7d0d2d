/**
 * The house's shape as the imports draw it (test/helpers/import-graph.ts): circular imports
 * fail the build (STYLE.md), and the dependency directions of docs/architecture.md hold.
 * A failure names the files and the imports that break the rule.
 */
import { describe, expect, it } from 'vitest';
import { importCycles, importGraph, importsBetween } from './helpers/import-graph.js';
import { ROOT } from './helpers/server.js';

const graph = importGraph(ROOT);
const TESTS = /\.test(?:-[\w-]+)?\.ts$|\.test-[\w-]+\.ts$/;
/** The product's files only: a test may reach across rooms to set a case up. */
const product = new Map([...graph].filter(([file]) => !TESTS.test(file) && !file.startsWith('test/')));

describe('the import graph', () => {
  it('reads the project: the server entry imports the SDK face, which imports the custom backend', () => {
    expect(graph.get('server/sdk/index.ts')).toContain('server/backends/custom/model.ts');
    expect(graph.size).toBeGreaterThan(300);
  });

  it('finds a circle where there is one (the check checks)', () => {
    const circle = new Map([
      ['a.ts', new Set(['b.ts'])],
      ['b.ts', new Set(['c.ts'])],
      ['c.ts', new Set(['a.ts', 'd.ts'])],
      ['d.ts', new Set<string>()],
      ['e.ts', new Set(['e.ts'])],
    ]);
    expect(importCycles(circle)).toEqual([['a.ts', 'b.ts', 'c.ts'], ['e.ts']]);
  });

  it('has no circular imports', () => {
    expect(importCycles(graph)).toEqual([]);
  });

  it.each([
    ['transports never import backends', ['server/http/', 'server/grpc/'], ['server/backends/']],
    ['backends never import transports', ['server/backends/'], ['server/http/', 'server/grpc/']],
    [
      'the backend contract (server/backend/) imports no repository, backend, pipeline or transport',
      ['server/backend/'],
      ['server/repository/', 'server/backends/', 'server/pipeline/', 'server/http/', 'server/grpc/'],
    ],
    ['the SDK face (server/sdk/) is imported by no other part of the server', ['server/', 'protocols/', 'cli/'], ['server/sdk/'], ['server/sdk/']],
    ['the predictor clients import no backend and no SDK', ['server/predictor-client/'], ['server/backends/', 'server/sdk/']],
    ['storage-initializer and controller import nothing from server or protocols', ['storage-initializer/', 'controller/'], ['server/', 'protocols/']],
    ['protocols import nothing from the programs', ['protocols/'], ['server/', 'storage-initializer/', 'controller/', 'cli/']],
    [
      'the graph router (router/) imports no backend, SDK or controller: it talks to predictors through their clients',
      ['router/'],
      ['server/backends/', 'server/sdk/', 'controller/'],
    ],
    ['cli/ imports nothing of the programs', ['cli/'], ['server/', 'protocols/', 'storage-initializer/', 'controller/']],
  ])('%s', (_rule, from, to, besides: readonly string[] = []) => {
    const importers = new Map([...product].filter(([file]) => !besides.some((b) => file.startsWith(b))));
    expect(importsBetween(importers, from, to)).toEqual([]);
  });
});
