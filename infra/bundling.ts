/** The Node.js major version zonecron's Lambdas run on (`FUNCTION_RUNTIME`, nodejs24.x). */
export const FUNCTION_NODE_MAJOR = 24;

/**
 * How zonecron's Lambdas (dispatcher and recorder) are bundled: the stack's `NodejsFunction`s
 * and `npm run bench:dispatch` use these same options, so the benchmark measures what ships.
 *
 * Chosen by measurement (`npm run bench:dispatch`, figures in docs/architecture.md,
 * "Dispatcher benchmark and bundling"): the AWS SDK v3 is **bundled**. Leaving `@aws-sdk/*` external to use the copy
 * the Lambda Node.js runtime ships gives a smaller file, but loading the SDK's many CommonJS
 * files at cold start took longer than loading one minified bundle that contains only the
 * clients the dispatcher uses.
 *
 * A bundled SDK is CommonJS inside an ESM file, hence the `createRequire` banner.
 */
export const FUNCTION_BUNDLING = {
  /** Modules esbuild leaves as imports: none. */
  externalModules: [] as readonly string[],
  format: 'esm',
  minify: true,
  /** esbuild's syntax target: the runtime's own Node.js version. */
  target: `node${FUNCTION_NODE_MAJOR}`,
  banner: "import { createRequire } from 'module'; const require = createRequire(import.meta.url);",
} as const;

/** The alternative the benchmark measures against: `@aws-sdk/*` from the Lambda runtime. */
export const FUNCTION_BUNDLING_SDK_EXTERNAL = {
  ...FUNCTION_BUNDLING,
  externalModules: ['@aws-sdk/*'] as readonly string[],
} as const;
