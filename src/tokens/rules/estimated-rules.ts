import {
  anthropicImageTiers,
  anthropicToolSystemPromptTokens,
  estimateFamilies,
  newestAnthropicImageTier,
} from '../data/estimate-families.js';
import { addMeasures, fixed, type Measure } from '../measure.js';
import type { ImageDimensions } from '../media/image-dimensions.js';
import { countAnthropicImage, countGeminiImage, type ImageTokens } from '../media/image-tokens.js';
import type { CountingContext, CountingRules, ToolChoice } from './counting-rules.js';
import { imageDimensionsOf, measureFile, partsOf, toolOutputImages } from './_parts.js';
import { toolOutputText } from '../../message/tool-output-text.js';
import { objectToolInput } from '../../message/tool-call-input.js';

/** What differs between providers counted by estimate. */
interface EstimateProfile {
  /** Tool definitions as the provider's wire format spells them. */
  toolsJson(tools: readonly { name: string; description?: string | undefined; inputSchema: unknown }[]): string;
  toolSystemPromptTokens(model: string, toolChoice: ToolChoice): number;
  image(context: CountingContext, size: ImageDimensions | undefined): ImageTokens;
  /** Tokens around a tool call or a tool result block. */
  readonly toolBlockTokens: number;
}

function familyOf(context: CountingContext) {
  return context.model.tokenizer.kind === 'estimate' ? estimateFamilies[context.model.tokenizer.family] : estimateFamilies.gemini;
}

function estimatedRules(profile: EstimateProfile): CountingRules {
  const inexact = (measure: Measure): Measure => ({ tokens: measure.tokens, exact: false });
  return {
    preamble({ system, tools, toolChoice }, context) {
      const measures: Measure[] = [fixed(familyOf(context).requestFramingTokens, false)];
      if (system !== undefined) measures.push(context.measureText(system));
      if (tools !== undefined && tools.length > 0) {
        measures.push(
          context.measureText(profile.toolsJson(tools)),
          fixed(profile.toolSystemPromptTokens(context.model.model, toolChoice ?? 'auto'), false),
        );
      }
      return inexact(addMeasures(measures));
    },
    message(message, context) {
      const measures: Measure[] = [fixed(familyOf(context).messageFramingTokens, false)];
      for (const part of partsOf(message)) {
        switch (part.type) {
          case 'text':
          case 'reasoning':
            measures.push(context.measureText(part.text));
            break;
          case 'image':
            measures.push(profile.image(context, imageDimensionsOf(part)));
            break;
          case 'file':
            measures.push(measureFile(part, context.measureText));
            break;
          case 'tool-call':
            measures.push(
              fixed(profile.toolBlockTokens, false),
              context.measureText(JSON.stringify({ id: part.toolCallId, name: part.toolName, input: objectToolInput(part.input) })),
            );
            break;
          case 'tool-result':
            measures.push(fixed(profile.toolBlockTokens, false), context.measureText(part.toolCallId), context.measureText(toolOutputText(part.output)));
            for (const image of toolOutputImages(part.output)) measures.push(profile.image(context, imageDimensionsOf({ type: 'image', image: image.data })));
            break;
        }
      }
      return inexact(addMeasures(measures));
    },
  };
}

/** Anthropic Messages, estimated: o200k × Claude factors, the hidden tool prompt, 28 px image tiles. */
export const anthropicRules = estimatedRules({
  toolsJson: (tools) =>
    JSON.stringify(tools.map((tool) => ({ name: tool.name, description: tool.description, input_schema: tool.inputSchema }))),
  toolSystemPromptTokens(model, toolChoice) {
    const row = anthropicToolSystemPromptTokens.find(([prefix]) => model.startsWith(prefix));
    if (!row) return 0;
    return toolChoice === 'any' || toolChoice === 'tool' ? row[2] : row[1];
  },
  image(context, size) {
    const tier = context.model.tokenizer.kind === 'estimate' ? anthropicImageTiers[context.model.tokenizer.family] : undefined;
    return countAnthropicImage(tier ?? newestAnthropicImageTier, size);
  },
  toolBlockTokens: 6,
});

/** Gemini, estimated: o200k × Gemini factors, function declarations, 258-token image tiles. */
export const googleRules = estimatedRules({
  toolsJson: (tools) =>
    JSON.stringify({
      functionDeclarations: tools.map((tool) => ({ name: tool.name, description: tool.description, parameters: tool.inputSchema })),
    }),
  toolSystemPromptTokens: () => 0,
  image: (context, size) => countGeminiImage(context.model.model, size),
  toolBlockTokens: 4,
});
