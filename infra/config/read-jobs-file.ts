/**
 * Reading a jobs file: its bytes, then UTF-8 text, then a YAML document whose nodes know their
 * lines and columns.
 *
 * Each step refuses what the next cannot use with a `ConfigError` located in the file: a file
 * that is missing or unreadable, one that is not UTF-8 text (named without repeating its
 * bytes), and every YAML syntax problem at once.
 */
import { isUtf8 } from 'node:buffer';
import { readFileSync } from 'node:fs';
import { LineCounter, parseDocument } from 'yaml';
import { excerpt } from '#text/message-text.ts';
import { ConfigError, unreadableFileError } from './config-error.ts';
import { IssueCollector } from './issue-collector.ts';

/**
 * The text of the jobs file at `path`.
 *
 * Throws `ConfigError` when the file is missing or unreadable, or is not UTF-8 text.
 *
 * @example
 * readJobsText('jobs.yaml').startsWith('#') //=> true
 */
export function readJobsText(path: string): string {
  let bytes: Buffer;
  try {
    bytes = readFileSync(path);
  } catch (error) {
    throw unreadableFileError(path, 'jobs file', error);
  }
  return textOf(bytes, path);
}

/**
 * The file's bytes as text, or a `ConfigError` saying it is not UTF-8 text, without
 * repeating any of its bytes: a binary file (one with a NUL byte) is named as such, and the
 * first byte that is not UTF-8 is located by line and column.
 */
function textOf(bytes: Buffer, path: string): string {
  const issue = { file: path, field: '', code: 'not-text' as const };
  const nul = bytes.indexOf(0);
  if (nul !== -1) {
    const message = `jobs file: not a text file (a NUL byte at offset ${nul}); a jobs file is YAML in UTF-8`;
    throw new ConfigError([{ ...issue, line: 0, column: 0, message }]);
  }
  if (isUtf8(bytes)) return bytes.toString('utf8');
  const text = new TextDecoder('utf-8').decode(bytes);
  const at = text.indexOf('\uFFFD');
  const before = text.slice(0, at);
  const line = before.split('\n').length;
  const column = at - before.lastIndexOf('\n');
  const byte = `0x${(bytes[Buffer.byteLength(before)] ?? 0).toString(16).padStart(2, '0')}`;
  const message = `not a UTF-8 text file (byte ${byte} here is not UTF-8); save it as UTF-8`;
  throw new ConfigError([{ ...issue, line, column, message }]);
}

/**
 * The YAML document as plain data, with the collector that locates problems in it, or every
 * syntax problem at once (thrown).
 *
 * Aliases are expanded (`merge: true` for `<<:` keys), at most 100 of them, so an alias bomb
 * is refused rather than expanded.
 */
export function readYamlDocument(
  text: string,
  fileName: string,
): { data: unknown; collector: IssueCollector } {
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter, prettyErrors: false, merge: true });
  const collector = new IssueCollector(fileName, doc, lineCounter);
  if (doc.errors.length > 0) {
    for (const error of doc.errors) {
      const { line, col } = lineCounter.linePos(error.pos[0]);
      collector.add({
        line,
        column: col,
        field: '',
        message: yamlMessage(error.message),
        code: 'yaml',
      });
    }
    throw collector.error();
  }
  try {
    return { data: doc.toJS({ maxAliasCount: 100 }), collector };
  } catch (error) {
    // e.g. an alias bomb ("excessive alias count") or an alias to nothing
    const message = error instanceof Error ? error.message : String(error);
    collector.add({ line: 1, column: 1, field: '', message: yamlMessage(message), code: 'yaml' });
    throw collector.error(error);
  }
}

/** The YAML parser's message, one line, with any excerpt of the file in it cut short. */
function yamlMessage(message: string): string {
  const firstLine = message.split('\n')[0] ?? message;
  const trimmed = firstLine
    .replace(/ at line \d+, column \d+:?$/, '')
    .replace(/\.$/, '')
    .replace(/"((?:[^"\\]|\\.)*)"/g, (_quoted, inner: string) => `"${excerpt(inner)}"`);
  return `invalid YAML: ${excerpt(`${trimmed.charAt(0).toLowerCase()}${trimmed.slice(1)}`, 240)}`;
}
