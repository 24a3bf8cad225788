/*
 * Tests of the frames' wire bytes (RoceHeader, PfcHeader): Serialize writes, field by field, the
 * bytes the header format documents (a reference writer made of Buffer::Iterator calls, as the
 * header was written before it built its bytes in one array), and Deserialize and PeekFrom read
 * back every field, for every packet kind with and without the INT header.
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "ns3/core-module.h"
#include "ns3/network-module.h"
#include "ns3/rdma-cc-module.h"
#include "ns3/test.h"

#include <vector>

using namespace ns3;

namespace
{

/// The header's bytes written one field at a time (the format of roce-header.h); the bytes
/// after a data frame's message size (its INT header) are zero.
class ReferenceHeader : public Header
{
  public:
    explicit ReferenceHeader(const RoceHeader& h) :
        m_h(h)
    {
    }

    static TypeId
    GetTypeId()
    {
        static TypeId tid = TypeId("ns3::RoceHeaderTestReference").SetParent<Header>();
        return tid;
    }

    TypeId
    GetInstanceTypeId() const override
    {
        return GetTypeId();
    }

    void
    Print(std::ostream& os) const override
    {
    }

    uint32_t
    GetSerializedSize() const override
    {
        return m_h.GetSerializedSize();
    }

    uint32_t
    Deserialize(Buffer::Iterator) override
    {
        return 0;
    }

    void
    Serialize(Buffer::Iterator i) const override
    {
        const RoceHeader& h = m_h;
        i.WriteHtonU64(h.ts);
        i.WriteU8(h.kind == RoceHeader::DATA ? h.scheme : 0);
        i.WriteU8(0);
        i.WriteU8(0);
        i.WriteU8(h.prio);
        i.WriteHtonU16(0x0800);
        i.WriteU8(0x45);
        i.WriteU8(static_cast<uint8_t>((h.prio << 5) | (h.ecn & 3)));
        i.WriteHtonU16(static_cast<uint16_t>(h.GetSerializedSize() - 18));
        i.WriteU8(h.kind);
        i.WriteU8(h.flags);
        i.WriteHtonU16(0);
        i.WriteU8(64);
        i.WriteU8(17);
        i.WriteHtonU16(0);
        i.WriteHtonU32(h.srcIp);
        i.WriteHtonU32(h.dstIp);
        i.WriteHtonU16(h.srcPort);
        i.WriteHtonU16(h.dstPort);
        i.WriteHtonU32(0);
        i.WriteHtonU32(h.flowId);
        i.WriteHtonU64(h.seq);
        uint32_t k = 54;
        if (h.kind == RoceHeader::DATA)
        {
            i.WriteHtonU64(h.msgSize);
            k += 8;
        }
        for (; k < h.GetSerializedSize(); k++)
        {
            i.WriteU8(0);
        }
    }

  private:
    RoceHeader m_h;
};

/// The bytes of a frame of `payload` zero bytes behind `hdr`.
std::vector<uint8_t>
Bytes(const Header& hdr, uint32_t payload)
{
    Ptr<Packet> p = Create<Packet>(payload);
    p->AddHeader(hdr);
    std::vector<uint8_t> b(p->GetSize());
    p->CopyData(b.data(), b.size());
    return b;
}

/// xorshift64: the tests' field values (every bit pattern).
class XorShift
{
  public:
    explicit XorShift(uint64_t seed) :
        m_x(seed)
    {
    }

    uint64_t
    operator()()
    {
        m_x ^= m_x << 13;
        m_x ^= m_x >> 7;
        m_x ^= m_x << 17;
        return m_x;
    }

  private:
    uint64_t m_x; //!< state
};

/// A test case that compares parsed fields, field by field.
class FieldsTestCase : public TestCase
{
  protected:
    using TestCase::TestCase;

    /// Every field of `got` equals `want`'s.
    void
    ExpectFields(const RoceFields& got, const RoceFields& want)
    {
        NS_TEST_ASSERT_MSG_EQ(int(got.kind), int(want.kind), "kind");
        NS_TEST_ASSERT_MSG_EQ(int(got.prio), int(want.prio), "prio");
        NS_TEST_ASSERT_MSG_EQ(int(got.ecn), int(want.ecn), "ecn");
        NS_TEST_ASSERT_MSG_EQ(int(got.flags), int(want.flags), "flags");
        NS_TEST_ASSERT_MSG_EQ(got.srcIp, want.srcIp, "srcIp");
        NS_TEST_ASSERT_MSG_EQ(got.dstIp, want.dstIp, "dstIp");
        NS_TEST_ASSERT_MSG_EQ(got.srcPort, want.srcPort, "srcPort");
        NS_TEST_ASSERT_MSG_EQ(got.dstPort, want.dstPort, "dstPort");
        NS_TEST_ASSERT_MSG_EQ(got.flowId, want.flowId, "flowId");
        NS_TEST_ASSERT_MSG_EQ(got.seq, want.seq, "seq");
        NS_TEST_ASSERT_MSG_EQ(got.ts, want.ts, "ts");
        NS_TEST_ASSERT_MSG_EQ(got.msgSize, want.msgSize, "msgSize");
        NS_TEST_ASSERT_MSG_EQ(int(got.scheme), int(want.scheme), "scheme");
    }
};

/// Serialize's bytes against the reference's, and both readers against the fields.
class RoceHeaderBytesTestCase : public FieldsTestCase
{
  public:
    RoceHeaderBytesTestCase() :
        FieldsTestCase("RoceHeader: serialised bytes as documented, read back by Deserialize and "
                       "PeekFrom, every kind, with and without INT")
    {
    }

  private:
    void
    DoRun() override
    {
        XorShift next(0x9E3779B97F4A7C15ULL);
        uint32_t cases = 0;
        for (uint8_t kind = RoceHeader::DATA; kind <= RoceHeader::SWITCH_CONTROL; kind++)
        {
            for (bool withInt : {false, true})
            {
                for (uint32_t rep = 0; rep < 20; rep++)
                {
                    RoceHeader h;
                    h.kind = static_cast<RoceHeader::Kind>(kind);
                    h.prio = static_cast<uint8_t>(next() & 7);
                    h.ecn = static_cast<uint8_t>(next() & 3);
                    h.flags = static_cast<uint8_t>((next() & 0x1F) |
                                                   (withInt ? RoceHeader::FLAG_INT : 0));
                    h.srcIp = static_cast<uint32_t>(next());
                    h.dstIp = static_cast<uint32_t>(next());
                    h.srcPort = static_cast<uint16_t>(next());
                    h.dstPort = static_cast<uint16_t>(next());
                    h.flowId = static_cast<uint32_t>(next());
                    h.seq = next();
                    h.ts = next();
                    h.msgSize = next();
                    h.scheme = static_cast<uint8_t>(next());
                    const uint32_t payload = (rep % 2) ? 1000 : 0;
                    const std::vector<uint8_t> got = Bytes(h, payload);
                    const std::vector<uint8_t> want = Bytes(ReferenceHeader(h), payload);
                    NS_TEST_ASSERT_MSG_EQ(got.size(),
                                          h.GetSerializedSize() + payload,
                                          "frame size, kind " << int(kind));
                    NS_TEST_ASSERT_MSG_EQ((got == want), true, "bytes differ, kind " << int(kind));

                    Ptr<Packet> p = Create<Packet>(payload);
                    p->AddHeader(h);
                    RoceHeader a;
                    RoceHeader b;
                    p->PeekHeader(a);
                    NS_TEST_ASSERT_MSG_EQ(b.PeekFrom(*p), h.GetSerializedSize(), "PeekFrom size");
                    // a data frame alone carries the message size and the scheme
                    RoceFields fields = h;
                    const bool data = kind == RoceHeader::DATA;
                    fields.msgSize = data ? h.msgSize : 0;
                    fields.scheme = data ? h.scheme : 0;
                    ExpectFields(a, fields);
                    ExpectFields(b, fields);
                    cases++;
                }
            }
        }
        NS_TEST_ASSERT_MSG_EQ(cases, 7u * 2 * 20, "every kind tested");
        // a frame shorter than any RoCE header: PeekFrom reads nothing
        RoceHeader s;
        s.seq = 7;
        NS_TEST_ASSERT_MSG_EQ(
            s.PeekFrom(*Create<Packet>(RoceHeader::PEEK_BYTES - 1)), 0u, "short frame");
        NS_TEST_ASSERT_MSG_EQ(s.seq, 7u, "a short frame leaves the header as it was");
    }
};

/// Canonical() is exactly what a frame's header reads back as, whatever the fields hold.
class RoceFieldsCanonicalTestCase : public FieldsTestCase
{
  public:
    RoceFieldsCanonicalTestCase() :
        FieldsTestCase(
            "RoceFields::Canonical: the fields PeekFrom and Deserialize read back, every "
            "kind, any field values")
    {
    }

  private:
    void
    DoRun() override
    {
        XorShift next(0x2545F4914F6CDD1DULL);
        for (uint8_t kind = RoceHeader::DATA; kind <= RoceHeader::READ_REQ; kind++)
        {
            for (uint32_t rep = 0; rep < 50; rep++)
            {
                RoceHeader h;
                h.kind = static_cast<RoceHeader::Kind>(kind);
                // every bit of every field, the ones the wire does not keep included
                h.prio = static_cast<uint8_t>(next());
                h.ecn = static_cast<uint8_t>(next());
                h.flags = static_cast<uint8_t>(next());
                h.srcIp = static_cast<uint32_t>(next());
                h.dstIp = static_cast<uint32_t>(next());
                h.srcPort = static_cast<uint16_t>(next());
                h.dstPort = static_cast<uint16_t>(next());
                h.flowId = static_cast<uint32_t>(next());
                h.seq = next();
                h.ts = next();
                h.msgSize = next();
                h.scheme = static_cast<uint8_t>(next());
                Ptr<Packet> p = Create<Packet>((rep % 2) ? 1000 : 0);
                p->AddHeader(h);
                const RoceFields c = h.Canonical();
                RoceHeader d;
                p->PeekHeader(d);
                RoceFields r;
                NS_TEST_ASSERT_MSG_EQ(r.PeekFrom(*p), c.Size(), "size, kind " << int(kind));
                ExpectFields(d, c);
                ExpectFields(r, c);
            }
        }
    }
};

/// PfcHeader's bytes: IEEE 802.1Qbb's MAC control frame, padded to 64 bytes.
class PfcHeaderBytesTestCase : public TestCase
{
  public:
    PfcHeaderBytesTestCase() :
        TestCase("PfcHeader: serialised bytes as IEEE 802.1Qbb lays them out, read back")
    {
    }

  private:
    void
    DoRun() override
    {
        for (uint32_t prio = 0; prio < 8; prio++)
        {
            for (uint16_t quanta : {uint16_t(0), uint16_t(1), uint16_t(0xABCD), uint16_t(0xFFFF)})
            {
                PfcHeader h;
                h.classEnable = static_cast<uint16_t>(1u << prio);
                h.quanta[prio] = quanta;
                Ptr<Packet> p = Create<Packet>();
                p->AddHeader(h);
                std::vector<uint8_t> got(p->GetSize());
                p->CopyData(got.data(), got.size());
                std::vector<uint8_t> want(PfcHeader::FRAME_SIZE, 0);
                const uint8_t head[] = {0x01, 0x80, 0xC2, 0x00, 0x00, 0x01};
                std::copy(head, head + 6, want.begin());
                want[12] = 0x88;
                want[13] = 0x08;
                want[14] = 0x01;
                want[15] = 0x01;
                want[16] = static_cast<uint8_t>(h.classEnable >> 8);
                want[17] = static_cast<uint8_t>(h.classEnable);
                want[18 + 2 * prio] = static_cast<uint8_t>(quanta >> 8);
                want[19 + 2 * prio] = static_cast<uint8_t>(quanta);
                NS_TEST_ASSERT_MSG_EQ((got == want), true, "PFC frame bytes, priority " << prio);
                PfcHeader r;
                r.quanta.fill(7);
                p->RemoveHeader(r);
                NS_TEST_ASSERT_MSG_EQ(r.classEnable, h.classEnable, "classEnable");
                for (uint32_t k = 0; k < 8; k++)
                {
                    NS_TEST_ASSERT_MSG_EQ(r.quanta[k], h.quanta[k], "quanta of class " << k);
                }
                NS_TEST_ASSERT_MSG_EQ(p->GetSize(), 0u, "the whole frame read");
            }
        }
    }
};

/// The suite.
class RoceHeaderTestSuite : public TestSuite
{
  public:
    RoceHeaderTestSuite() :
        TestSuite("rdma-cc-roce-header")
    {
        AddTestCase(new RoceHeaderBytesTestCase);
        AddTestCase(new RoceFieldsCanonicalTestCase);
        AddTestCase(new PfcHeaderBytesTestCase);
    }
};

static RoceHeaderTestSuite g_roceHeaderTestSuite; //!< registers the suite

} // namespace
