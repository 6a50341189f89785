/**
 * A copy of a global regex that `String.prototype.matchAll` iterates itself, not a new copy.
 *
 * `matchAll` makes a new regex from its argument on every call (its species constructor).
 * V8 compiles that copy from its compilation cache, which drops an entry unused across two full
 * collections: a server holding long conversations then recompiles the o200k pre-tokenizer
 * (47 KB of regex bytecode with Unicode classes) on the first count after a quiet spell,
 * 4 to 14 ms for a one-token text. The regex returned here keeps its compiled code.
 *
 * `pattern` must be global, as `matchAll` requires. Iterate the copy to the end before iterating
 * it again (a second `matchAll` starts from the top and shares its `lastIndex`): keep it private
 * to one synchronous loop, as gpt-tokenizer's `countNative` is.
 */
export function selfIteratingRegex(pattern: RegExp): RegExp {
  const regex = new RegExp(pattern.source, pattern.flags);
  // `new C(regex, flags)` in `matchAll` calls this; a constructor that returns an object gives that object.
  function reuse(): RegExp {
    regex.lastIndex = 0;
    return regex;
  }
  Object.defineProperty(regex, 'constructor', { value: { [Symbol.species]: reuse } });
  return regex;
}
