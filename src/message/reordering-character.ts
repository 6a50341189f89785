/**
 * One line or paragraph separator, direction override or isolate: characters that break or
 * reorder the line a terminal shows (Trojan Source), so that text from outside never shows them raw.
 */
export const REORDERING_CHARACTER = /[\u2028\u2029\u202a-\u202e\u2066-\u2069]/;
