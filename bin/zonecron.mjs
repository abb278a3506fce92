#!/usr/bin/env node
// Entry of the `zonecron` command: runs the TypeScript CLI through tsx, so there is no build step.
import { register } from 'tsx/esm/api';

register();
await import('../cli/main.ts');
