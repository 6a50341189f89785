import { openAiFraming, openAiImageRules } from '../data/openai-counting-data.js';
import type { EncodingName } from '../encoding/text-encoding.js';
import { addMeasures, fixed, type Measure } from '../measure.js';
import { countOpenAiImage, type ImageDetail } from '../media/image-tokens.js';
import type { CountingContext, CountingRules } from './counting-rules.js';
import { imageDimensionsOf, measureFile, partsOf, toolOutputImages } from './_parts.js';
import { toolOutputText } from '../../message/tool-output-text.js';
import { toolArgumentsText } from '../../message/tool-call-input.js';
import { renderOpenAiFunctions } from './render-openai-functions.js';

function framingFor(context: CountingContext) {
  const encoding: EncodingName = context.model.tokenizer.kind === 'exact' ? context.model.tokenizer.encoding : 'o200k_base';
  return openAiFraming[encoding];
}

function imageRuleFor(model: string) {
  return (openAiImageRules.find(([prefix]) => model.startsWith(prefix)) ?? openAiImageRules.at(-1))?.[1];
}

function detailOf(options: Readonly<Record<string, Readonly<Record<string, unknown>>>> | undefined): ImageDetail {
  const detail = options?.openai?.imageDetail ?? options?.openai?.detail;
  return detail === 'low' || detail === 'high' ? detail : 'auto';
}

/**
 * OpenAI chat rendering: ChatML framing per message, reply priming, tools as
 * `namespace functions` text, images by tiles or patches.
 */
export const openAiRules: CountingRules = {
  preamble({ system, tools }, context) {
    const framing = framingFor(context);
    const measures: Measure[] = [fixed(framing.replyPrimingTokens)];
    const hasTools = tools !== undefined && tools.length > 0;
    if (system !== undefined) {
      measures.push(
        fixed(framing.tokensPerMessage),
        context.measureText('system'),
        context.measureText(hasTools ? `${system}\n` : system),
      );
    }
    if (hasTools) {
      // Without a system prompt here we cannot know whether a system message later takes its place.
      measures.push(
        context.measureText(renderOpenAiFunctions(tools)),
        fixed(framing.toolsOverheadTokens + (system !== undefined ? framing.toolsWithSystemTokens : 0), system !== undefined),
      );
    }
    return addMeasures(measures);
  },

  message(message, context) {
    const framing = framingFor(context);
    const measures: Measure[] = [fixed(framing.tokensPerMessage), context.measureText(message.role)];
    const imageRule = imageRuleFor(context.model.model);
    for (const part of partsOf(message)) {
      switch (part.type) {
        case 'text':
          measures.push(context.measureText(part.text));
          break;
        case 'reasoning':
          // Reasoning is not replayed by every API; counting it errs on the safe side.
          measures.push({ tokens: context.measureText(part.text).tokens, exact: false });
          break;
        case 'image':
          if (imageRule) measures.push(countOpenAiImage(imageRule, imageDimensionsOf(part), detailOf(part.providerOptions)));
          break;
        case 'file':
          measures.push(measureFile(part, context.measureText));
          break;
        case 'tool-call': {
          const call = addMeasures([
            context.measureText(part.toolName),
            context.measureText(toolArgumentsText(part)),
            fixed(framing.functionCallTokens),
          ]);
          measures.push({ tokens: call.tokens, exact: false });
          break;
        }
        case 'tool-result': {
          const result = addMeasures([
            message.role === 'tool' ? fixed(0) : fixed(framing.tokensPerMessage + 1),
            context.measureText(part.toolCallId),
            context.measureText(toolOutputText(part.output)),
            ...toolOutputImages(part.output).map((image) =>
              imageRule ? countOpenAiImage(imageRule, imageDimensionsOf({ type: 'image', image: image.data }), 'auto') : fixed(0),
            ),
          ]);
          measures.push({ tokens: result.tokens, exact: false });
          break;
        }
      }
    }
    return addMeasures(measures);
  },
};
