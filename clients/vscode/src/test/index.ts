/**
 * Entry point of the in-editor tests (`extensionTestsPath`): runs out/test/suite/*.test.js with mocha inside
 * the VS Code extension host. Each result is logged as a TAP-like line (`ok - …` / `not ok - …`) to the console
 * and, when $RAGLS_TEST_REPORT names a file, appended to it, so the driver can read the results even when the
 * console is not forwarded. Resolves when all tests passed; rejects otherwise (VS Code then exits non-zero).
 */
import { appendFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import Mocha from 'mocha';

function emit(line: string): void {
  console.log(line);
  const report = process.env.RAGLS_TEST_REPORT;
  if (report) {
    appendFileSync(report, `${line}\n`);
  }
}

export function run(): Promise<void> {
  const mocha = new Mocha({ ui: 'tdd', timeout: 120_000, color: false, reporter: 'spec' });
  const suiteDir = join(__dirname, 'suite');
  const grep = process.env.RAGLS_TEST_GREP;
  if (grep) {
    mocha.grep(grep);
  }
  for (const file of readdirSync(suiteDir).filter((f) => f.endsWith('.test.js')).sort()) {
    mocha.addFile(join(suiteDir, file));
  }
  return new Promise((resolve, reject) => {
    const runner = mocha.run((failures) => {
      emit(`# ${runner.stats?.passes ?? 0} passed, ${failures} failed`);
      if (failures > 0) {
        reject(new Error(`${failures} test(s) failed`));
      } else {
        resolve();
      }
    });
    runner.on('pass', (test) => emit(`ok - ${test.fullTitle()}`));
    runner.on('pending', (test) => emit(`# skip - ${test.fullTitle()}`));
    runner.on('fail', (test, error) => {
      const err = error as Error;
      emit(`not ok - ${test.fullTitle()}`);
      // The whole message (an assertion quotes what it saw: the log around a traceback, a page's HTML; up to 300
      // lines), then the first stack frames: CI's output alone must say why it failed.
      const message = err instanceof Error ? `${err.name}: ${err.message}` : String(err);
      const frames = String(err?.stack ?? '').split('\n').filter((l) => /^\s+at /.test(l)).slice(0, 6);
      for (const line of [...message.split('\n').slice(0, 300), ...frames]) {
        emit(`#   ${line}`);
      }
    });
  });
}
