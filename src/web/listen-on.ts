import type { Server } from 'node:http';
import { SlidingContextError } from '../errors/sliding-context-error.js';

/** Why a server could not listen on `host:port`, in a sentence that says what to change. */
function listenFailure(error: NodeJS.ErrnoException, host: string, port: number): SlidingContextError {
  const where = `${host.includes(':') ? `[${host}]` : host}:${String(port)}`;
  if (error.code === 'EADDRINUSE') return new SlidingContextError('INVALID_OPTION', `--port ${String(port)}: ${where} is in use by another program; give another port, or 0 for a free one.`, { cause: error });
  if (error.code === 'EACCES') return new SlidingContextError('INVALID_OPTION', `--port ${String(port)}: listening on ${where} is not permitted (ports below 1024 need privileges); give a port from 1024 up.`, { cause: error });
  if (error.code === 'EADDRNOTAVAIL' || error.code === 'ENOTFOUND' || error.code === 'EAI_AGAIN') {
    return new SlidingContextError('INVALID_OPTION', `--host ${host}: not an address of this machine; give one of its addresses, e.g. 127.0.0.1.`, { cause: error });
  }
  return new SlidingContextError('INVALID_OPTION', `could not listen on ${where}: ${error.message}.`, { cause: error });
}

/**
 * Starts `server` listening on `host:port`.
 * @throws SlidingContextError `INVALID_OPTION` when it cannot (the port in use, not permitted, no such address)
 */
export function listenOn(server: Server, port: number, host: string): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const failed = (error: NodeJS.ErrnoException) => {
      reject(listenFailure(error, host, port));
    };
    server.once('error', failed);
    server.listen(port, host, () => {
      server.off('error', failed);
      resolve();
    });
  });
}
