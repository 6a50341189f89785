// @ts-check
import { builtinModules } from 'node:module';

/**
 * The pure core, lowest layer first: each may import only the layers before it (and src/errors).
 * None may do I/O: no Node built-ins, no database, no provider SDK, nothing from the edges.
 */
export const CORE_LAYERS = ['message', 'exchange', 'tokens', 'window', 'condense'];

/** The folders around the core: they may import it, never the other way round. */
const EDGES = ['conversation', 'store', 'providers', 'integrations', 'views', 'web', 'cli', 'index.js'];

const escape = (name) => name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const names = (list) => list.map(escape).join('|');

const NODE_BUILTINS = {
  regex: `^(node:|(${names(builtinModules)})(/|$))`,
  message: 'The core does no I/O: Node built-ins belong in store/, providers/ or cli/.',
};
const DATABASES = {
  regex: '^(@electric-sql/|kysely(/|$)|pg(/|$))',
  message: 'The core does no I/O: database access belongs in store/.',
};
const PROVIDER_SDKS = {
  regex: '^(@anthropic-ai/|@ai-sdk/|(openai|@google/genai|ai|commander)(/|$))',
  message: 'The core calls no provider: SDKs belong in providers/ (and commander in cli/).',
};
const SELF = {
  regex: '^sliding-context(/|$)',
  message: 'Import the module itself by a relative path: the package entry point is above the core.',
};

/** The relative imports a layer may not make: the core layers above it, the edges, the test helpers. */
function layersAbove(layer, { tests }) {
  const above = [...CORE_LAYERS.slice(CORE_LAYERS.indexOf(layer) + 1), ...EDGES, ...(tests ? [] : ['testing'])];
  return {
    regex: `^(\\.\\./)+(${names(above)})(/|$)`,
    message: `src/${layer} may import only ${['errors', ...CORE_LAYERS.slice(0, CORE_LAYERS.indexOf(layer))].join(', ')} and itself (order: ${CORE_LAYERS.join(' < ')} < the edges).`,
  };
}

/** Flat-config blocks that hold each core layer to its place. */
export function coreLayerRules() {
  return CORE_LAYERS.flatMap((layer) => [
    {
      files: [`src/${layer}/**/*.ts`],
      ignores: ['**/*.test.ts'],
      rules: {
        'no-restricted-imports': ['error', { patterns: [NODE_BUILTINS, DATABASES, PROVIDER_SDKS, SELF, layersAbove(layer, { tests: false })] }],
        'no-restricted-globals': ['error', ...['process', 'Buffer', 'require', '__dirname', '__filename', 'global'].map((name) => ({
          name, message: 'The core does no I/O and reads no environment: take what it needs as a parameter.',
        }))],
      },
    },
    {
      // Tests may read their fixtures from disk (Node built-ins) and use src/testing; the rest holds.
      files: [`src/${layer}/**/*.test.ts`],
      rules: {
        'no-restricted-imports': ['error', { patterns: [DATABASES, PROVIDER_SDKS, SELF, layersAbove(layer, { tests: true })] }],
      },
    },
  ]);
}
