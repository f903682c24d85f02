// On the wire: a run written as pcapng, and real captures read back,
// classified, decrypted, decoded and analysed with the model's own figures.
export { CAPTURE_EPOCH, CAPTURE_EPOCH_US, CaptureRecorder } from './capture-recorder.js';
export type { CaptureOptions } from './capture-recorder.js';
export { CaptureFile, captureTargetProblem, columnCapturePath, commitAll, abortAll } from './capture-file.js';
export { CaptureSet } from './capture-set.js';
export type { Capture } from './capture-set.js';
export { SERVER_PORT, SERVER_ENDPOINT, clientEndpoint, endpointsOf } from './addresses.js';
export { BC_PORT, PayloadClassifier, classifyPayload } from './payload-classifier.js';
export type { Classification } from './payload-classifier.js';
export { scanCapture, countConnections } from './bc-packets.js';
export type { BcDatagram, CaptureConnection, CaptureEndpoint, ScanResult, ScanStats } from './bc-packets.js';
export { datagramMessages, connectAckSlot, messageSizeAt } from './wire-walk.js';
export { droppedCauseOf } from './comments.js';
export type { DirectionFigures } from './analysis-types.js';
export { ANALYSIS_SCHEMA, WireAnalyzer } from './analyze.js';
export type {
  AckRuleName,
  AckBehaviour,
  AckBehaviourName,
  AnalyzerOptions,
  WireAnalysis,
  ConnectionAnalysis,
  OutboxEstimate,
  Removal,
} from './analyze.js';
export { behaviourName, inferBehaviour } from './ack-behaviour.js';
export { removalText } from './connection-end.js';
export { analyzeCapture, census, censusLine, isoTime } from './analyze-capture.js';
export type { CaptureAnalysis, CaptureAnalysisResult } from './analyze-capture.js';
export { analyzeScenario } from './analyze-against.js';
export { MINUTE_US, MAX_MINUTE_ROWS, MinuteMeter } from './minute-meter.js';
export type { MinuteRow } from './minute-meter.js';
export { meterScenario } from './minute-meter-model.js';
export type { MeteredRun } from './minute-meter-model.js';
export type { SimulatedAnalysis } from './analyze-against.js';
export { renderCaptureAnalysis, renderAgainst, pairConnections } from './analyze-report.js';
