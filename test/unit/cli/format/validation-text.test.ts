import pc from 'picocolors';
import { describe, expect, it } from 'vitest';
import { validationText } from '../../../../cli/format/validation-text.ts';
import { validationReport } from '../../../support/validation-report.ts';

const plain = pc.createColors(false);

describe('validationText', () => {
  it("shows a job's hint under its sentence, within 80 columns", () => {
    const lines = validationText(validationReport(), plain).split('\n');
    const sentence = lines.findIndex((line) => line.includes('↳ at 09:00 on Tuesday'));
    expect(lines[sentence + 1]).toMatch(/^ {2}hint: day-of-week '2-6' counts weekdays/);
    expect(lines.filter((line) => [...line].length > 80)).toEqual([]);
  });
});
