export * from './types';
export { DEFAULT_SYSTEM_ROLE, JSON_INSTRUCTION, renderRtioMessages } from './render';
export { fieldKey, rtioFromClassification } from './from-classification';
export { fillExampleOutput, jsonObjectFrom } from './example-output';
export type { FilledExample } from './example-output';
export { toRtioPrompt } from './normalize';
