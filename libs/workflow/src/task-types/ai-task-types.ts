import type { TaskTypeDefinition } from './task-type';
import { CLASSIFICATION_TYPES, fileUrl, flag, modelType, objectSchema, positiveNumber } from './schema-fragments';

const classificationType = {
  type: 'string',
  enum: [...CLASSIFICATION_TYPES],
  default: 'document_type',
  description: 'What to classify by',
};

const promptId = {
  description: 'Id of a stored prompt (integer, or a string that may hold a {{template}})',
  anyOf: [
    { type: 'integer', minimum: 1 },
    { type: 'string', minLength: 1 },
  ],
};

const outputFormat = { type: 'string', enum: ['json', 'text'], default: 'json', description: 'Shape of the result' };

const metadata = { type: 'object', description: 'Free-form metadata passed along with the document' };
const promptData = { type: 'object', description: 'Values substituted into the prompt' };

export const classificationTask: TaskTypeDefinition = {
  id: 'classification_task',
  name: 'Classify document',
  category: 'AI Operations',
  description: 'Classifies a document by type, sentiment or topic with an LLM.',
  icon: 'tags',
  processor: 'classification',
  config_schema: objectSchema({
    classification_type: classificationType,
    include_confidence: flag('Return a confidence score', true),
    return_multiple: flag('Return several candidate classes', false),
    model_type: modelType,
  }),
  input_schema: objectSchema({ file_url: fileUrl, metadata }, ['file_url']),
  output_schema: objectSchema({
    prompt_title: { type: 'string' },
    section: { type: 'string' },
    confidence: { type: 'number' },
    classification: { type: 'object' },
  }),
};

export const extractionTask: TaskTypeDefinition = {
  id: 'extraction_task',
  name: 'Extract data',
  category: 'AI Operations',
  description: 'Extracts structured data from a document using a stored prompt.',
  icon: 'file-search',
  processor: 'document_extraction',
  config_schema: objectSchema({
    prompt_id: promptId,
    model_type: modelType,
    output_format: outputFormat,
    use_classification_prompt: flag('Use the prompt matched by an upstream classification', false),
  }),
  input_schema: objectSchema({ file_url: fileUrl, prompt_data: promptData }, ['file_url']),
  output_schema: objectSchema({
    extraction_result: { description: 'Extracted data (object when output_format is json)' },
    confidence: { type: 'number' },
    tokens_used: { type: 'integer' },
  }),
};

export const llmTask: TaskTypeDefinition = {
  id: 'llm_task',
  name: 'LLM prompt',
  category: 'AI Operations',
  description: 'Runs a stored prompt or free prompt text against an LLM, optionally with documents and text.',
  icon: 'sparkles',
  processor: 'llm_task',
  config_schema: objectSchema({
    prompt_id: promptId,
    prompt_text: { type: 'string', description: 'Prompt text; may hold {{templates}}' },
    model_type: modelType,
    process_combined_inputs: flag('Send all inputs together in one request', true),
    output_format: outputFormat,
  }),
  input_schema: objectSchema({
    file_url: fileUrl,
    prompt_data: promptData,
    text_input: { type: 'string', description: 'Text to include in the request' },
  }),
  output_schema: objectSchema({
    result: { description: 'The model answer (object when output_format is json)' },
    tokens_used: { type: 'integer' },
  }),
};

export const summarizationTask: TaskTypeDefinition = {
  id: 'summarization_task',
  name: 'Summarize',
  category: 'AI Operations',
  description: 'Summarizes a document or text.',
  icon: 'file-text',
  processor: 'summarization',
  config_schema: objectSchema({
    summary_type: {
      type: 'string',
      enum: ['brief', 'detailed', 'bullet_points'],
      default: 'brief',
      description: 'Style of the summary',
    },
    max_length: positiveNumber('Maximum summary length in words', 500),
    model_type: modelType,
  }),
  input_schema: objectSchema({
    file_url: fileUrl,
    text_input: { type: 'string', description: 'Text to summarize when no document is given' },
  }),
  output_schema: objectSchema({ summary: { type: 'string' }, word_count: { type: 'integer' } }),
};

export const classifyAndExtract: TaskTypeDefinition = {
  id: 'classify_and_extract',
  name: 'Classify and extract',
  category: 'AI Operations',
  description: 'Classifies a document, then extracts data with the prompt that matches its class.',
  icon: 'layers',
  processor: 'classify_and_extract',
  config_schema: objectSchema({
    classification_type: classificationType,
    extract_after_classify: flag('Run extraction after classification', true),
    model_type: modelType,
  }),
  input_schema: objectSchema({ file_url: fileUrl, metadata }, ['file_url']),
  output_schema: objectSchema({
    classification: objectSchema({ type: { type: 'string' }, confidence: { type: 'number' } }),
    extraction_result: { description: 'Extracted data' },
  }),
};
