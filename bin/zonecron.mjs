#!/usr/bin/env node
// Entry of the `zonecron` command: runs the TypeScript CLI through tsx, so there is no build step.
import { register } from 'tsx/esm/api';

// The AWS SDK warns on every start under Node 20 that its releases after January 2027 need
// Node 22. It says nothing about this run and would precede every command's output.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

register();
try {
  await import('../cli/main.ts');
} catch (error) {
  // Only a CLI that cannot even load lands here (main.ts reports everything else itself).
  const message = error instanceof Error ? error.message.split('\n')[0] : String(error);
  process.stderr.write(`zonecron: error: cannot start: ${message}\n`);
  process.exitCode = 1;
}
