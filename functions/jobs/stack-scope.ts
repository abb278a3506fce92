import { createHash } from 'node:crypto';

/**
 * The prefix of every Step Functions execution a stack's dispatcher starts: `zc` and eight
 * hex digits of the stack name's SHA-256, then `-`.
 *
 * The stack's completion rule matches executions by this prefix (`detail.name`), so one rule of
 * fixed size serves any number of state machines, and two stacks that start executions of the
 * same state machine each hear only of their own.
 *
 * @example
 * executionNamePrefix('Zonecron') //=> 'zc4804dd9a-'
 */
export function executionNamePrefix(stackName: string): string {
  return `zc${createHash('sha256').update(stackName).digest('hex').slice(0, 8)}-`;
}
