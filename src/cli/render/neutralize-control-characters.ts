import { REORDERING_CHARACTER } from '../../message/reordering-character.js';

/**
 * C0 controls but tab and newline, DEL, and C1 controls: what a terminal reads as a command (ESC
 * starts CSI and OSC sequences; a C1 CSI or OSC does the same in one character).
 */
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const CONTROL_CHARACTERS = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;

const REORDERING_CHARACTERS = new RegExp(REORDERING_CHARACTER.source, 'g');

/**
 * Text for a terminal with every control character shown as a visible `\xNN` instead of sent raw,
 * so that stored titles, tool names and outputs cannot move the cursor, retitle the window or clear
 * the screen, and the separators and direction controls as `\uNNNN`, so that they cannot reorder
 * it. Tab and newline are kept. Only human output goes through it; JSON output escapes them.
 */
export function neutralizeControlCharacters(text: string): string {
  return text
    .replace(CONTROL_CHARACTERS, (character) => `\\x${character.charCodeAt(0).toString(16).padStart(2, '0')}`)
    .replace(REORDERING_CHARACTERS, (character) => `\\u${character.charCodeAt(0).toString(16)}`);
}
