/*
 * rdma-cc: IEEE 802.1Qbb priority flow control frame.
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef PFC_HEADER_H
#define PFC_HEADER_H

#include "ns3/header.h"

#include <array>
#include <cstdint>

namespace ns3
{

/**
 * \ingroup rdma-cc
 *
 * A PFC PAUSE frame (MAC control, EtherType 0x8808, opcode 0x0101): a class-enable vector and
 * eight pause times in quanta of 512 bit times. A time of 0 for an enabled class resumes it.
 * Serialised as the full 64-byte minimum frame (header, padding and FCS).
 */
class PfcHeader : public Header
{
  public:
    /// MAC control opcode of PFC.
    static constexpr uint16_t OPCODE = 0x0101;
    /// Frame size (minimum Ethernet frame).
    static constexpr uint32_t FRAME_SIZE = 64;
    /// Bit times per pause quantum.
    static constexpr uint32_t QUANTUM_BITS = 512;

    PfcHeader();

    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();
    TypeId GetInstanceTypeId() const override;
    void Print(std::ostream& os) const override;
    uint32_t GetSerializedSize() const override;
    void Serialize(Buffer::Iterator start) const override;
    uint32_t Deserialize(Buffer::Iterator start) override;

    /// Bytes of the frame the fields are read from (Parse).
    static constexpr uint32_t PARSE_BYTES = 34;
    /// Sets the fields from the frame's first PARSE_BYTES bytes (as Deserialize does): for a
    /// receiver that copied them out with one Packet::CopyData (Buffer::Iterator::Read checks
    /// every byte: ~580 instructions a frame).
    void Parse(const uint8_t* b);

    uint16_t classEnable;           //!< bit p: the time for class p is valid
    std::array<uint16_t, 8> quanta; //!< pause time per class, in 512-bit-time quanta
};

} // namespace ns3

#endif /* PFC_HEADER_H */
