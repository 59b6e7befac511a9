export * from './errors';
export { createLlmClient } from './llm-client';
export type {
  CallOptions,
  ChatCall,
  ChatCallMessage,
  ChatResult,
  ChatToolCall,
  EmbeddingsResult,
  ExtractCall,
  ExtractResult,
  LlmClient,
  LlmClientOptions,
  LlmTaskHint,
  LlmUsage,
  OutputFormat,
} from './llm-client';
export { createContentClient, PROMPT_TYPES, readPrompt } from './content-client';
export type { ContentClient, ContentClientOptions, DocumentPage, DocumentText, InternalPrompt, PromptType } from './content-client';
export * from './operations/candidates';
export * from './operations/classify';
export { answerObject, confidenceField, stringField } from './operations/json-answer';
export { countWords, keyTerms, limitWords } from './operations/text-features';
export { UsageTally } from './operations/usage';
export type { LlmUsageTotals } from './operations/usage';
export { AiClientsConfig, aiClientsHealthChecks, createAiClients } from './ai-clients';
export type { AiClientSettings } from './ai-clients';
