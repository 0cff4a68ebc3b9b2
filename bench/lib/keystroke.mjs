/**
 * What the Neovim and Vim keystroke benches share: rounds alternated between
 * the editor without and with the plugin (so load hits both alike), each kind
 * of sample summarized by its median, and what the plugin adds.
 */
import { log } from './common.mjs';

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
export const round3 = (x) => Math.round(x * 1000) / 1000;

/** Sample kind → the field its median is reported as. */
const FIELDS = {
  paced: 'pacedMoveUs',
  cursor: 'cursorMovedUs',
  cursorWall: 'cursorMovedWallUs',
  burst: 'burstMoveUs',
  visual: 'visualMoveUs',
  typing: 'typingMsPerChar',
};

function summarize(samples) {
  return Object.fromEntries(Object.entries(samples).map(([kind, values]) => [FIELDS[kind], round3(median(values))]));
}

/** `round(editor, samples)` pushes one sample of each kind; returns both editors' medians. */
export async function alternateRounds({ without, withPlugin, rounds, kinds, round }) {
  const a = Object.fromEntries(kinds.map((k) => [k, []]));
  const b = Object.fromEntries(kinds.map((k) => [k, []]));
  for (let r = 0; r < rounds; r++) {
    log(`round ${r + 1} of ${rounds}`);
    await round(without, a);
    await round(withPlugin, b);
  }
  return { without: summarize(a), with: summarize(b) };
}

/** The plugin's cost per move (the goal's figure, its limit) and per kind of move. */
export function addedByPlugin(without, withPlugin, limitUs, visualLimitUs) {
  const added = round3(withPlugin.cursorMovedUs - without.cursorMovedUs);
  const result = {
    addedPerCursorMoveUs: added,
    ratio: round3(withPlugin.cursorMovedUs / without.cursorMovedUs),
    limitAddedPerCursorMoveUs: limitUs,
    withinLimit: added <= limitUs,
    addedPerPacedMoveUs: round3(withPlugin.pacedMoveUs - without.pacedMoveUs),
    addedPerBurstMoveUs: round3(withPlugin.burstMoveUs - without.burstMoveUs),
    addedPerVisualMoveUs: round3(withPlugin.visualMoveUs - without.visualMoveUs),
  };
  if (visualLimitUs !== undefined) {
    result.limitAddedPerVisualMoveUs = visualLimitUs;
    result.visualWithinLimit = result.addedPerVisualMoveUs <= visualLimitUs;
  }
  if (without.typingMsPerChar !== undefined) result.addedPerTypedCharMs = round3(withPlugin.typingMsPerChar - without.typingMsPerChar);
  return result;
}
