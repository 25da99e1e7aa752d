// What the gateway did, in spans: the status line on a terminal and `--json` on stop.

export interface GatewayCounters {
  /** Export requests the SDKs sent, and the spans in them. */
  requests: number;
  received: number;
  /** Spans the platform took: at once, or later from the spool. */
  forwarded: number;
  /** Spans written to the spool (some forwarded since: `spool` says what is left). */
  spooled: number;
  /** Spans refused for good: by the platform (400), or with no project to go to. */
  dropped: number;
  /** Spans the SDKs were told to send again later (503: the spool full, or stopping). */
  refused: number;
  /** Attribute values redacted and attributes dropped before anything left the machine. */
  redacted: number;
  /** What waits in the spool now. */
  spool: { batches: number; spans: number; bytes: number };
}

export function newCounters(): GatewayCounters {
  return {
    requests: 0,
    received: 0,
    forwarded: 0,
    spooled: 0,
    dropped: 0,
    refused: 0,
    redacted: 0,
    spool: { batches: 0, spans: 0, bytes: 0 },
  };
}
