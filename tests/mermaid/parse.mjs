// Parses each Mermaid diagram on stdin (diagrams separated by a line "%%%")
// with Mermaid's own parser, under jsdom. MERMAID_DIR names a folder where
// `npm install mermaid jsdom` was run. Exit 1 and the parser's message on a
// diagram it refuses.
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';

const require = createRequire(`${process.env.MERMAID_DIR}/`);
const load = async (name) => import(pathToFileURL(require.resolve(name)).href);
const { JSDOM } = await load('jsdom');
const dom = new JSDOM('<!doctype html><html><body></body></html>');
globalThis.window = dom.window;
globalThis.document = dom.window.document;
const mermaid = (await load('mermaid')).default;
mermaid.initialize({ startOnLoad: false, securityLevel: 'strict' });

let text = '';
for await (const chunk of process.stdin) text += chunk;
let refused = 0;
for (const diagram of text.split('\n%%%\n')) {
  try {
    await mermaid.parse(diagram);
  } catch (e) {
    refused += 1;
    console.error(String(e.message || e));
  }
}
process.exit(refused ? 1 : 0);
