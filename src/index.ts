/**
 * `sliding-context`: the pure core (messages, exchanges, token counting, windows, condensing,
 * errors). It loads no database and no provider SDK: the store is `sliding-context/store`, the
 * provider wire formats and clients are `sliding-context/providers`.
 */
export {
  INVALID_INPUT_CODES,
  type InvalidInputCode,
  isSlidingContextError,
  SlidingContextError,
  type SlidingContextErrorCode,
  type SlidingContextErrorCodeOrFamily,
} from './errors/sliding-context-error.js';
export {
  checkPairing,
  type PairingProblem,
  type PairingProblemCode,
} from './exchange/check-pairing.js';
export { detectExchanges, type Exchange, startsExchange } from './exchange/detect-exchanges.js';
export { requireValidConversation } from './exchange/require-valid-conversation.js';
export { describeExchange, type ExchangeDescription } from './exchange/describe-exchange.js';
export { applyEvents, applyEventsTo, type ReplayedHistory, replayEvents } from './message/apply-events.js';
export { isPinEvent, pinEvent, type PinEventKind } from './message/pin-event.js';
export { hoistedPinMessage, pinEventsFor, pinnedText, requirePinRoom, showsText } from './window/pinned-message.js';
export * from './message/message.js';
export { parseMessages, parseToolDefinitions } from './message/parse-messages.js';
export { type PairingRepair, repairPairing } from './exchange/repair-pairing.js';
export { RAW_ARGUMENTS_KEY } from './message/tool-call-input.js';
export { bytesPerTokenCounter } from './tokens/bytes-per-token-counter.js';
export { type ContentType, classifyContent } from './tokens/content-type.js';
export { createTokenCounter, type TokenCounterOptions } from './tokens/create-token-counter.js';
export { loadEncoding } from './tokens/encoding/load-encoding.js';
export type { EncodingName, TextEncoding } from './tokens/encoding/text-encoding.js';
export { loadTokenCounter } from './tokens/load-token-counter.js';
export { type ModelInfo, modelFamily, type ModelOverride, resolveModel, type TokenizerChoice } from './tokens/model-catalog.js';
export { inputTokensFromUsage } from './tokens/provider-usage.js';
export type { ToolChoice } from './tokens/rules/counting-rules.js';
export { UsageCalibration, type UsageCalibrationOptions } from './tokens/usage-calibration.js';
export { sumTokenCounts } from './tokens/sum-token-counts.js';
export {
  type CountableRequest,
  type CountTarget,
  DEFAULT_MODEL,
  DEFAULT_PROVIDER,
  type TokenCount,
  type TokenCounter,
} from './tokens/token-counter.js';
export { buildAbortedResultMessage, type UnansweredCall } from './exchange/aborted-results.js';
export {
  DEFAULT_BUDGET_TOKENS,
  resolveBudgetTokens,
  validateBudgetTokens,
} from './window/budget-tokens.js';
export { type PlanWindowOptions, planWindow } from './window/plan-window.js';
export type { PlannedExchange, PlannedPin, SyntheticResult, WindowPlan } from './window/window-plan.js';
export type { CutReason, StablePrefixEnd, WindowCut } from './window/window-cut-report.js';
export { type PruneResult, WindowState, type WindowStateOptions } from './window/window-state.js';
export { DIGEST_HEADING, digestExchange, digestSummarizer } from './condense/digest-summarizer.js';
export { describeLoss, LOSS_KINDS, type LossItem, type LossKind, type LossReportInput, lossReport, MAX_LOSS_ITEMS } from './condense/loss-report.js';
export type { Summarizer, SummaryCost, SummaryInput, SummaryResult } from './condense/summarizer.js';
export { checkSummary, type SummaryFailure, type SummaryFailureReason } from './condense/summary-failure.js';
export { isSummaryMessage, type SummaryData, summaryMessage } from './condense/stored-summary.js';
export { DEFAULT_CONDENSE_THRESHOLD, resolveCondenseThreshold, shouldCondense } from './condense/condense-threshold.js';
export { DEFAULT_BUFFER_FRACTION, DEFAULT_RESERVED_OUTPUT_TOKENS, type ModelBudget, type ModelBudgetOverrides, modelBudget } from './window/model-budget.js';
export {
  type CacheAwarePolicy,
  type ClearToolOutputsPolicy,
  DEFAULT_FRACTION,
  DEFAULT_KEPT_TOOL_OUTPUTS,
  DEFAULT_LOW_WATER_MARK,
  DEFAULT_MINIMUM_CLEARED_TOKENS,
  DEFAULT_RETENTION_WINDOW,
  DEFAULT_WINDOW_POLICY,
  type FractionPolicy,
  type SequencePolicy,
  validateWindowPolicy,
  WINDOW_POLICY_NAMES,
  type WindowPolicy,
} from './window/window-policy.js';
export { type ClearedToolOutput, clearedOutputText, clearToolOutputs, type ClearToolOutputsInput } from './window/clear-tool-outputs.js';
export { type CompressibleRun, findCompressibleRun, sequenceThresholdFires } from './window/sequence-policy.js';
export { DEFAULT_CONDENSING_PROMPT, llmSummarizer, type LlmSummarizerOptions } from './condense/llm-summarizer.js';
export type { Complete, CompleteOptions, Completion } from './condense/complete.js';
