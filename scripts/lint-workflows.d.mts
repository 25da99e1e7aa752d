export interface Problem {
  file: string;
  line: number;
  column: number;
  message: string;
  kind: string;
}
export function checkActionMetadata(text: string, file?: string, dir?: string): Problem[];
export function checkActionUses(text: string, file: string, metadataText: string): Problem[];
export function lintRepository(dir?: string): Promise<{ problems: Problem[]; workflows: number }>;
