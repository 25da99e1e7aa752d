export function buildAip(options?: {
  quiet?: boolean;
  outRoot?: string;
  sourcemaps?: boolean;
}): Promise<unknown>;
