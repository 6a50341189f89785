import { SlidingContextError } from '../errors/sliding-context-error.js';

/**
 * Checks a `--name` value before anything is written: a name is what `agents` shows an agent as,
 * so one that is empty or only spaces would show nothing.
 * @throws SlidingContextError `INVALID_INPUT`, naming the command and the option
 */
export function requireAgentName(name: string | undefined, command: string): void {
  if (name !== undefined && name.trim() === '') {
    throw new SlidingContextError('INVALID_OPTION', `${command} --name: the name is ${name === '' ? 'empty' : 'only spaces'}; give a name with at least one visible character, e.g. try-postgres, or leave --name out.`);
  }
}
