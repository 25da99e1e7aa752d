export function buildAip(options?: { quiet?: boolean }): Promise<unknown>;
