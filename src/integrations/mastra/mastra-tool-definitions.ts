import { isRecord } from '../../message/is-record.js';
import type { ToolDefinition } from '../../message/message.js';

/** The JSON Schema of a tool's input as Mastra holds it: `parameters` or `inputSchema`, a schema object or `{ jsonSchema }`. */
function inputSchemaOf(tool: Record<string, unknown>): Record<string, unknown> {
  for (const schema of [tool.parameters, tool.inputSchema]) {
    if (!isRecord(schema)) continue;
    if (isRecord(schema.jsonSchema)) return schema.jsonSchema;
    if (typeof schema.type === 'string') return schema;
  }
  return {};
}

/**
 * The function tools of a Mastra step (`processInputStep`'s `tools`, by name) as tool
 * definitions, so that counts include what the provider renders of them. Provider-defined tools
 * are the provider's and are left out.
 */
export function mastraToolDefinitions(tools: Readonly<Record<string, unknown>> | undefined, activeTools?: readonly string[]): ToolDefinition[] {
  const definitions: ToolDefinition[] = [];
  for (const [name, tool] of Object.entries(tools ?? {})) {
    if (!isRecord(tool) || tool.type === 'provider-defined' || tool.type === 'provider') continue;
    if (activeTools !== undefined && !activeTools.includes(name)) continue;
    definitions.push({ name, ...(typeof tool.description === 'string' ? { description: tool.description } : {}), inputSchema: inputSchemaOf(tool) });
  }
  return definitions;
}
