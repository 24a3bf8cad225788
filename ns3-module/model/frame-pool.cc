// rdma-cc: the ns-3 Packets of a NIC's frames, reused once their arrival is over
#include "frame-pool.h"

#include "ns3/nix-vector.h"

#include <array>
#include <vector>

namespace ns3
{
namespace rdmacc
{

namespace
{

/// Frames of one size, kept.
struct SizeClass
{
    uint32_t size = 0;         //!< their size
    std::vector<Packet*> kept; //!< each with the pool's reference
};

/// The pool: never destroyed (its frames outlive ns-3's own statics at exit).
struct Pool
{
    /// the mark of a frame Make built and nobody read
    Ptr<NixVector> mark = Create<NixVector>();
    std::array<SizeClass, FramePool::MAX_SIZES> classes{}; //!< by first use
    uint32_t nClasses = 0;                                 //!< classes in use
    uint64_t reused = 0;                                   //!< Make calls served from `kept`

    /// \return the class of frames of `size`, or nullptr (none yet)
    SizeClass*
    Find(uint32_t size)
    {
        for (uint32_t c = 0; c < nClasses; c++)
        {
            if (classes[c].size == size)
            {
                return &classes[c];
            }
        }
        return nullptr;
    }
};

Pool&
ThePool()
{
    static Pool* pool = new Pool;
    return *pool;
}

/// \return a Packet of `size` zero bytes and no tags, with a reference for the caller: one the
///         pool kept (its reference, handed over without a look at the Packet), else a new one
Packet*
Take(uint32_t size)
{
    Pool& pool = ThePool();
    SizeClass* k = pool.Find(size);
    if (k != nullptr && !k->kept.empty())
    {
        Packet* p = k->kept.back();
        k->kept.pop_back();
        pool.reused++;
        return p;
    }
    Ptr<Packet> p = Create<Packet>(size);
    p->SetNixVector(pool.mark);
    Packet* raw = PeekPointer(p);
    raw->Ref(); // the caller's, once p's goes
    return raw;
}

} // namespace

Ptr<Packet>
FramePool::Make(uint32_t size)
{
    return Ptr<Packet>(Take(size), false);
}

Frame
FramePool::MakeFrame(uint32_t size)
{
    return Frame::Adopt(Take(size), size, true);
}

void
FramePool::Release(Packet* p)
{
    if (p != nullptr)
    {
        Release(p, p->GetSize(), false);
    }
}

void
FramePool::Release(Packet* p, uint32_t size, bool pristine)
{
    if (p == nullptr)
    {
        return;
    }
    Pool& pool = ThePool();
    if (pristine ||
        (p->GetReferenceCount() == 1 && PeekPointer(p->GetNixVector()) == PeekPointer(pool.mark)))
    {
        SizeClass* k = pool.Find(size);
        if (k == nullptr && pool.nClasses < MAX_SIZES)
        {
            k = &pool.classes[pool.nClasses++];
            k->size = size;
        }
        if (k != nullptr && k->kept.size() < MAX_KEPT)
        {
            if (!pristine)
            {
                // a pristine frame has none: nothing reached its Packet to add one
                p->RemoveAllPacketTags();
                p->RemoveAllByteTags();
            }
            k->kept.push_back(p);
            return;
        }
    }
    p->Unref();
}

void
FramePool::Forget(const Packet& p)
{
    p.SetNixVector(nullptr);
}

uint64_t
FramePool::Reused()
{
    return ThePool().reused;
}

} // namespace rdmacc
} // namespace ns3
