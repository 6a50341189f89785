/**
 * The key in a converted Gemini body's `options` that says it came in the REST shape
 * (`systemInstruction`, `tools` and `generationConfig` at the top level), so that it goes out in
 * that shape; without it a body is built as the SDK's `{ model, contents, config }`. It names no
 * Gemini field and is never sent.
 */
export const GOOGLE_SHAPE_OPTION = 'sliding-context:shape';
