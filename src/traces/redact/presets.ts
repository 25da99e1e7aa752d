// The --redact-preset presets: the attributes that carry prompt, completion and tool content in the
// conventions agents' SDKs follow, each with where it comes from. docs/redaction.md lists them all (a
// test holds the two together). A preset masks: the whole value becomes the string [REDACTED] (rules.ts
// says why), so that a trace still shows that there was content, and none of it.

/** Where a name comes from, as docs/redaction.md spells it. */
const OTEL_NEW = 'OpenTelemetry GenAI semantic conventions, 1.37 and later';
const OTEL_EVENTS = 'OpenTelemetry GenAI semantic conventions 1.27–1.36, as span events';
const OTEL_OLD = 'OpenTelemetry GenAI semantic conventions 1.26 and earlier';
const OPENLLMETRY = 'OpenLLMetry (Traceloop): the indexed form of the old conventions';
const OPENINFERENCE = 'OpenInference (Arize Phoenix)';
const VERCEL = 'Vercel AI SDK';
const LANGFUSE = 'Langfuse';
const MLFLOW = 'MLflow';
const ADK = 'Google ADK';

export interface PresetAttribute {
  /** An attribute name, or a glob of names: * is any run of characters, dots included. */
  name: string;
  from: string;
}

/**
 * Attributes of span events of these names only. Their names (content, message) are too generic to
 * mask on every span, and mean prompt or completion content only inside these events.
 */
export interface PresetEventAttributes {
  events: readonly string[];
  names: readonly string[];
  from: string;
}

export interface Preset {
  description: string;
  attributes: readonly PresetAttribute[];
  eventAttributes: readonly PresetEventAttributes[];
}

const INPUT_EVENTS = ['gen_ai.system.message', 'gen_ai.user.message', 'gen_ai.assistant.message'];
const TOOL_EVENTS = ['gen_ai.tool.message'];
const CHOICE_EVENTS = ['gen_ai.choice'];
/** What Strands Agents (content, tool_calls, message) and Azure AI Inference (gen_ai.event.content) put in them. */
const EVENT_CONTENT = ['content', 'tool_calls', 'message', 'gen_ai.event.content'];
const EVENT_SDKS = `${OTEL_EVENTS} (Strands Agents, Azure AI Inference)`;

const prompts: Preset = {
  description: 'what goes into a model or an agent: prompts, input messages, system instructions',
  attributes: [
    { name: 'gen_ai.input.messages', from: OTEL_NEW },
    { name: 'gen_ai.system_instructions', from: OTEL_NEW },
    { name: 'gen_ai.prompt', from: OTEL_OLD },
    { name: 'gen_ai.prompt.*', from: OPENLLMETRY },
    { name: 'input.value', from: OPENINFERENCE },
    { name: 'llm.input_messages', from: OPENINFERENCE },
    { name: 'llm.input_messages.*', from: OPENINFERENCE },
    { name: 'llm.prompts', from: OPENINFERENCE },
    { name: 'llm.prompts.*', from: OPENINFERENCE },
    { name: 'llm.prompt_template.template', from: OPENINFERENCE },
    { name: 'llm.prompt_template.variables', from: OPENINFERENCE },
    { name: 'ai.prompt', from: VERCEL },
    { name: 'ai.prompt.messages', from: VERCEL },
    { name: 'traceloop.entity.input', from: 'OpenLLMetry (Traceloop)' },
    { name: 'langfuse.observation.input', from: LANGFUSE },
    { name: 'langfuse.trace.input', from: LANGFUSE },
    { name: 'mlflow.spanInputs', from: MLFLOW },
    { name: 'gcp.vertex.agent.llm_request', from: ADK },
  ],
  eventAttributes: [{ events: [...INPUT_EVENTS, ...TOOL_EVENTS], names: EVENT_CONTENT, from: EVENT_SDKS }],
};

const completions: Preset = {
  description: 'what comes out of a model or an agent: completions, output messages, responses',
  attributes: [
    { name: 'gen_ai.output.messages', from: OTEL_NEW },
    { name: 'gen_ai.completion', from: OTEL_OLD },
    { name: 'gen_ai.completion.*', from: OPENLLMETRY },
    { name: 'output.value', from: OPENINFERENCE },
    { name: 'llm.output_messages', from: OPENINFERENCE },
    { name: 'llm.output_messages.*', from: OPENINFERENCE },
    { name: 'ai.response.text', from: VERCEL },
    { name: 'ai.response.object', from: VERCEL },
    { name: 'ai.response.toolCalls', from: VERCEL },
    { name: 'ai.result.text', from: `${VERCEL}, before 4.0` },
    { name: 'ai.result.object', from: `${VERCEL}, before 4.0` },
    { name: 'ai.result.toolCalls', from: `${VERCEL}, before 4.0` },
    { name: 'traceloop.entity.output', from: 'OpenLLMetry (Traceloop)' },
    { name: 'langfuse.observation.output', from: LANGFUSE },
    { name: 'langfuse.trace.output', from: LANGFUSE },
    { name: 'mlflow.spanOutputs', from: MLFLOW },
    { name: 'gcp.vertex.agent.llm_response', from: ADK },
  ],
  eventAttributes: [{ events: CHOICE_EVENTS, names: EVENT_CONTENT, from: EVENT_SDKS }],
};

const toolIo: Preset = {
  description: 'the arguments tools are called with and what they return',
  attributes: [
    { name: 'gen_ai.tool.call.arguments', from: OTEL_NEW },
    { name: 'gen_ai.tool.call.result', from: OTEL_NEW },
    { name: 'gen_ai.*.tool_calls.*.arguments', from: OPENLLMETRY },
    { name: 'gen_ai.*.function_call.arguments', from: OPENLLMETRY },
    { name: 'llm.*.tool_call.function.arguments', from: OPENINFERENCE },
    { name: 'tool_call.function.arguments', from: OPENINFERENCE },
    { name: 'ai.toolCall.args', from: VERCEL },
    { name: 'ai.toolCall.result', from: VERCEL },
    { name: 'ai.response.toolCalls', from: VERCEL },
    { name: 'gcp.vertex.agent.tool_call_args', from: ADK },
    { name: 'gcp.vertex.agent.tool_response', from: ADK },
  ],
  eventAttributes: [
    { events: TOOL_EVENTS, names: ['content', 'gen_ai.event.content'], from: EVENT_SDKS },
    { events: [...CHOICE_EVENTS, 'gen_ai.assistant.message'], names: ['tool_calls'], from: EVENT_SDKS },
  ],
};

/** content: all of the others, so that asking for all content gets tool content too. */
const content: Preset = {
  description: 'all of prompts, completions and tool-io',
  attributes: [...prompts.attributes, ...completions.attributes, ...toolIo.attributes],
  eventAttributes: [...prompts.eventAttributes, ...completions.eventAttributes, ...toolIo.eventAttributes],
};

export const PRESET_NAMES = ['prompts', 'completions', 'content', 'tool-io'] as const;
export type PresetName = (typeof PRESET_NAMES)[number];

// A Map, not an object: a preset name comes from the command line, and `constructor` is no preset.
export const PRESETS: ReadonlyMap<PresetName, Preset> = new Map<PresetName, Preset>([
  ['prompts', prompts],
  ['completions', completions],
  ['content', content],
  ['tool-io', toolIo],
]);
