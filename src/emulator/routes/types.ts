import type { Exchange } from '../exchange.js';
import type { Router } from '../router.js';

export interface RouteDef {
  run: (x: Exchange) => void | Promise<void>;
  /** Served without a key (the Training API's health and system-check). */
  public?: boolean;
}

export type EmulatorRouter = Router<RouteDef>;
