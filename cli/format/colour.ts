import type { Writable } from 'node:stream';
import pc from 'picocolors';

/** The colour functions the CLI uses; identity functions when colour is off. */
export type Colours = ReturnType<typeof pc.createColors>;

/**
 * Colours for one output stream: on only when it is a terminal and `NO_COLOR` is not set.
 *
 * picocolors' own detection also turns colour on under `CI` or `FORCE_COLOR` even when the
 * output is a pipe, which would put escape codes into files and into `--json` consumers' logs.
 */
export function coloursFor(stream: Writable, env: NodeJS.ProcessEnv = process.env): Colours {
  const isTty = (stream as Writable & { isTTY?: boolean }).isTTY === true;
  const noColor = env.NO_COLOR !== undefined && env.NO_COLOR !== '';
  return pc.createColors(isTty && !noColor && env.TERM !== 'dumb');
}
