// rdma-cc: the start of an MRG32k3a stream (see mrg32k3a.h)
#include "mrg32k3a.h"

#include "ns3/fatal-error.h"

#include <array>

namespace ns3
{
namespace rdmacc
{

namespace
{

using Matrix = std::array<std::array<uint64_t, 3>, 3>;

constexpr uint64_t M1 = 4294967087;
constexpr uint64_t M2 = 4294944443;
/// Most powers of two a stream start needs: stream bits 0..63 shifted by 127.
constexpr int POWERS = 127 + 64;

/// (r . (x, y, z)) mod m, entries below m < 2^32 (each product fits 64 bits, reduced before
/// the sum).
uint64_t
DotMod(const std::array<uint64_t, 3>& r, uint64_t x, uint64_t y, uint64_t z, uint64_t m)
{
    return (r[0] * x % m + r[1] * y % m + r[2] * z % m) % m;
}

Matrix
MatMulMod(const Matrix& a, const Matrix& b, uint64_t m)
{
    Matrix c{};
    for (int i = 0; i < 3; i++)
    {
        for (int j = 0; j < 3; j++)
        {
            c[i][j] = DotMod(a[i], b[0][j], b[1][j], b[2][j], m);
        }
    }
    return c;
}

/// The transition matrices of both components raised to 2^k, k < POWERS: exact integer
/// products, computed once per process (~0.3 M instructions).
struct Powers
{
    std::array<Matrix, POWERS> a1;
    std::array<Matrix, POWERS> a2;

    Powers()
    {
        // one step of each component on the state (x_{n-3}, x_{n-2}, x_{n-1}):
        // x_n = 1403580 x_{n-2} - 810728 x_{n-3} (mod m1), y_n = 527612 y_{n-1} - 1370589
        // y_{n-3} (mod m2)
        a1[0] = Matrix{{{0, 1, 0}, {0, 0, 1}, {M1 - 810728, 1403580, 0}}};
        a2[0] = Matrix{{{0, 1, 0}, {0, 0, 1}, {M2 - 1370589, 0, 527612}}};
        for (int k = 1; k < POWERS; k++)
        {
            a1[k] = MatMulMod(a1[k - 1], a1[k - 1], M1);
            a2[k] = MatMulMod(a2[k - 1], a2[k - 1], M2);
        }
    }
};

const Powers&
ThePowers()
{
    static const Powers p;
    return p;
}

/// s <- m s (mod mod), three components.
void
MatVecMod(const Matrix& m, uint64_t* s, uint64_t mod)
{
    const uint64_t v[3] = {s[0], s[1], s[2]};
    for (int i = 0; i < 3; i++)
    {
        s[i] = DotMod(m[i], v[0], v[1], v[2], mod);
    }
}

/// Advances both components by n * 2^by steps.
void
Advance(uint64_t n, int by, uint64_t s[6])
{
    const Powers& p = ThePowers();
    for (int b = 0; b < 64; b++)
    {
        if (n >> b & 1)
        {
            MatVecMod(p.a1[by + b], s, M1);
            MatVecMod(p.a2[by + b], s + 3, M2);
        }
    }
}

} // namespace

Mrg32k3a::Mrg32k3a(uint32_t seed, uint64_t stream, uint64_t run)
{
    if (seed == 0 || seed >= M2)
    {
        NS_FATAL_ERROR("MRG32k3a: invalid seed " << seed << " (1 to " << M2 - 1 << ")");
    }
    uint64_t s[6];
    for (auto& v : s)
    {
        v = seed;
    }
    // the powers of the transition matrices commute: the order of the steps does not matter
    Advance(stream, 127, s);
    Advance(run, 76, s);
    for (int i = 0; i < 6; i++)
    {
        m_s[i] = static_cast<double>(s[i]); // below 2^32: exact
    }
}

} // namespace rdmacc
} // namespace ns3
