/**
 * Scripted model turns for `gemini --fake-responses FILE`: one JSON object per
 * line, one line per model call, consumed in order.
 */
import { writeFileSync } from 'node:fs';

export interface FakeTurn {
  method: 'generateContentStream';
  /** Gemini API stream chunks. */
  response: unknown[];
}

function turn(parts: unknown[]): FakeTurn {
  return {
    method: 'generateContentStream',
    response: [
      {
        candidates: [{ content: { role: 'model', parts }, finishReason: 'STOP', index: 0 }],
        usageMetadata: { promptTokenCount: 1, candidatesTokenCount: 1, totalTokenCount: 2 },
      },
    ],
  };
}

/** The model calls tool `name` with `args`. */
export function functionCallTurn(name: string, args: Record<string, unknown>): FakeTurn {
  return turn([{ functionCall: { name, args } }]);
}

/** The model answers with text. */
export function textTurn(text: string): FakeTurn {
  return turn([{ text }]);
}

/** A write needs two turns: the call, then the model's answer to the tool result. */
export function writeFileTurns(filePath: string, content: string, after = 'Done.'): FakeTurn[] {
  return [functionCallTurn('write_file', { file_path: filePath, content }), textTurn(after)];
}

export function writeFakeResponses(file: string, turns: readonly FakeTurn[]): void {
  writeFileSync(file, turns.map((t) => JSON.stringify(t)).join('\n') + '\n');
}
