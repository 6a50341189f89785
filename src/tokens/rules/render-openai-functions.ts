import type { ToolDefinition } from '../../message/message.js';

type Schema = Readonly<Record<string, unknown>>;

const isSchema = (value: unknown): value is Schema =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

function formatType(schema: Schema, indent: number): string {
  const values = Array.isArray(schema.enum) ? schema.enum : undefined;
  switch (schema.type) {
    case 'string':
      return values ? values.map((value) => JSON.stringify(value)).join(' | ') : 'string';
    case 'number':
    case 'integer':
      return values ? values.map(String).join(' | ') : 'number';
    case 'boolean':
      return 'boolean';
    case 'null':
      return 'null';
    case 'object':
      return ['{', formatProperties(schema, indent + 2), '}'].join('\n');
    case 'array':
      return isSchema(schema.items) ? `${formatType(schema.items, indent)}[]` : 'any[]';
    default:
      return 'any';
  }
}

function formatProperties(schema: Schema, indent: number): string {
  const properties = isSchema(schema.properties) ? schema.properties : {};
  const required = Array.isArray(schema.required) ? schema.required : [];
  const lines: string[] = [];
  for (const [name, property] of Object.entries(properties)) {
    const propertySchema = isSchema(property) ? property : {};
    if (typeof propertySchema.description === 'string') lines.push(`// ${propertySchema.description}`);
    const optional = required.includes(name) ? '' : '?';
    lines.push(`${name}${optional}: ${formatType(propertySchema, indent)},`);
  }
  return lines.map((line) => ' '.repeat(indent) + line).join('\n');
}

/**
 * Renders tool definitions the way OpenAI shows them to chat models: TypeScript-like types in a
 * `namespace functions` block.
 * @see https://community.openai.com/t/how-to-calculate-the-tokens-when-using-function-call/266573
 */
export function renderOpenAiFunctions(tools: readonly ToolDefinition[]): string {
  const lines = ['namespace functions {', ''];
  for (const tool of tools) {
    if (tool.description) lines.push(`// ${tool.description}`);
    const properties = isSchema(tool.inputSchema.properties) ? tool.inputSchema.properties : {};
    if (Object.keys(properties).length > 0) {
      lines.push(`type ${tool.name} = (_: {`, formatProperties(tool.inputSchema, 0), '}) => any;');
    } else {
      lines.push(`type ${tool.name} = () => any;`);
    }
    lines.push('');
  }
  lines.push('} // namespace functions');
  return lines.join('\n');
}
