// The Training API (product.md §1, api-contract.md §2), one method per operation used by a command.
// Paths are relative to the base URL, which ends in /v1.

import type { HttpClient, HttpResponse } from './http.js';

/** system-check answers 503 when a component fails; that answer is a result, not an error to retry. */
export type SystemCheckBody = Record<string, unknown>;

export class TrainingClient {
  constructor(readonly http: HttpClient) {}

  systemCheck(): Promise<HttpResponse<SystemCheckBody | string | undefined>> {
    return this.http.request({
      method: 'GET',
      path: '/system-check',
      auth: false,
      accept: (status) => status === 200 || status === 503,
    });
  }
}
