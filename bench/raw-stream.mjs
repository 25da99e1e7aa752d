// The baseline for the chat streaming benchmark: the least a client can do with the same stream.
// A bare fetch of a streamed chat completion, each delta's text written to stdout as it is parsed.
//
//   node bench/raw-stream.mjs <chat-completions-url> <key> <model> <prompt>

const [url, key, model, prompt] = process.argv.slice(2);
const res = await fetch(url, {
  method: 'POST',
  headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
  body: JSON.stringify({ model, messages: [{ role: 'user', content: prompt }], stream: true }),
});
const decoder = new TextDecoder();
let buffer = '';
for await (const bytes of res.body) {
  buffer += decoder.decode(bytes, { stream: true });
  let end = buffer.indexOf('\n\n');
  while (end >= 0) {
    const data = buffer.slice(0, end).replace(/^data: /, '');
    buffer = buffer.slice(end + 2);
    if (data !== '[DONE]') {
      const text = JSON.parse(data).choices[0]?.delta?.content;
      if (text) process.stdout.write(text);
    }
    end = buffer.indexOf('\n\n');
  }
}
process.stdout.write('\n');
