// Text from outside (a task, a sample, a model's name, a file name) put into HTML or SVG as text or as
// a quoted attribute value, never as markup: the five characters that can end either are written as
// entities. Control characters other than tab and line breaks (which no page needs, and which could
// hide text) are shown as U+XXXX.

const ENTITIES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

/** Text safe in an element's content and in a quoted attribute value. */
export function escapeHtml(text: string): string {
  return text
    .replace(/[&<>"']/g, (ch) => ENTITIES[ch]!)
    .replace(
      /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\u2028\u2029]/g,
      (ch) => `U+${ch.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}`,
    );
}
