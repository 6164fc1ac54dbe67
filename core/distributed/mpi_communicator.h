#pragma once
// The Communicator over MPI (Debian's Open MPI): started by mpirun/srun, any number of hosts.
#include "train/communicator.h"

#include <memory>

namespace nw {

// MPI_Init_thread and the world communicator; nullptr and a message when MPI cannot start.
// MPI_Finalize runs when the last communicator is destroyed.
std::unique_ptr<Communicator> startMpi(std::string& error);

} // namespace nw
