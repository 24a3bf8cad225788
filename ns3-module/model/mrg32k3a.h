// rdma-cc: ns-3's uniform random stream (MRG32k3a), with its numbers, at a fraction of the cost
#ifndef RDMACC_MRG32K3A_H
#define RDMACC_MRG32K3A_H

#include <cstdint>

namespace ns3
{
namespace rdmacc
{

/**
 * \ingroup rdma-cc
 * The stream of uniform numbers in [0, 1) that ns-3's `UniformRandomVariable` (Min 0, Max 1,
 * not antithetic) draws from stream `stream`, substream `run`, of seed `seed`: the same
 * numbers, bit for bit (the test suite rdma-cc-mrg32k3a compares them with ns-3's).
 *
 * The generator is L'Ecuyer's MRG32k3a (Operations Research 47(1), 1999, and L'Ecuyer, Simard,
 * Chen and Kelton, "An object-oriented random-number package with many long streams and
 * substreams", Operations Research 50(6), 2002), the one ns-3's `RngStream` implements: two
 * multiple recursive components modulo m1 = 2^32 - 209 and m2 = 2^32 - 22853, combined. A
 * stream starts from the state (seed, seed, seed | seed, seed, seed) advanced by stream * 2^127
 * + substream * 2^76 steps, as ns-3's does.
 *
 * Why not ns-3's object: a draw through `UniformRandomVariable::GetValue` costs ~180
 * instructions (virtual calls, the antithetic and Peek accessors, logging checks) where this
 * inline step costs ~40, and the first ns-3 stream of a process computes a table of 190 matrix
 * powers with slow modular products (~41 M instructions, a sixth of a small incast's whole
 * run); here the powers cost ~0.3 M, once per process. A switch draws once per arriving frame.
 *
 * Every operation of `Next` is exact on doubles (integers below 2^53) except the final
 * scaling, one rounding as in ns-3, so the numbers do not depend on the compiler's
 * floating-point contraction.
 */
class Mrg32k3a
{
  public:
    /// ns-3's automatic streams are numbered from 0, the ones a model assigns (`SetStream(s)`,
    /// `AssignStreams`) from 2^63 + s.
    static constexpr uint64_t ASSIGNED_STREAMS = uint64_t{1} << 63;

    /// The stream `stream` (ns-3's numbering: see ASSIGNED_STREAMS), substream `run`, of
    /// `seed` (1 <= seed < m2; ns-3's RngSeedManager seed; the constructor aborts otherwise).
    Mrg32k3a(uint32_t seed, uint64_t stream, uint64_t run);

    /// The next number in [0, 1).
    double
    Next()
    {
        // component 1: x_n = (a12 x_{n-2} - a13 x_{n-3}) mod m1
        const double p1 = Mod(A12 * m_s[1] - A13N * m_s[0], M1);
        m_s[0] = m_s[1];
        m_s[1] = m_s[2];
        m_s[2] = p1;
        // component 2: y_n = (a21 y_{n-1} - a23 y_{n-3}) mod m2
        const double p2 = Mod(A21 * m_s[5] - A23N * m_s[3], M2);
        m_s[3] = m_s[4];
        m_s[4] = m_s[5];
        m_s[5] = p2;
        // combination: (x_n - y_n) mod m1, scaled into [0, 1)
        return (p1 > p2 ? p1 - p2 : p1 - p2 + M1) * NORM;
    }

  private:
    /// p mod m in [0, m), for an integer |p| < 2^53 (exact: a quotient below 2^31)
    static double
    Mod(double p, double m)
    {
        p -= static_cast<int32_t>(p / m) * m;
        return p < 0.0 ? p + m : p;
    }

    static constexpr double M1 = 4294967087.0;
    static constexpr double M2 = 4294944443.0;
    static constexpr double NORM = 1.0 / (M1 + 1.0);
    static constexpr double A12 = 1403580.0;
    static constexpr double A13N = 810728.0;
    static constexpr double A21 = 527612.0;
    static constexpr double A23N = 1370589.0;

    double m_s[6]; //!< x_{n-3}, x_{n-2}, x_{n-1} | y_{n-3}, y_{n-2}, y_{n-1}
};

} // namespace rdmacc
} // namespace ns3

#endif
