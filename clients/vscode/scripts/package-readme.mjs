// dist/README.md, the README the .vsix carries (`vsce package --readme-path dist/README.md`): README.md without its
// screenshots and without its Development section.
//
// VS Code's extension page and the Marketplace show only https: images (a webview whose CSP allows https: and
// data: only), and vsce rewrites relative image paths to https: URLs only from a public repository URL, which this
// package has none of: a relative screenshot would be a broken image on the page. The repository's README keeps
// them (media/screenshots/, refreshed by the UI test); the .vsix leaves them out (.vscodeignore).
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';

const source = readFileSync('README.md', 'utf8');
const withoutDev = source.replace(/\n## Development\n[\s\S]*$/, '\n');
// An image on a line of its own, and the blank line after it.
const text = withoutDev.replace(/^!\[[^\]]*\]\([^)\s]+\)\n(\n)?/gm, '');
if (/!\[[^\]]*\]\((?!https:)/.test(text)) {
  throw new Error('README.md has an inline image that is not https: — put it on a line of its own');
}
mkdirSync('dist', { recursive: true });
writeFileSync('dist/README.md', text);
