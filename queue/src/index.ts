/**
 * The waiting-room engine. See queue/README.md for the contract.
 */
export {
  createRoomEngine,
  type RoomEngine,
  type RoomEngineOptions,
  type Claimed,
  type TickResult,
  type RoomStats,
  type RestoredTurn,
} from './room-engine';
export { createPurchaseBuckets, ticketOfSession, type BucketDecision, type TokenSession } from './purchase-buckets';
export type { Standing, Place, BuyerState } from './replies';
export {
  estimateForJoin,
  estimateFromSnapshot,
  serviceRatePerMs,
  predictedRatePerMs,
  type AdmissionLearning,
  etaForPositionMs,
  nearFrontSize,
  heartbeatEveryMs,
  type EstimateOptions,
  type RoomSnapshot,
  type SnapshotEstimate,
} from './estimate';
export { drawOrder, verifyDraw, seedCommitment } from './fair-draw';
export {
  ADMIT_BURST_BOUNDS,
  burstFor,
  DEFAULT_SETTINGS,
  POW_MAX_BITS,
  POW_OPERATOR_MAX_BITS,
  ROOM_STATES,
  type RoomSettings,
  type RoomSettingsPatch,
  type RoomState,
} from './settings';
export { RefusalCode, type Refusal, type Refused } from './codes';
export { createKeyBuilder, type KeyBuilder } from './keys';
export {
  createSeatGateScripts,
  type SeatGateScripts,
  type GateClaimDecision,
  type GateOp,
  type GateSeatState,
  type GateSyncInput,
} from './seat-gate';
export { type ScriptStore, runScript, isNoScriptError } from './store';
export { createIoredisStore, type IoredisScriptClient } from './ioredis-store';
export { createUpstashStore, type UpstashScriptClient } from './upstash-store';
export { createMemoryStore } from './memory-store';
export { createRoomTicker, recordTurnHistory, type RoomTickerOptions, type TickRound } from './room-ticker';
export {
  createFairnessJournal,
  parseJournalElement,
  type FairnessJournal,
  type JournalEntry,
  type JournalKind,
} from './fairness-journal';
