// The one Inference API call aip makes without the openai SDK: the model list, used to verify a key
// (auth login, auth status) where loading the SDK would only add start-up time.

import type { HttpClient, HttpResponse } from './http.js';

export interface ModelList {
  object?: string;
  data?: Array<{ id?: string; owned_by?: string }>;
}

export function listModels(http: HttpClient): Promise<HttpResponse<ModelList>> {
  return http.request({ method: 'GET', path: '/models', kind: 'models' });
}
