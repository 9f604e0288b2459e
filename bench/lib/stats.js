// Order statistics for benchmark samples.

// Linear-interpolated quantile of an ascending array.
export function quantileSorted(sorted, q) {
  const n = sorted.length;
  if (n === 0) return NaN;
  if (n === 1) return sorted[0];
  const pos = q * (n - 1);
  const lo = Math.floor(pos);
  const hi = Math.min(lo + 1, n - 1);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - lo);
}

// {n, min, p10, p25, p50, p75, p90, p99, max, mean} of a list of numbers.
export function summarize(values) {
  const sorted = Float64Array.from(values.filter((v) => Number.isFinite(v))).sort();
  const n = sorted.length;
  if (n === 0) return { n: 0 };
  let sum = 0;
  for (const v of sorted) sum += v;
  const q = (p) => quantileSorted(sorted, p);
  return {
    n,
    min: sorted[0],
    p10: q(0.1),
    p25: q(0.25),
    p50: q(0.5),
    p75: q(0.75),
    p90: q(0.9),
    p99: q(0.99),
    max: sorted[n - 1],
    mean: sum / n,
  };
}

export function median(values) {
  return summarize(values).p50;
}

// At most `count` evenly spaced order statistics of a sample (for the raw
// JSON and the CDF plot, without storing every sample).
export function downsampleSorted(values, count = 200) {
  const sorted = Float64Array.from(values).sort();
  if (sorted.length <= count) return Array.from(sorted);
  const out = [];
  for (let i = 0; i < count; i++) {
    out.push(quantileSorted(sorted, i / (count - 1)));
  }
  return out;
}
