/**
 * A memo in front of dynalite's expression parsers (condition, update, projection).
 *
 * dynalite parses every request's expressions with PEG parsers; the ledger sends a few dozen
 * distinct expressions, each thousands of times, and parsing them was a sixth of a fuzzed
 * scenario's CPU. A parse reads its expression, the attribute names, and of each attribute
 * value only its type (which of `S`, `N`, `M`, … it holds), except under `BETWEEN` and
 * `attribute_type`, which read the values themselves; it puts the value objects themselves into
 * the tree it returns, and marks the names and values it used. So one parse per
 * (expression, names, value types) is kept, made with a stand-in for each value, and each
 * request gets a fresh copy of its tree with its own values in the stand-ins' places, and the
 * same names and values marked used: exactly what its own parse returns. Expressions that read
 * values, and parses that fail, are parsed afresh every time.
 */

/** A PEG parser module of dynalite (`db/conditionParser.js` and its siblings). */
interface ParserModule {
  parse: Parse;
  [MEMOISED]?: true;
}

type Parse = (text: string, options?: { context?: ParseContext; startRule?: string }) => unknown;

/** What dynalite's validations hand its parsers (`validateExpressions`). */
interface ParseContext {
  readonly attrNames?: Record<string, string>;
  readonly attrVals?: Record<string, Record<string, unknown>>;
  readonly unusedAttrNames?: Record<string, boolean>;
  readonly unusedAttrVals?: Record<string, boolean>;
  readonly isKeyCondition?: boolean;
  readonly [other: string]: unknown;
}

/** One kept parse: its tree, where the stand-ins are, and the names and values it used. */
interface Template {
  readonly tree: object;
  readonly standIns: ReadonlyMap<object, string>;
  /** Whether the tree holds one node twice (its copies must then share it too). */
  readonly shared: boolean;
  readonly usedNames: readonly string[];
  readonly usedValues: readonly string[];
}

const MEMOISED = Symbol('zonecron memoised parser');
const PARSERS = ['conditionParser', 'updateParser', 'projectionParser'] as const;
/** The functions and operators whose parse reads the values, not only their types. */
const READS_VALUES = /between|attribute_type/i;
/** The types dynalite's parsers tell values apart by, in their order (`getImmediateType`). */
const TYPES = ['S', 'N', 'B', 'NULL', 'BOOL', 'SS', 'NS', 'BS', 'L', 'M'] as const;
const MEMO_LIMIT = 10_000;

/**
 * Puts the memo in front of dynalite's parsers, once per process (they are shared modules).
 *
 * @example
 * memoizeExpressionParsers(createRequire(import.meta.url));
 */
export function memoizeExpressionParsers(load: (id: string) => unknown): void {
  for (const name of PARSERS) {
    const parser = load(`dynalite/db/${name}`) as ParserModule;
    if (parser[MEMOISED]) continue;
    parser.parse = memoised(parser.parse);
    parser[MEMOISED] = true;
  }
}

function memoised(parse: Parse): Parse {
  const memo = new Map<string, Template | null>();
  return (text, options) => {
    const context = options?.context;
    if (!context || options.startRule !== undefined || READS_VALUES.test(text)) {
      return parse(text, options);
    }
    const key = memoKey(text, context);
    if (key === undefined) return parse(text, options);
    let template = memo.get(key);
    if (template === undefined) {
      if (memo.size >= MEMO_LIMIT) memo.clear();
      template = templateOf(parse, text, context, options);
      memo.set(key, template);
    }
    if (template === null) return parse(text, options);
    return instantiate(template, context);
  };
}

/** Which of the types a value holds, as dynalite's parsers see it; undefined for none. */
function typeOf(value: unknown): string | undefined {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return undefined;
  const fields = value as Record<string, unknown>;
  if (fields.attrType !== undefined) return undefined;
  return TYPES.find((t) => fields[t] !== null && fields[t] !== undefined);
}

/** Everything a parse depends on; undefined when a value has no type the memo can stand in for. */
function memoKey(text: string, context: ParseContext): string | undefined {
  const valueTypes: string[] = [];
  for (const [name, value] of Object.entries(context.attrVals ?? {})) {
    const type = typeOf(value);
    if (type === undefined) return undefined;
    valueTypes.push(`${name}=${type}`);
  }
  return [
    text,
    context.isKeyCondition ? 'key' : '',
    JSON.stringify(context.attrNames ?? null),
    valueTypes.join(','),
  ].join('\u0000');
}

/** One parse with stand-ins for the values; null when it fails (the request's own parse says how). */
function templateOf(
  parse: Parse,
  text: string,
  context: ParseContext,
  options: NonNullable<Parameters<Parse>[1]>,
): Template | null {
  const standIns = new Map<object, string>();
  const values: Record<string, Record<string, unknown>> = {};
  for (const [name, value] of Object.entries(context.attrVals ?? {})) {
    const standIn = { [typeOf(value) as string]: true };
    standIns.set(standIn, name);
    values[name] = standIn;
  }
  const names = Object.keys(context.attrNames ?? {});
  const unusedNames = Object.fromEntries(names.map((n) => [n, true]));
  const unusedValues = Object.fromEntries(Object.keys(values).map((n) => [n, true]));
  let tree: unknown;
  try {
    tree = parse(text, {
      ...options,
      context: {
        ...context,
        ...(context.attrVals ? { attrVals: values } : {}),
        unusedAttrNames: unusedNames,
        unusedAttrVals: unusedValues,
      },
    });
  } catch {
    return null;
  }
  if (!tree || typeof tree !== 'object') return null;
  return {
    tree,
    standIns,
    shared: sharesNodes(tree, standIns),
    usedNames: names.filter((n) => !(n in unusedNames)),
    usedValues: Object.keys(values).filter((n) => !(n in unusedValues)),
  };
}

/** The request's own tree: a copy of the template's, its values in place of the stand-ins. */
function instantiate(template: Template, context: ParseContext): unknown {
  for (const name of template.usedNames) delete context.unusedAttrNames?.[name];
  for (const name of template.usedValues) delete context.unusedAttrVals?.[name];
  const values = context.attrVals ?? {};
  // A node the tree holds twice is copied once, so the copy shares what the parse's tree shares.
  const copies = template.shared ? new Map<object, unknown>() : undefined;
  const copy = (node: unknown): unknown => {
    if (node === null || typeof node !== 'object') return node;
    const standIn = template.standIns.get(node);
    if (standIn !== undefined) return values[standIn];
    const known = copies?.get(node);
    if (known !== undefined) return known;
    let out: unknown[] | Record<string, unknown>;
    if (Array.isArray(node)) {
      out = new Array<unknown>(node.length);
      copies?.set(node, out);
      for (let i = 0; i < node.length; i++) out[i] = copy(node[i]);
      return out;
    }
    const proto = Object.getPrototypeOf(node);
    out = proto === Object.prototype ? {} : (Object.create(proto) as Record<string, unknown>);
    copies?.set(node, out);
    for (const key of Object.keys(node)) out[key] = copy((node as Record<string, unknown>)[key]);
    return out;
  };
  return copy(template.tree);
}

/** Whether a tree reaches one of its nodes (stand-ins aside) by two paths. */
function sharesNodes(tree: object, standIns: ReadonlyMap<object, string>): boolean {
  const seen = new Set<object>();
  const visit = (node: unknown): boolean => {
    if (node === null || typeof node !== 'object' || standIns.has(node)) return false;
    if (seen.has(node)) return true;
    seen.add(node);
    return Object.values(node).some(visit);
  };
  return visit(tree);
}
