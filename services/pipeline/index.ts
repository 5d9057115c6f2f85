export { PIPELINE, pipelineTable, type PipelineStage } from './stages.js';
export { RequestPipeline, type PipelineAdmission, type PipelineCall, type RequestPipelineParts } from './request-pipeline.js';
export { assemblePipeline, openPipeline, type OpenedPipeline, type OpenPipelineOptions, type PipelineRuntime } from './open-pipeline.js';
export { KEY_RECHECK_MS, KeyRecheck, refusesKey } from './key-recheck.js';
