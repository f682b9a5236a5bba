/**
 * Quantiles of the standard normal and Student's t distributions, for confidence intervals.
 * Both are computed, not tabulated: each distribution function is integrated with Simpson's
 * rule over a smooth, bounded integrand, and inverted by bisection. Accurate to about 1e-9,
 * which is far below what a score's interval needs.
 */

/** Simpson's rule over [a, b] with `steps` (even) intervals. */
function integrate(f: (x: number) => number, a: number, b: number, steps = 2_000): number {
  const h = (b - a) / steps;
  let sum = f(a) + f(b);
  for (let i = 1; i < steps; i++) sum += (i % 2 === 0 ? 2 : 4) * f(a + i * h);
  return (sum * h) / 3;
}

/** The x where the increasing `cdf` reaches `p`, by bisection over [0, high]. */
function invert(cdf: (x: number) => number, p: number, high: number): number {
  let low = 0;
  let top = high;
  for (let i = 0; i < 100 && top - low > 1e-12; i++) {
    const middle = (low + top) / 2;
    if (cdf(middle) < p) low = middle;
    else top = middle;
  }
  return (low + top) / 2;
}

/** P(Z <= x) for the standard normal Z, for x >= 0. */
function normalCdf(x: number): number {
  return 0.5 + integrate((t) => Math.exp((-t * t) / 2), 0, x) / Math.sqrt(2 * Math.PI);
}

/**
 * P(T <= x) for Student's t with `df` degrees of freedom, for x >= 0. With t = sqrt(df) tan(u)
 * the density becomes proportional to cos(u)^(df - 1) on [0, pi/2): no gamma function, no
 * unbounded range.
 */
function studentTCdf(x: number, df: number): number {
  const f = (u: number) => Math.cos(u) ** (df - 1);
  const whole = integrate(f, 0, Math.PI / 2);
  return 0.5 + (0.5 * integrate(f, 0, Math.atan(x / Math.sqrt(df)))) / whole;
}

/** The `p` quantile (0.5 < p < 1) of the standard normal: 1.959964 for 0.975. */
export function normalQuantile(p: number): number {
  return invert(normalCdf, p, 40);
}

/** The `p` quantile (0.5 < p < 1) of Student's t with `df` >= 1: 2.262157 for 0.975 and 9. */
export function studentTQuantile(p: number, df: number): number {
  // Past a thousand degrees of freedom t is the normal to 4 decimals, and the integrand peaks
  // too sharply for a fixed grid.
  if (df > 1_000) return normalQuantile(p);
  return invert((x) => studentTCdf(x, df), p, 1e7);
}
