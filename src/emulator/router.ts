// A small router: "/training/v1/preview/models/:id/checkpoints" patterns, with 404 for unknown paths
// and 405 for a known path asked with another method, as FastAPI answers.

export type Params = Record<string, string>;

export interface Route<H> {
  method: string;
  pattern: string;
  handler: H;
  regex: RegExp;
  keys: string[];
}

export type Match<H> =
  | { kind: 'found'; route: Route<H>; params: Params }
  | { kind: 'method-not-allowed'; allowed: Array<Route<H>> }
  | { kind: 'not-found' };

/** A malformed escape ('%zz') stays as it is: a lookup then finds nothing (404), as it should. */
function safeDecode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

function compile(pattern: string): { regex: RegExp; keys: string[] } {
  const keys: string[] = [];
  const source = pattern
    .split('/')
    .map((part) => {
      if (part.startsWith(':')) {
        keys.push(part.slice(1));
        return '([^/]+)';
      }
      return part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    })
    .join('/');
  return { regex: new RegExp(`^${source}$`), keys };
}

export class Router<H> {
  private readonly routes: Route<H>[] = [];

  add(method: string, pattern: string, handler: H): this {
    this.routes.push({ method, pattern, handler, ...compile(pattern) });
    return this;
  }

  match(method: string, path: string): Match<H> {
    const allowed: Array<Route<H>> = [];
    for (const route of this.routes) {
      const m = route.regex.exec(path);
      if (!m) continue;
      if (route.method !== method) {
        allowed.push(route);
        continue;
      }
      const params: Params = {};
      route.keys.forEach((key, i) => {
        params[key] = safeDecode(m[i + 1]!);
      });
      return { kind: 'found', route, params };
    }
    return allowed.length > 0 ? { kind: 'method-not-allowed', allowed } : { kind: 'not-found' };
  }
}
