import { expect, inject, it } from 'vitest';

it('has a DynamoDB Local endpoint on loopback', () => {
  expect(inject('dynamoEndpoint')).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
});
