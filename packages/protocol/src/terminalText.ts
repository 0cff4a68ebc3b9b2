/**
 * Text a terminal will show, cleaned of what a terminal would obey: C0 control
 * characters but tab and newline (ESC starts OSC 52, a clipboard write, OSC 8
 * and CSI; CR rewrites the line), DEL, and C1 control characters (0x9b is a
 * one-byte CSI to some terminals). Every text handed to an agent or printed
 * (a file name, a diagnostic message, an error echoing a path) goes through
 * here; nothing else is changed.
 */

// eslint-disable-next-line no-control-regex -- matching control characters is the point
export const TERMINAL_CONTROL = /[\x00-\x08\x0b-\x1f\x7f-\x9f]/g;
// eslint-disable-next-line no-control-regex
const HAS_CONTROL = /[\x00-\x08\x0b-\x1f\x7f-\x9f]/;
/** A JSON text that may hold a control character escaped: `\u001b`, `\r`, `\b`, `\f`. */
const ESCAPED_CONTROL = /\\(u00[01]|u007f|u00[89]|[bfr])/i;

/** `text` without C0/C1 control characters (tab and newline kept). */
export function cleanText(text: string): string {
  return HAS_CONTROL.test(text) ? text.replace(TERMINAL_CONTROL, '') : text;
}

/** `value` with every string in it (keys too) cleaned; the same value when nothing needed it. */
export function cleanStrings<T>(value: T): T {
  return clean(value, 0) as T;
}

/** Deeper than this, values are left as they are (JSON from a companion is a few levels deep). */
const MAX_DEPTH = 64;

function clean(value: unknown, depth: number): unknown {
  if (typeof value === 'string') return cleanText(value);
  if (value === null || typeof value !== 'object' || depth > MAX_DEPTH) return value;
  if (Array.isArray(value)) {
    let out: unknown[] | undefined;
    value.forEach((v, i) => {
      const c = clean(v, depth + 1);
      if (c !== v) (out ??= [...value])[i] = c;
    });
    return out ?? value;
  }
  let changed = false;
  const entries = Object.entries(value).map(([k, v]) => {
    const ck = cleanText(k);
    const cv = clean(v, depth + 1);
    if (ck !== k || cv !== v) changed = true;
    return [ck, cv] as const;
  });
  return changed ? Object.fromEntries(entries) : value;
}

/**
 * A tool's answer text, cleaned: JSON text (a diagnostics list, open files) is
 * parsed, its strings cleaned and written again, since an escape written
 * `\u001b` in it is an ESC to whoever decodes it; other text is cleaned as is.
 */
export function cleanToolText(text: string): string {
  if (!ESCAPED_CONTROL.test(text)) return cleanText(text);
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return cleanText(text);
  }
  const cleaned = cleanStrings(json);
  return cleaned === json ? text : JSON.stringify(cleaned);
}
