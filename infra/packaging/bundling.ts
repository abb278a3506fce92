import { buildSync } from 'esbuild';
import { zonecronVersion } from './package-root.ts';

/** The Node.js major version zonecron's Lambdas run on (`FUNCTION_RUNTIME`, nodejs24.x). */
export const FUNCTION_NODE_MAJOR = 24;

/** The file name of a bundled handler: Lambda's handler setting is `index.handler`. */
export const FUNCTION_HANDLER_FILE = 'index.mjs';

/**
 * How zonecron's Lambdas (dispatcher and recorder) are bundled: the stack's functions, the
 * handler tests and `npm run bench:dispatch` all go through {@link bundleFunction}, so the
 * benchmark measures what ships.
 *
 * Chosen by measurement (`npm run bench:dispatch`, section 5; figures in
 * docs/architecture.md, "Cold start"):
 * - The AWS SDK v3 is **bundled**: loading the runtime's own copy (many CommonJS files) took
 *   longer than one minified bundle with only the clients zonecron uses.
 * - **Code splitting**: what a handler imports with `import()` becomes a chunk of its own that
 *   loads on first use. The DynamoDB client loads with the handler (every invocation needs
 *   it); each target type's client, the dead-letter queue's and the on-call topic's load when
 *   a run first goes there, and the SDK's own optional parts (SSO, shared-ini credentials,
 *   browser user agents) never load on Lambda.
 *
 * A bundled SDK is CommonJS inside ESM files, hence the `createRequire` banner (one per chunk).
 */
export const FUNCTION_BUNDLING = {
  format: 'esm',
  minify: true,
  /**
   * Class and function names survive minifying: the errors' `name` (`new.target.name`) is what
   * logs, the ledger's `lastError` and on-call read (`UnknownJobError`, not `e`).
   */
  keepNames: true,
  splitting: true,
  /** esbuild's syntax target: the runtime's own Node.js version. */
  target: `node${FUNCTION_NODE_MAJOR}`,
  banner: "import { createRequire } from 'module'; const require = createRequire(import.meta.url);",
} as const;

/** Options of {@link bundleFunction}. */
export interface BundleOptions {
  /** The handler's source, e.g. `/repo/functions/dispatcher/handler.ts`. */
  readonly entry: string;
  /** The folder to write `index.mjs`, its chunks and their source maps into. */
  readonly outDir: string;
  /** esbuild's working directory: source map paths are relative to it. */
  readonly workingDir?: string;
  /**
   * Alternatives the benchmark measures against the shipped options: one file without
   * chunks, or `@aws-sdk/*` left to the Lambda runtime's copy. @default the shipped options
   */
  readonly variant?: { readonly splitting?: boolean; readonly external?: readonly string[] };
}

/**
 * Bundles one Lambda handler with {@link FUNCTION_BUNDLING} into `outDir`: `index.mjs`, the
 * chunks it loads on demand, and source maps (without sources; Lambda runs with
 * `--enable-source-maps`).
 *
 * @example
 * bundleFunction({ entry: 'functions/dispatcher/handler.ts', outDir: 'cdk.out/dispatcher' });
 * // cdk.out/dispatcher/index.mjs, chunk-….mjs, *.map
 */
export function bundleFunction(options: BundleOptions): void {
  buildSync({
    entryPoints: { index: options.entry },
    outdir: options.outDir,
    outExtension: { '.js': '.mjs' },
    chunkNames: 'chunk-[hash]',
    bundle: true,
    platform: 'node',
    format: FUNCTION_BUNDLING.format,
    splitting: options.variant?.splitting ?? FUNCTION_BUNDLING.splitting,
    external: [...(options.variant?.external ?? [])],
    target: FUNCTION_BUNDLING.target,
    minify: FUNCTION_BUNDLING.minify,
    keepNames: FUNCTION_BUNDLING.keepNames,
    mainFields: ['module', 'main'],
    banner: { js: FUNCTION_BUNDLING.banner },
    // The version in the dispatcher's and recorder's logs (functions/shared/logger.ts).
    define: { 'process.env.ZONECRON_VERSION': JSON.stringify(zonecronVersion(import.meta.url)) },
    sourcemap: true,
    sourcesContent: false,
    ...(options.workingDir === undefined ? {} : { absWorkingDir: options.workingDir }),
    logLevel: 'warning',
  });
}
