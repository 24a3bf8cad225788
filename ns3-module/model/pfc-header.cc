/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "pfc-header.h"

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(PfcHeader);

PfcHeader::PfcHeader() :
    classEnable(0),
    quanta{}
{
}

TypeId
PfcHeader::GetTypeId()
{
    static TypeId tid = TypeId("ns3::PfcHeader")
                            .SetParent<Header>()
                            .SetGroupName("RdmaCc")
                            .AddConstructor<PfcHeader>();
    return tid;
}

TypeId
PfcHeader::GetInstanceTypeId() const
{
    return GetTypeId();
}

void
PfcHeader::Print(std::ostream& os) const
{
    os << "PFC enable=0x" << std::hex << classEnable << std::dec;
    for (int p = 0; p < 8; p++)
    {
        if (classEnable & (1 << p))
        {
            os << " p" << p << "=" << quanta[p];
        }
    }
}

uint32_t
PfcHeader::GetSerializedSize() const
{
    return FRAME_SIZE;
}

// The frame is built in a local array and written with one Buffer::Iterator::Write (read with
// one Read): a call per field costs a bounds check per byte in ns-3's own library.
void
PfcHeader::Serialize(Buffer::Iterator i) const
{
    uint8_t b[FRAME_SIZE] = {};
    // destination 01:80:C2:00:00:01, source unused
    b[0] = 0x01;
    b[1] = 0x80;
    b[2] = 0xC2;
    b[5] = 0x01;
    auto put16 = [&b](uint32_t at, uint16_t v)
    {
        b[at] = static_cast<uint8_t>(v >> 8);
        b[at + 1] = static_cast<uint8_t>(v);
    };
    put16(12, 0x8808);
    put16(14, OPCODE);
    put16(16, classEnable);
    for (uint32_t k = 0; k < quanta.size(); k++)
    {
        put16(18 + 2 * k, quanta[k]);
    }
    // padding (26) + FCS (4): zeros
    i.Write(b, FRAME_SIZE);
}

uint32_t
PfcHeader::Deserialize(Buffer::Iterator i)
{
    uint8_t b[PARSE_BYTES];
    i.Read(b, sizeof(b));
    Parse(b);
    return FRAME_SIZE;
}

void
PfcHeader::Parse(const uint8_t* b)
{
    // EtherType and opcode (bytes 12-15) are not checked here (QbbNetDevice::Receive did)
    auto get16 = [b](uint32_t at)
    {
        return static_cast<uint16_t>((uint16_t(b[at]) << 8) | b[at + 1]);
    };
    classEnable = get16(16);
    for (uint32_t k = 0; k < quanta.size(); k++)
    {
        quanta[k] = get16(18 + 2 * k);
    }
}

} // namespace ns3
