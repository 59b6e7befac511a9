import type { DataShieldDiagnostics, DataShieldOptions } from '@docflow/contracts';
import type { LlmClient } from '@docflow/llm-client';

/**
 * The node's LLM client with Data Shield asked for on every extract and chat
 * call, and the tokenised prompts the LLM service reports kept for the
 * node's `_prompt_diagnostics` (spec 4.17 rule 6).
 */
export function shieldingLlmClient(llm: LlmClient, options: DataShieldOptions, diagnostics: DataShieldDiagnostics[]): LlmClient {
  const keep = <T extends { data_shield?: DataShieldDiagnostics }>(result: T): T => {
    if (result.data_shield) diagnostics.push(result.data_shield);
    return result;
  };
  return {
    extract: async (req, o) => keep(await llm.extract({ ...req, data_shield: options }, o)),
    chat: async (req, o) => keep(await llm.chat({ ...req, data_shield: options }, o)),
    embeddings: (input, o) => llm.embeddings(input, o),
    close: () => llm.close(),
  };
}
