// The coverage floors (`npm test` runs this after jest --coverage): each area's lines, statements, functions and
// branches, summed over its files, must reach its floor. A failure names the area, the measure, and the files below
// the floor, least covered first, so that one knows where to write the missing tests.
import { readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { projectRoot } from '../infra/project-root.ts';

const measures = ['lines', 'statements', 'functions', 'branches'] as const;
type Measure = (typeof measures)[number];
type Counts = Record<Measure, { total: number; covered: number }>;
/** jest's json-summary: per absolute file path (and `total`), each measure's counts. */
export type CoverageSummary = Record<string, Counts>;

/** Each area (a folder of the project) and its floors in percent; jest.config.js says what is measured. */
export const floors: Record<string, Record<Measure, number>> = {
  'functions/': { lines: 95, statements: 95, functions: 95, branches: 85 },
  'infra/': { lines: 90, statements: 90, functions: 90, branches: 80 },
};

const percent = ({ total, covered }: { total: number; covered: number }) =>
  total === 0 ? 100 : (100 * covered) / total;

/** What is below its floor, one message each; none when every area reaches its floors. */
export const coverageGate = (summary: CoverageSummary, root = projectRoot): string[] => {
  const files = Object.entries(summary)
    .filter(([path]) => path !== 'total')
    .map(([path, counts]) => [relative(root, path), counts] as const);
  return Object.entries(floors).flatMap(([area, floor]) => {
    const inArea = files.filter(([path]) => path.startsWith(area));
    return measures.flatMap((measure) => {
      const sum = (key: 'total' | 'covered') => inArea.reduce((total, [, counts]) => total + counts[measure][key], 0);
      const figure = percent({ total: sum('total'), covered: sum('covered') });
      if (figure >= floor[measure]) return [];
      const below = inArea
        .map(([path, counts]) => [path, percent(counts[measure])] as const)
        .filter(([, filePercent]) => filePercent < floor[measure])
        .sort(([, a], [, b]) => a - b)
        .map(([path, filePercent]) => `  ${path}: ${filePercent.toFixed(1)} %`);
      return [
        [
          `${area} ${measure}: ${figure.toFixed(1)} %, below the floor of ${floor[measure]} %. Files below it:`,
          ...below,
        ].join('\n'),
      ];
    });
  });
};

if (import.meta.main) {
  const summary = JSON.parse(
    readFileSync(join(projectRoot, 'coverage/coverage-summary.json'), 'utf8'),
  ) as CoverageSummary;
  const failures = coverageGate(summary);
  for (const failure of failures) console.error(failure);
  if (failures.length > 0) process.exit(1);
  console.log(`coverage floors reached: ${Object.keys(floors).join(', ')}`);
}
