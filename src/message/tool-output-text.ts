import type { ToolResultOutput } from './message.js';
import { toJson } from './to-json.js';

/** The text a tool result shows the model: strings as they are, JSON serialized, media left out. */
export function toolOutputText(output: ToolResultOutput): string {
  switch (output.type) {
    case 'text':
    case 'error-text':
      return output.value;
    case 'json':
    case 'error-json':
      return toJson(output.value);
    case 'content':
      return output.value.map((item) => (item.type === 'text' ? item.text : '')).join('\n');
  }
}
