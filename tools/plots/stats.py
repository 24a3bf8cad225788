"""Statistics of the figures and tables: nearest-rank percentiles, the mean over seeds with its
95 % confidence interval (Student t), Jain's fairness index."""

import math

# two-sided 95 % quantiles of Student's t, t_{0.975, df}, df = 1 .. 30 (then 1.96 beyond 120)
T975 = [
    12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
    2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
    2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042,
]


def t975(df):
    """t_{0.975, df}: the factor of the 95 % interval of a mean of df + 1 samples."""
    if df < 1:
        raise ValueError("no interval from one sample")
    if df <= 30:
        return T975[df - 1]
    if df <= 40:
        return 2.021
    if df <= 60:
        return 2.000
    if df <= 120:
        return 1.980
    return 1.960


def mean_ci(xs):
    """(mean, half-width of its 95 % interval) over xs, the values of one metric over the seeds:
    t_{0.975, n-1} * s / sqrt(n), s the sample standard deviation; half-width 0 for one value."""
    n = len(xs)
    if n == 0:
        raise ValueError("no values")
    m = sum(xs) / n
    if n == 1:
        return m, 0.0
    s = math.sqrt(sum((x - m) ** 2 for x in xs) / (n - 1))
    return m, t975(n - 1) * s / math.sqrt(n)


def interval_text(m, ci, fmt, floor=0.0):
    """The mean and its 95 % interval as text: "M ±CI", or, where the interval would pass below
    `floor` (0 for a time, a count or a size; 1 for a slowdown: no value can be below it), cut
    there and written "M +CI/-DOWN" (DOWN = M - floor)."""
    down = max(0.0, min(ci, m - floor))
    if fmt % down == fmt % ci:
        return (fmt + " \u00b1" + fmt) % (m, ci)
    return (fmt + " +" + fmt + "/-" + fmt) % (m, ci, down)


def percentile(sorted_xs, p):
    """Nearest-rank percentile p (0 < p <= 100) of sorted values (the examples' definition)."""
    if not sorted_xs:
        raise ValueError("no values")
    rank = max(1, int(math.ceil(p / 100.0 * len(sorted_xs))))
    return sorted_xs[min(rank, len(sorted_xs)) - 1]


def jain(xs):
    """Jain's fairness index (sum x)^2 / (n sum x^2): 1 when equal, 1/n when one has all."""
    xs = list(xs)
    sq = sum(x * x for x in xs)
    if not xs or sq == 0:
        return None
    return sum(xs) ** 2 / (len(xs) * sq)
