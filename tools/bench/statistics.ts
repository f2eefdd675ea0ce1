// The few statistics the benchmark reports.

/** The p-th percentile (0-100) by the nearest-rank method. */
export const percentile = (values: readonly number[], p: number): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] ?? Number.NaN;
};

export const median = (values: readonly number[]) => percentile(values, 50);

/** Median, and the interquartile range as the spread: "12.3 ms (IQR 11.9-12.8)". */
export const medianAndSpread = (values: readonly number[], unit: string, digits = 1) =>
  `${median(values).toFixed(digits)} ${unit} (IQR ${percentile(values, 25).toFixed(digits)}-${percentile(values, 75).toFixed(digits)})`;

/** The median of the ratios of paired runs, a[i] / b[i]: robust to drift in the machine's speed during the run. */
export const medianRatio = (a: readonly number[], b: readonly number[]) =>
  median(a.map((value, index) => value / (b[index] ?? Number.NaN)));
