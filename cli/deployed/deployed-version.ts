import { zonecronVersion } from '../../infra/packaging/package-root.ts';

/**
 * The note `list` and `describe` print of the zonecron version a stack was deployed with (the
 * `zonecronVersion` synth recorded in the dispatcher's `jobs.json`), beside this command's own:
 * after a version bump, it tells whether the deploy has happened yet. Undefined for a bundle
 * synthesized before versions were recorded.
 *
 * @example
 * deployedVersionNote('Zonecron', '0.1.0', '0.2.0')
 * //=> "stack 'Zonecron' was deployed with zonecron 0.1.0; this command is zonecron 0.2.0"
 */
export function deployedVersionNote(
  stackName: string,
  deployed: string | undefined,
  running: string = zonecronVersion(import.meta.url),
): string | undefined {
  if (deployed === undefined) return undefined;
  const same = deployed === running ? ', as this command' : `; this command is zonecron ${running}`;
  return `stack '${stackName}' was deployed with zonecron ${deployed}${same}`;
}
