import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';

/** One request as a rule sees it: the command's name and its input. */
export interface DynamoRequest {
  readonly command: string;
  readonly input: Record<string, unknown>;
}

/** A rule that fails matching requests, before or after DynamoDB applied them. */
interface FaultRule {
  readonly matches: (request: DynamoRequest) => boolean;
  readonly error: () => Error;
  /** `after`: the write happens, then the caller sees the error (it died, or the reply got lost). */
  readonly when: 'before' | 'after';
  remaining: number;
}

/** Counts and faults on one DynamoDB client. */
export interface DynamoFaults {
  /** Requests sent, by command name (`UpdateItemCommand`, `QueryCommand`, …). */
  readonly counts: Map<string, number>;
  /** Every request sent, in order (forgotten with the counts). */
  readonly requests: DynamoRequest[];
  /** The total of `counts`. */
  total(): number;
  /** Fails the next `times` matching requests. */
  fail(
    matches: (request: DynamoRequest) => boolean,
    options?: { times?: number; when?: 'before' | 'after'; error?: () => Error },
  ): void;
  /** Forgets the counts. */
  resetCounts(): void;
}

/** DynamoDB's throttling error, as the SDK raises it. */
export function throttled(): Error {
  const error = new Error('Rate of requests exceeds the allowed throughput.');
  error.name = 'ProvisionedThroughputExceededException';
  Object.assign(error, { $fault: 'client', $retryable: { throttling: true } });
  return error;
}

/** The request is an `UpdateItem` whose expression sets this attribute. */
export function updating(attribute: string) {
  return (r: DynamoRequest) =>
    r.command === 'UpdateItemCommand' &&
    Object.values((r.input.ExpressionAttributeNames as Record<string, string>) ?? {}).includes(
      attribute,
    ) &&
    String(r.input.UpdateExpression).includes('SET');
}

/**
 * Instruments a client: every command is counted, and rules inject failures (throttling, a
 * dispatcher dying right after a write) at exactly the request a scenario names.
 *
 * @example
 * const faults = instrument(client);
 * faults.fail(updating('dispatchedAt'), { times: 1 }); // markDispatched is throttled once
 */
export function instrument(client: DynamoDBClient): DynamoFaults {
  const counts = new Map<string, number>();
  const requests: DynamoRequest[] = [];
  const rules: FaultRule[] = [];
  const take = (request: DynamoRequest, when: 'before' | 'after') => {
    const rule = rules.find((r) => r.when === when && r.remaining > 0 && r.matches(request));
    if (!rule) return undefined;
    rule.remaining--;
    return rule.error();
  };
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const request = {
        command: String((context as { commandName?: string }).commandName),
        input: args.input as Record<string, unknown>,
      };
      counts.set(request.command, (counts.get(request.command) ?? 0) + 1);
      requests.push(request);
      const before = take(request, 'before');
      if (before) throw before;
      const result = await next(args);
      const after = take(request, 'after');
      if (after) throw after;
      return result;
    },
    { step: 'initialize', name: 'zonecronTestFaults' },
  );
  return {
    counts,
    requests,
    total: () => [...counts.values()].reduce((a, b) => a + b, 0),
    fail(matches, options = {}) {
      rules.push({
        matches,
        error: options.error ?? throttled,
        when: options.when ?? 'before',
        remaining: options.times ?? 1,
      });
    },
    resetCounts: () => {
      counts.clear();
      requests.length = 0;
    },
  };
}
