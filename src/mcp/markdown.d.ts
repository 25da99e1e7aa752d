// Markdown imported as text (`with { type: 'text' }`): esbuild's text loader bundles it (src/mcp/docs.ts).
declare module '*.md' {
  const text: string;
  export default text;
}
