import { convertToOpenAITool } from '@langchain/core/utils/function_calling';
import { isRecord } from '../../message/is-record.js';
import type { ToolDefinition } from '../../message/message.js';
import type { CountTarget } from '../../tokens/token-counter.js';

/** LangSmith's provider names that our catalog knows under another name. */
const PROVIDER_NAMES: Readonly<Record<string, string>> = {
  azure: 'openai',
  azure_openai: 'openai',
  google_genai: 'google',
  google_vertexai: 'google',
  vertexai: 'google',
};

function callMethod(target: Record<string, unknown>, name: string, argument?: unknown): unknown {
  const method = target[name];
  if (typeof method !== 'function') return undefined;
  try {
    return (method as (argument?: unknown) => unknown).call(target, argument);
  } catch {
    return undefined;
  }
}

/**
 * The provider and model a LangChain chat model sends to, from the LangSmith parameters every
 * chat model reports (`ls_provider`, `ls_model_name`), else its `model` field and type; what is
 * given wins. Undefined when neither says.
 */
export function langChainModelTarget(
  model: unknown,
  given: { readonly provider?: string | undefined; readonly model?: string | undefined },
): CountTarget | undefined {
  const record = isRecord(model) ? model : {};
  const params = callMethod(record, 'getLsParams', {});
  const lsProvider = isRecord(params) && typeof params.ls_provider === 'string' ? params.ls_provider : callMethod(record, '_llmType');
  const lsModel = isRecord(params) && typeof params.ls_model_name === 'string' ? params.ls_model_name : record.model;
  const provider = given.provider ?? (typeof lsProvider === 'string' ? (PROVIDER_NAMES[lsProvider] ?? lsProvider) : undefined);
  const modelName = given.model ?? (typeof lsModel === 'string' ? lsModel : undefined);
  return provider === undefined || modelName === undefined ? undefined : { provider, model: modelName };
}

/**
 * The tools an agent gives the model, as the JSON Schema definitions the provider receives
 * (LangChain's own OpenAI tool conversion); built-in provider tools that have no schema are left out.
 */
export function langChainToolDefinitions(tools: readonly unknown[]): ToolDefinition[] {
  const definitions: ToolDefinition[] = [];
  for (const tool of tools) {
    if (!isRecord(tool)) continue;
    let converted: unknown;
    try {
      converted = convertToOpenAITool(tool);
    } catch {
      continue;
    }
    const fn = isRecord(converted) && isRecord(converted.function) ? converted.function : undefined;
    if (fn === undefined || typeof fn.name !== 'string' || fn.name === '') continue;
    definitions.push({
      name: fn.name,
      ...(typeof fn.description === 'string' ? { description: fn.description } : {}),
      inputSchema: isRecord(fn.parameters) ? fn.parameters : { type: 'object', properties: {} },
    });
  }
  return definitions;
}
