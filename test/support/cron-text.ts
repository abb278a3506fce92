import fc from 'fast-check';

/**
 * Arbitrary text for the cron parser: random strings, binary, graphemes, cron-like token soup,
 * five-field token soup, and long repetitive inputs where a careless parser goes quadratic.
 *
 * Shared by the parser's property test (which checks what it throws) and `npm run bench:parse`
 * (which measures how long each parse takes).
 */
const TOKENS = [
  '*',
  '?',
  '/',
  '-',
  ',',
  ' ',
  '  ',
  '\t',
  'L',
  'W',
  'LW',
  '#',
  'H',
  'H(',
  ')',
  '@',
  '@daily',
  '@reboot',
  '0',
  '1',
  '5',
  '7',
  '12',
  '23',
  '29',
  '30',
  '31',
  '59',
  '60',
  '99',
  '9999999999999999999999',
  '-1',
  'JAN',
  'feb',
  'MON',
  'sun',
  'FRI',
  'Dec',
  'X',
  '\u00a0',
  '٣',
  '0x1F',
  '1e3',
];

const cronish = fc
  .array(fc.constantFrom(...TOKENS), { maxLength: 30 })
  .map((parts) => parts.join(''));
const fiveFieldish = fc
  .array(fc.array(fc.constantFrom(...TOKENS.filter((t) => !/\s/.test(t))), { maxLength: 6 }), {
    minLength: 5,
    maxLength: 5,
  })
  .map((fields) => fields.map((f) => f.join('')).join(' '));
/** Any text, weighted towards what looks like a cron expression. */
export const anyCronText = fc.oneof(
  fc.string({ maxLength: 200 }),
  fc.string({ unit: 'binary', maxLength: 200 }),
  fc.string({ unit: 'grapheme', maxLength: 60 }),
  cronish,
  fiveFieldish,
  // long repetitive inputs, where a careless parser goes quadratic or recursive
  fc
    .tuple(
      fc.constantFrom('1,', '*/', '1-', ' ', 'H(', '0-59/1,'),
      fc.integer({ min: 50, max: 300 }),
    )
    .map(([unit, n]) => `${unit.repeat(n)} * * * *`),
);
/** A job id for `H`, or none. */
export const optionalJobId = fc.option(fc.constantFrom('nightly_backup', 'a', 'job-42'), {
  nil: undefined,
});
