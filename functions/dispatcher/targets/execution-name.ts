/**
 * The execution name of a delivery: the stack's prefix, the run's key and its round
 * (`-g<generation>`), at most 80 characters (Step Functions' limit on a name).
 *
 * Every attempt of one round uses the same name, so a retry after an attempt whose start was
 * in fact accepted is refused by Step Functions itself (names are unique per state machine for
 * 90 days) instead of starting the run twice; a redrive starts a new round, hence a new name.
 * The prefix lets the stack's completion rule match its own executions only.
 *
 * @example
 * executionNameFor('zc4804dd9a-', '6b86b273ff34fce19d6b804eff5a3f5747ada4eaa22f1d49c01e52ddb7875b4b', 0)
 * //=> 'zc4804dd9a-6b86b273ff34fce19d6b804eff5a3f5747ada4eaa22f1d49c01e52ddb7875b4b-g0'
 */
export function executionNameFor(prefix: string, key: string, generation: number): string {
  return `${prefix}${key}-g${generation}`.slice(0, 80);
}

/** The ARN of an execution, from its state machine's ARN and its name. */
export function executionArn(stateMachineArn: string, name: string): string {
  return `${stateMachineArn.replace(':stateMachine:', ':execution:')}:${name}`;
}
