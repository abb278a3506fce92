import { describe, expect, it } from 'vitest';
import { jsonCharsForSize, resolveForSize } from '../../../../infra/limits/intrinsics.ts';

describe('sizes of template values before they are resolved', () => {
  it('measures pseudo parameters at their longest: a partition of 10, a region of 14, an account of 12', () => {
    const arn = {
      'Fn::Join': [
        '',
        [
          'arn:',
          { Ref: 'AWS::Partition' },
          ':events:',
          { Ref: 'AWS::Region' },
          ':',
          { Ref: 'AWS::AccountId' },
          ':event-bus/default',
        ],
      ],
    };
    expect((resolveForSize(arn) as string).length).toBe(
      'arn:'.length + 10 + ':events:'.length + 14 + 1 + 12 + ':event-bus/default'.length,
    );
  });

  it('counts a resource reference as 128 characters and an attribute as 256', () => {
    expect(resolveForSize({ Ref: 'Topic' })).toHaveLength(128);
    expect(resolveForSize({ 'Fn::GetAtt': ['Queue', 'Arn'] })).toHaveLength(256);
    expect(resolveForSize({ 'Fn::ImportValue': 'Zonecron:Export' })).toHaveLength(256);
  });

  it('fills Fn::Sub variables, given or not', () => {
    // CloudFormation's own ${…} syntax, not a JavaScript template.
    const sub = (name: string) => `\${${name}}`;
    expect(resolveForSize({ 'Fn::Sub': [`${sub('A')}-x`, { A: 'abc' }] })).toBe('abc-x');
    expect(resolveForSize({ 'Fn::Sub': `a${sub('AWS::Region')}b` })).toHaveLength(16);
  });

  it('counts JSON without whitespace, as IAM and EventBridge do', () => {
    expect(jsonCharsForSize({ source: ['lambda'] })).toBe('{"source":["lambda"]}'.length);
  });
});
