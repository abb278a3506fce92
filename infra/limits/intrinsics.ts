/**
 * Template values as they will look after CloudFormation resolves them, for measuring sizes
 * before a deploy: every intrinsic function is replaced by a placeholder at least as long as
 * anything it can resolve to, so a size measured here is never smaller than the real one.
 */

/** Longest value a pseudo parameter resolves to. */
const PSEUDO_PARAMETER_CHARS: Readonly<Record<string, number>> = {
  'AWS::AccountId': 12,
  'AWS::Region': 14,
  'AWS::Partition': 10,
  'AWS::URLSuffix': 16,
  'AWS::StackName': 128,
  'AWS::StackId': 256,
  'AWS::NotificationARNs': 256,
  'AWS::NoValue': 0,
};

/** A generous bound for a resource's `Ref`: a name or an id. */
export const REF_CHARS = 128;
/**
 * A generous bound for anything else resolved at deploy time: `Fn::GetAtt` (usually an ARN),
 * `Fn::ImportValue`, a function this module does not follow.
 */
export const ATTRIBUTE_CHARS = 256;

/** A placeholder of a given length; letters only, so it needs no JSON escaping. */
function placeholder(chars: number): string {
  return 'x'.repeat(chars);
}

function isIntrinsic(value: object): [string, unknown] | undefined {
  const keys = Object.keys(value);
  const key = keys[0];
  if (keys.length !== 1 || key === undefined) return undefined;
  return key === 'Ref' || key.startsWith('Fn::')
    ? [key, (value as Record<string, unknown>)[key]]
    : undefined;
}

/**
 * The value with every intrinsic function replaced by a placeholder string of its longest
 * resolution; strings joined by `Fn::Join` and `Fn::Sub` stay strings.
 *
 * @example
 * resolveForSize({ 'Fn::Join': ['', ['arn:', { Ref: 'AWS::Partition' }, ':sqs']] }) //=> 'arn:xxxxxxxxxx:sqs'
 */
export function resolveForSize(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(resolveForSize);
  if (value === null || typeof value !== 'object') return value;
  const intrinsic = isIntrinsic(value);
  if (intrinsic === undefined) {
    return Object.fromEntries(
      Object.entries(value).map(([key, item]) => [key, resolveForSize(item)]),
    );
  }
  const [name, argument] = intrinsic;
  if (name === 'Ref') {
    const chars = PSEUDO_PARAMETER_CHARS[String(argument)] ?? REF_CHARS;
    return placeholder(chars);
  }
  if (name === 'Fn::Join' && Array.isArray(argument)) {
    const [separator, parts] = argument as [string, unknown];
    const resolved = Array.isArray(parts) ? parts.map(resolveForSize) : [resolveForSize(parts)];
    return resolved
      .map((part) => (typeof part === 'string' ? part : JSON.stringify(part)))
      .join(separator);
  }
  if (name === 'Fn::Sub') return resolveSub(argument);
  return placeholder(ATTRIBUTE_CHARS);
}

/** `Fn::Sub`: each `${…}` becomes a placeholder (a variable's own value when it is given). */
function resolveSub(argument: unknown): string {
  const [text, variables] = Array.isArray(argument)
    ? [String(argument[0]), (argument[1] ?? {}) as Record<string, unknown>]
    : [String(argument), {}];
  return text.replace(/\$\{([^!}][^}]*)\}/g, (_, name: string) => {
    if (name in variables) {
      const resolved = resolveForSize(variables[name]);
      return typeof resolved === 'string' ? resolved : JSON.stringify(resolved);
    }
    const pseudo = PSEUDO_PARAMETER_CHARS[name];
    if (pseudo !== undefined) return placeholder(pseudo);
    return placeholder(name.includes('.') ? ATTRIBUTE_CHARS : REF_CHARS);
  });
}

/** The characters of a value as minified JSON after resolution: IAM's and EventBridge's count. */
export function jsonCharsForSize(value: unknown): number {
  return JSON.stringify(resolveForSize(value)).length;
}

/** The characters of a string-valued property after resolution. */
export function stringCharsForSize(value: unknown): number {
  const resolved = resolveForSize(value);
  return typeof resolved === 'string' ? resolved.length : JSON.stringify(resolved).length;
}
