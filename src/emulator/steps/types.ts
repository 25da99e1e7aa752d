// What the steps of the request path (pipeline.ts) work on: the emulator's parts they use, the
// request as it arrives, and the request read in full on its way to its handler.

import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Api, Exchange } from '../exchange.js';
import type { FaultStore } from '../faults.js';
import type { OwnNames } from '../guard.js';
import type { RequestRecord } from '../recorder.js';
import type { Match, Router } from '../router.js';
import type { RouteDef } from '../routes/types.js';
import type { EmulatorState } from '../state.js';

/** A step answered the request (or gave it up): the steps after it do not run. */
export type Outcome = 'handled' | 'next';

/** The parts of one emulator that the steps use. */
export interface EmulatorParts {
  readonly state: EmulatorState;
  readonly router: Router<RouteDef>;
  readonly faults: FaultStore;
  /** The keys that open the control routes: the API keys and any control key. */
  readonly controlKeys: ReadonlySet<string>;
  /** The names and origins this emulator is itself under (known once it listens). */
  own(): OwnNames;
  /** One line per request (status, method, path, time). */
  readonly log?: (line: string) => void;
}

/** A request as it arrives: what its head says, before its body is read. */
export interface Arrival {
  readonly req: IncomingMessage;
  readonly res: ServerResponse;
  readonly method: string;
  readonly path: string;
  readonly query: URLSearchParams;
  /** The interface the path is under; undefined outside all of them (answered in the Training API's shape). */
  readonly api: Api | undefined;
  readonly requestId: string;
  /** performance.now() on arrival: the record's duration counts from here. */
  readonly started: number;
}

/** A request read in full, its route looked up, on its way to its handler. */
export interface InFlight extends Arrival {
  readonly x: Exchange;
  readonly match: Match<RouteDef>;
  /** Its entry in the request record, once made (never made for the control routes). */
  record?: RequestRecord;
}

/** One step after the body is read: answers the request ('handled') or passes it on ('next'). */
export type Step = (c: InFlight, emulator: EmulatorParts) => Outcome | Promise<Outcome>;
