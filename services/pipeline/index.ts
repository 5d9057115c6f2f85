export { PIPELINE, pipelineTable, type PipelineStage } from './stages.js';
export { RequestPipeline, type PipelineAdmission, type PipelineCall, type RequestPipelineParts } from './request-pipeline.js';
export { assemblePipeline, openPipeline, type OpenedPipeline, type OpenPipelineOptions, type PipelineRuntime } from './open-pipeline.js';
