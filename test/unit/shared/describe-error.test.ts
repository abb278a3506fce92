import { describe, expect, it } from 'vitest';
import { describeError } from '#shared/describe-error.ts';
import { deepArray, FIVE_MB, HOSTILE_DEPTH } from '../../support/hostile-events.ts';

describe('describeError', () => {
  it('writes an error on one line as its name and message', () => {
    expect(describeError(new TypeError('bad\n  input'))).toBe('TypeError: bad input');
  });

  it('cuts a 5 MB message to 1000 characters', () => {
    expect(describeError(new Error(FIVE_MB))).toHaveLength(1000);
    expect(describeError(FIVE_MB)).toHaveLength(1000);
  });

  it('names by its type a thrown value that cannot be made a string, without throwing', () => {
    expect(describeError(deepArray(HOSTILE_DEPTH))).toBe('thrown: array that cannot be printed');
    const hostile = {
      toString() {
        throw new Error('no');
      },
    };
    expect(describeError(hostile)).toBe('thrown: object that cannot be printed');
  });
});
