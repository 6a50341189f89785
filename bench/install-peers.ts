/**
 * `npm run bench:peers`: installs the libraries the benchmarks compare against (bench/peers, a
 * package of its own) when they are missing or stale, so the project's own install never sees
 * their pinned dependencies.
 */
import { fileURLToPath } from 'node:url';
import { installLockedPackages } from '../src/testing/install-locked-packages.js';

installLockedPackages(fileURLToPath(new URL('peers/', import.meta.url)), 'the benchmark peers');
