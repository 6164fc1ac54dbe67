#pragma once
// The device chooser of the Train and Detect panels: the CPU, then each GPU with its name and memory;
// without a GPU a disabled entry says why. Each entry's data is -1 (the CPU) or the CUDA index; the
// Train panel's box also offers, with two GPUs or more, all of them at once (data: the list of
// indexes — data-parallel, one rank per GPU).
#include "backend/gpu_devices.h"

#include <QComboBox>
#include <QString>

namespace nw::ui {

// `what` completes the tooltip: "Where the network runs", "Where training runs".
QComboBox* makeDeviceBox(const QString& what, QWidget* parent, bool offerAllGpus = false);
// The entries for `inventory` (makeDeviceBox with listGpus(); tests give other machines).
void fillDeviceBox(QComboBox* box, const GpuInventory& inventory, bool offerAllGpus);

} // namespace nw::ui
