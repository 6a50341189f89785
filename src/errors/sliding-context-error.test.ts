import { describe, expect, it } from 'vitest';
import { INVALID_INPUT_CODES, isSlidingContextError, SlidingContextError } from './sliding-context-error.js';

let copies = 0;

/** A fresh copy of the module, as when two installed versions of the package meet in one program. */
async function anotherCopy(): Promise<typeof import('./sliding-context-error.js')> {
  copies += 1;
  return await import(/* @vite-ignore */ `./sliding-context-error.ts?copy=${String(copies)}`) as typeof import('./sliding-context-error.js');
}

describe('SlidingContextError.isInstance', () => {
  it('recognizes an error made by another copy of the class, where instanceof cannot', async () => {
    const copy = await anotherCopy();
    expect(copy.SlidingContextError).not.toBe(SlidingContextError);
    const foreign = new copy.SlidingContextError('UNKNOWN_AGENT', 'no such agent');
    expect(foreign instanceof SlidingContextError).toBe(false);
    expect(SlidingContextError.isInstance(foreign)).toBe(true);
    expect(isSlidingContextError(foreign, 'UNKNOWN_AGENT')).toBe(true);
    expect(copy.SlidingContextError.isInstance(new SlidingContextError('ABORTED', 'stopped'))).toBe(true);
  });

  it.each([
    ['a plain Error', new Error('x')],
    ['an error that only looks like one', Object.assign(new Error('x'), { name: 'SlidingContextError', code: 'ABORTED' })],
    ['a string', 'SlidingContextError'],
    ['null', null],
    ['undefined', undefined],
  ])('refuses %s', (_, value) => {
    expect(SlidingContextError.isInstance(value)).toBe(false);
    expect(isSlidingContextError(value)).toBe(false);
  });

  it('keeps code, message, name and cause', () => {
    const cause = new Error('root');
    const error = new SlidingContextError('STORE_UNAVAILABLE', 'The store is down.', { cause });
    expect(error).toMatchObject({ code: 'STORE_UNAVAILABLE', message: 'The store is down.', name: 'SlidingContextError', cause });
    expect(error).toBeInstanceOf(Error);
  });
});

describe('the INVALID_INPUT family', () => {
  it.each(INVALID_INPUT_CODES)('holds %s: isInvalidInput and the family name both match it', async (code) => {
    const error = new SlidingContextError(code, 'bad input');
    expect(SlidingContextError.isInvalidInput(error)).toBe(true);
    expect(isSlidingContextError(error, 'INVALID_INPUT')).toBe(true);
    expect(isSlidingContextError(error, code)).toBe(true);
    const copy = await anotherCopy();
    expect(copy.SlidingContextError.isInvalidInput(error)).toBe(true);
  });

  it.each(['INVALID_MESSAGE', 'UNKNOWN_AGENT', 'STORE_LOCKED', 'ABORTED'] as const)('leaves %s out', (code) => {
    const error = new SlidingContextError(code, 'not bad input of that kind');
    expect(SlidingContextError.isInvalidInput(error)).toBe(false);
    expect(isSlidingContextError(error, 'INVALID_INPUT')).toBe(false);
  });
});
