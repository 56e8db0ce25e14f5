/** The transaction journal (engine_txs, engine_nonces: sign, store, send, confirm) and the crash points the crash tests arm: below every area that sends a transaction. */
export { armCrashPoint, crashPoint } from "./crash.ts";
export {
  GAS_PADDING_PERCENT,
  TransactionDroppedError,
  TxJournal,
  paddedGasLimit,
} from "./journal.ts";
export type { SentTx, TxSlot, VerifyProgress } from "./journal.ts";
