/*
 * Tests of rdmacc::CsvRow, the per-event CSV rows of pfc.csv, drops.csv and queue.csv: its
 * bytes are those std::ostream's << writes for the same values (the files did not change when
 * it replaced the stream), for the integer types the rows use, their extremes, and strings.
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "ns3/rdma-cc-output.h"
#include "ns3/test.h"

#include <cstdint>
#include <limits>
#include <sstream>
#include <string>

using namespace ns3;

namespace
{

/// A row's bytes as written to a stream.
std::string
Written(rdmacc::CsvRow& r)
{
    std::ostringstream os;
    r.WriteTo(os);
    return os.str();
}

/// CsvRow against std::ostream's << for every integer type of the rows' columns.
class CsvRowMatchesStreamTestCase : public TestCase
{
  public:
    CsvRowMatchesStreamTestCase() :
        TestCase("CsvRow writes the bytes std::ostream's << writes (int64, uint64, uint32, "
                 "uint16, int, extremes, strings, characters)")
    {
    }

  private:
    void
    DoRun() override
    {
        uint64_t x = 0x9E3779B97F4A7C15ULL;
        for (int k = 0; k < 20000; k++)
        {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            // a spread of magnitudes: shift the draw by 0..63 bits
            const uint64_t u = x >> (x % 64);
            const auto i = static_cast<int64_t>(u) * ((x & 1) ? -1 : 1);
            const auto u32 = static_cast<uint32_t>(u);
            const auto u16 = static_cast<uint16_t>(u);
            const auto small = static_cast<int>(u % 256);
            rdmacc::CsvRow r;
            r << i << ',' << u << ',' << u32 << ',' << u16 << ',' << small << ',' << "pause"
              << '\n';
            std::ostringstream want;
            want << i << ',' << u << ',' << u32 << ',' << u16 << ',' << small << ',' << "pause"
                 << '\n';
            NS_TEST_ASSERT_MSG_EQ(Written(r), want.str(), "draw " << k);
        }
        rdmacc::CsvRow r;
        r << std::numeric_limits<int64_t>::min() << ',' << std::numeric_limits<int64_t>::max()
          << ',' << std::numeric_limits<uint64_t>::max() << ',' << int64_t(0) << ',' << "" << ','
          << std::numeric_limits<uint16_t>::max();
        NS_TEST_ASSERT_MSG_EQ(Written(r),
                              "-9223372036854775808,9223372036854775807,"
                              "18446744073709551615,0,,65535",
                              "extremes");
        // WriteTo empties the row
        r << 7 << '\n';
        NS_TEST_ASSERT_MSG_EQ(Written(r), "7\n", "a row after WriteTo starts empty");
    }
};

/// The suite.
class CsvRowTestSuite : public TestSuite
{
  public:
    CsvRowTestSuite() :
        TestSuite("rdma-cc-csv-row")
    {
        AddTestCase(new CsvRowMatchesStreamTestCase);
    }
};

CsvRowTestSuite g_csvRowTestSuite; //!< registers the suite

} // namespace
