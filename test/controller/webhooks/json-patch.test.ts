import { describe, expect, it } from 'vitest';
import { applyPatch, diff, JsonPatchError, type JsonPatchOperation } from '../../../controller/webhooks/json-patch.js';

describe('diff', () => {
  it.each<[string, unknown, unknown, JsonPatchOperation[]]>([
    ['equal documents', { a: 1, b: [1, { c: 'x' }] }, { a: 1, b: [1, { c: 'x' }] }, []],
    ['added key', { a: 1 }, { a: 1, b: { c: 2 } }, [{ op: 'add', path: '/b', value: { c: 2 } }]],
    ['removed key', { a: 1, b: 2 }, { a: 1 }, [{ op: 'remove', path: '/b' }]],
    ['replaced scalar', { a: 1 }, { a: '1' }, [{ op: 'replace', path: '/a', value: '1' }]],
    ['object becomes array', { a: {} }, { a: [] }, [{ op: 'replace', path: '/a', value: [] }]],
    ['null to value', { a: null }, { a: 0 }, [{ op: 'replace', path: '/a', value: 0 }]],
    [
      'appended elements',
      { l: [1] },
      { l: [1, 2, 3] },
      [
        { op: 'add', path: '/l/1', value: 2 },
        { op: 'add', path: '/l/2', value: 3 },
      ],
    ],
    [
      'removed tail, highest index first',
      { l: [1, 2, 3] },
      { l: [1] },
      [
        { op: 'remove', path: '/l/2' },
        { op: 'remove', path: '/l/1' },
      ],
    ],
    ['nested change inside an element', { l: [{ n: 'a', v: 1 }] }, { l: [{ n: 'a', v: 2 }] }, [{ op: 'replace', path: '/l/0/v', value: 2 }]],
    [
      'keys with / and ~ are escaped (RFC 6901)',
      { metadata: { annotations: {} } },
      { metadata: { annotations: { 'serving.kserve.io/x~y': 'v' } } },
      [{ op: 'add', path: '/metadata/annotations/serving.kserve.io~1x~0y', value: 'v' }],
    ],
    ['undefined members count as absent', { a: 1, b: undefined }, { a: 1, c: undefined }, []],
    ['root scalar', 1, 2, [{ op: 'replace', path: '', value: 2 }]],
  ])('%s', (_name, from, to, ops) => {
    expect(diff(from, to)).toEqual(ops);
    expect(applyPatch(from, ops)).toEqual(JSON.parse(JSON.stringify(to)));
  });

  it('round-trips random documents: apply(diff(a, b), a) equals b', () => {
    let seed = 42;
    const rand = (n: number): number => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    const value = (depth: number): unknown => {
      const kind = rand(depth > 2 ? 4 : 6);
      if (kind === 0) return rand(5);
      if (kind === 1) return ['a', 'b/c', 'd~e'][rand(3)];
      if (kind === 2) return null;
      if (kind === 3) return rand(2) === 0;
      if (kind === 4) return Array.from({ length: rand(4) }, () => value(depth + 1));
      return Object.fromEntries(Array.from({ length: rand(4) }, () => [['k', 'x/y', 'z~', 'w'][rand(4)] as string, value(depth + 1)]));
    };
    for (let i = 0; i < 500; i++) {
      const a = value(0);
      const b = value(0);
      expect(applyPatch(a, diff(a, b))).toEqual(b);
    }
  });

  it('does not modify its inputs', () => {
    const a = { l: [1, 2] };
    const b = { l: [1], m: { x: 1 } };
    const ops = diff(a, b);
    applyPatch(a, ops);
    expect(a).toEqual({ l: [1, 2] });
    expect(b).toEqual({ l: [1], m: { x: 1 } });
  });
});

describe('applyPatch', () => {
  it('supports the end-of-array token', () => {
    expect(applyPatch({ l: [1] }, [{ op: 'add', path: '/l/-', value: 2 }])).toEqual({ l: [1, 2] });
  });

  it.each<[string, unknown, JsonPatchOperation]>([
    ['missing parent', { a: {} }, { op: 'add', path: '/b/c', value: 1 }],
    ['replacing a missing key', { a: 1 }, { op: 'replace', path: '/b', value: 1 }],
    ['index out of range', { l: [] }, { op: 'remove', path: '/l/0' }],
    ['non-numeric index', { l: [1] }, { op: 'replace', path: '/l/x', value: 1 }],
    ['removing the root', {}, { op: 'remove', path: '' }],
  ])('rejects %s', (_name, doc, op) => {
    expect(() => applyPatch(doc, [op])).toThrow(JsonPatchError);
  });
});
