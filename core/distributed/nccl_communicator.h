#pragma once
// The Communicator over NCCL (NVIDIA's collectives, from the CUDA install): data-parallel training on
// the GPUs of one machine, one process per GPU (`train --gpus 0,1,…`). Gradients are summed where they
// are, in GPU memory (DeviceSums); the few host values (the loss, the stop flag, the start broadcast)
// pass through a device buffer of the communicator's own.
#include "train/communicator.h"

#include <memory>
#include <string>

namespace nw {

// A new clique's identity as text (rank 0's launcher makes it and hands it to every rank); empty and a
// message when NCCL cannot.
std::string newNcclCliqueId(std::string& error);
// Joins the clique `id` as `rank` of `size` on GPU `device`; nullptr and a message when NCCL, the GPU or
// the id fail. Every rank must call it (it waits for the others).
std::unique_ptr<Communicator> joinNccl(int rank, int size, const std::string& id, int device,
                                       std::string& error);

} // namespace nw
