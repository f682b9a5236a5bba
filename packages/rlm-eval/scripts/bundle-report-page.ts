import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

/** The id the renderer imports the bundled report script by. */
export const reportPageModuleId = 'virtual:report-page';

const packageRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/**
 * Bundles `src/report/report-page.ts` with Observable Plot and the parts of D3 it uses into one
 * minified script, preceded by the license notices of every bundled package (ISC and MIT
 * require them in copies), and returns it as text.
 */
export async function bundleReportPage(): Promise<string> {
  const result = await build({
    entryPoints: [path.join(packageRoot, 'src/report/report-page.ts')],
    bundle: true,
    format: 'iife',
    platform: 'browser',
    target: 'es2020',
    minify: true,
    write: false,
    metafile: true,
    legalComments: 'none',
    charset: 'utf8',
  });
  const packages = new Map<string, string>();
  for (const input of Object.keys(result.metafile.inputs)) {
    const match = /^(.*node_modules\/((?:@[^/]+\/)?[^/]+))\//.exec(input);
    if (match) packages.set(match[2]!, path.resolve(packageRoot, match[1]!));
  }
  const byText = new Map<string, string[]>();
  for (const [name, directory] of [...packages].sort(([a], [b]) => a.localeCompare(b))) {
    const text = await readLicense(directory, name);
    byText.set(text, [...(byText.get(text) ?? []), name]);
  }
  const notices = [...byText]
    .map(([text, names]) => `${names.join(', ')}:\n${text.trim()}`)
    .join('\n\n')
    .replaceAll('*/', '* /');
  const code = result.outputFiles[0]!.text;
  return `/*! Bundled with the report: Observable Plot and D3 (https://observablehq.com/plot). Licenses:\n\n${notices}\n*/\n${code}`;
}

async function readLicense(directory: string, name: string): Promise<string> {
  for (const file of ['LICENSE', 'LICENSE.md', 'LICENSE.txt', 'license', 'LICENCE']) {
    try {
      return await readFile(path.join(directory, file), 'utf8');
    } catch {
      // The next name.
    }
  }
  const manifest = JSON.parse(await readFile(path.join(directory, 'package.json'), 'utf8')) as {
    license?: string;
  };
  if (manifest.license === undefined) {
    throw new Error(`${name} is bundled into the report but has no license file or field`);
  }
  return `License: ${manifest.license}`;
}
