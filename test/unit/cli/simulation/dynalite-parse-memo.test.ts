import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { memoizeExpressionParsers } from '../../../../cli/simulation/dynalite-parse-memo.ts';

type Parse = (text: string, options: { context: Record<string, unknown> }) => unknown;

const load = createRequire(import.meta.url);
const NAMES = ['conditionParser', 'updateParser', 'projectionParser'] as const;

/** A fresh instance of one of dynalite's parser modules: never memoised by anyone else. */
function freshParser(name: (typeof NAMES)[number]): { parse: Parse } {
  const id = load.resolve(`dynalite/db/${name}`);
  const cached = load.cache[id];
  delete load.cache[id];
  try {
    return load(id) as { parse: Parse };
  } finally {
    if (cached) load.cache[id] = cached;
  }
}

/** dynalite's parsers as they are, and fresh copies with the memo in front. */
function memoisedParsers() {
  const real = Object.fromEntries(NAMES.map((n) => [n, freshParser(n)]));
  const memoised = Object.fromEntries(NAMES.map((n) => [n, freshParser(n)]));
  memoizeExpressionParsers((id) => memoised[id.split('/').pop() ?? '']);
  return {
    real: real as Record<(typeof NAMES)[number], { parse: Parse }>,
    memoised: memoised as Record<(typeof NAMES)[number], { parse: Parse }>,
  };
}

const isReserved = (name: string) => name.toUpperCase() === 'STATUS';
const compare = () => false;

/** A context as dynalite's `validateExpressions` builds it. */
function contextOf(names: Record<string, string>, values: Record<string, object>) {
  return {
    attrNames: names,
    attrVals: values,
    unusedAttrNames: Object.fromEntries(Object.keys(names).map((k) => [k, true])),
    unusedAttrVals: Object.fromEntries(Object.keys(values).map((k) => [k, true])),
    isReserved,
    compare,
  };
}

describe('memoised dynalite expression parsers', () => {
  const { real, memoised } = memoisedParsers();
  const condition =
    'attribute_not_exists(#pk) OR (#status = :claimed AND #lease < :now AND #n < :max)';
  const names = { '#pk': 'pk', '#status': 'status', '#lease': 'leaseUntilEpochMs', '#n': 'n' };

  it('gives each request the tree and the used names of its own parse, with its own values', () => {
    for (const now of ['1', '2', '3']) {
      const values = { ':claimed': { S: 'claimed' }, ':now': { N: now }, ':max': { N: '3' } };
      const mine = contextOf(names, values);
      const fresh = contextOf(names, structuredClone(values));
      const tree = memoised.conditionParser.parse(condition, { context: mine });
      expect(tree).toEqual(real.conditionParser.parse(condition, { context: fresh }));
      expect(JSON.stringify(tree)).toContain(`{"N":"${now}"}`);
      expect(mine.unusedAttrNames).toEqual(fresh.unusedAttrNames);
      expect(mine.unusedAttrVals).toEqual(fresh.unusedAttrVals);
    }
  });

  it('hands out a fresh tree each time, so changing one leaves the next intact', () => {
    const values = { ':v': { S: 'x' } };
    const first = memoised.updateParser.parse('SET #a = :v, #b = :v', {
      context: contextOf({ '#a': 'a', '#b': 'b' }, values),
    }) as { sections: unknown[] };
    first.sections.length = 0;
    const second = memoised.updateParser.parse('SET #a = :v, #b = :v', {
      context: contextOf({ '#a': 'a', '#b': 'b' }, values),
    });
    expect(second).toEqual(
      real.updateParser.parse('SET #a = :v, #b = :v', {
        context: contextOf({ '#a': 'a', '#b': 'b' }, values),
      }),
    );
  });

  it('parses a value of another type afresh: an ADD of a string is refused as dynalite refuses it', () => {
    const add = 'ADD #n :v';
    const context = (v: object) => contextOf({ '#n': 'n' }, { ':v': v });
    expect(typeof memoised.updateParser.parse(add, { context: context({ N: '1' }) })).toBe(
      'object',
    );
    expect(memoised.updateParser.parse(add, { context: context({ S: 'x' }) })).toEqual(
      real.updateParser.parse(add, { context: context({ S: 'x' }) }),
    );
    expect(memoised.updateParser.parse(add, { context: context({ S: 'x' }) })).toMatch(
      /Incorrect operand type/,
    );
  });

  it('parses BETWEEN afresh each time: its bounds are read, not only their types', () => {
    const between = '#n BETWEEN :low AND :high';
    const context = (low: string, high: string) =>
      contextOf({ '#n': 'n' }, { ':low': { N: low }, ':high': { N: high } });
    const dynaliteCompare = (load('dynalite/db') as { compare: unknown }).compare;
    const withCompare = (c: ReturnType<typeof context>) => ({ ...c, compare: dynaliteCompare });
    const ordered = memoised.conditionParser.parse(between, {
      context: withCompare(context('1', '2')),
    });
    const reversed = memoised.conditionParser.parse(between, {
      context: withCompare(context('2', '1')),
    });
    expect(typeof ordered).toBe('object');
    expect(reversed).toMatch(/upper bound to be greater than or equal to lower bound/);
  });
});
