// Bundle the compiled extension (out/extension.js and everything it imports, node_modules included) into that one
// file, for the .vsix: `npm run package` runs it after tsc (vscode:prepublish), and .vscodeignore then ships only
// out/extension.js from out/ and nothing from node_modules/. The in-editor tests load the unbundled tsc output
// (`npm run compile`), so test code and extension share their modules there.
import { build } from 'esbuild';

await build({
  entryPoints: ['out/extension.js'],
  outfile: 'out/extension.js',
  allowOverwrite: true,
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: 'node18',
  external: ['vscode'],
  minify: true,
  sourcemap: false,
  logLevel: 'warning',
});
