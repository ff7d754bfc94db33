// dist/extension.js, the extension's entry point (package.json "main"):
//   node scripts/bundle.mjs        the compiled extension (out/extension.js and everything it imports, node_modules
//                                  included) bundled into that one file, for the .vsix (`npm run package` runs it
//                                  after tsc; .vscodeignore ships dist/extension.js and nothing from out/ or
//                                  node_modules/)
//   node scripts/bundle.mjs --dev  a one-line file that loads out/extension.js (`npm run compile`): the in-editor
//                                  tests import out/ too, so test code and extension share their modules
import { mkdirSync, writeFileSync } from 'node:fs';
import { build } from 'esbuild';

mkdirSync('dist', { recursive: true });
if (process.argv.includes('--dev')) {
  writeFileSync('dist/extension.js', "module.exports = require('../out/extension.js');\n");
} else {
  await build({
    entryPoints: ['out/extension.js'],
    outfile: 'dist/extension.js',
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node18',
    external: ['vscode'],
    minify: true,
    sourcemap: false,
    logLevel: 'warning',
  });
}
