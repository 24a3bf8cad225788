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

void
PfcHeader::Serialize(Buffer::Iterator i) const
{
    // destination 01:80:C2:00:00:01, source unused
    i.WriteU8(0x01);
    i.WriteU8(0x80);
    i.WriteU8(0xC2);
    i.WriteU8(0x00);
    i.WriteU8(0x00);
    i.WriteU8(0x01);
    for (int k = 0; k < 6; k++)
    {
        i.WriteU8(0);
    }
    i.WriteHtonU16(0x8808);
    i.WriteHtonU16(OPCODE);
    i.WriteHtonU16(classEnable);
    for (auto q : quanta)
    {
        i.WriteHtonU16(q);
    }
    // padding (26) + FCS (4)
    for (int k = 34; k < int(FRAME_SIZE); k++)
    {
        i.WriteU8(0);
    }
}

uint32_t
PfcHeader::Deserialize(Buffer::Iterator i)
{
    i.Next(12);
    i.ReadNtohU16(); // EtherType
    i.ReadNtohU16(); // opcode
    classEnable = i.ReadNtohU16();
    for (auto& q : quanta)
    {
        q = i.ReadNtohU16();
    }
    i.Next(FRAME_SIZE - 34);
    return FRAME_SIZE;
}

} // namespace ns3
