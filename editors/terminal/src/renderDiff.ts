/**
 * A coloured unified diff for the terminal (jsdiff), with a summary instead when
 * it is too big to show. Control characters in the path or the text are shown
 * as symbols (`visible`), never sent to the terminal.
 */
import { createTwoFilesPatch } from 'diff';
import { visible, visibleLine } from './visible.js';

export interface RenderOptions {
  color: boolean;
  /** Above this many bytes on either side, show a summary, not the lines. */
  maxInlineBytes?: number;
}

const ANSI = { red: '\x1b[31m', green: '\x1b[32m', cyan: '\x1b[36m', bold: '\x1b[1m', dim: '\x1b[2m', reset: '\x1b[0m' };

export function paint(text: string, style: keyof typeof ANSI, color: boolean): string {
  return color ? `${ANSI[style]}${text}${ANSI.reset}` : text;
}

function lineCount(text: string): number {
  if (text.length === 0) return 0;
  let n = 1;
  for (let i = text.indexOf('\n'); i !== -1 && i < text.length - 1; i = text.indexOf('\n', i + 1)) n++;
  return n;
}

export function renderUnifiedDiff(rawPath: string, before: string | undefined, after: string, options: RenderOptions): string {
  const filePath = visibleLine(rawPath);
  const max = options.maxInlineBytes ?? 2 * 1024 * 1024;
  const oldText = before ?? '';
  const label = before === undefined ? 'new file' : 'current';
  if (oldText.length > max || after.length > max) {
    return `${paint(`--- ${filePath} (${label}, ${lineCount(oldText)} lines)`, 'bold', options.color)}\n${paint(
      `+++ ${filePath} (proposed, ${lineCount(after)} lines)`,
      'bold',
      options.color,
    )}\n${paint('(too large to show here: [e]dit opens the proposal in your editor)', 'dim', options.color)}\n`;
  }
  if (oldText === after) return paint(`(no changes to ${filePath})\n`, 'dim', options.color);
  const patch = createTwoFilesPatch(filePath, filePath, oldText, after, label, 'proposed', { context: 3 });
  const lines = patch.split('\n').filter((l) => !l.startsWith('=====') && !l.startsWith('Index: '));
  return (
    lines
      .map((raw) => {
        const line = visible(raw);
        if (line.startsWith('+++') || line.startsWith('---')) return paint(line, 'bold', options.color);
        if (line.startsWith('@@')) return paint(line, 'cyan', options.color);
        if (line.startsWith('+')) return paint(line, 'green', options.color);
        if (line.startsWith('-')) return paint(line, 'red', options.color);
        return line;
      })
      .join('\n') + '\n'
  );
}
