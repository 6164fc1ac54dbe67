#pragma once
// The device chooser of the Train and Detect panels: the CPU, then each GPU with its name and memory;
// without a GPU a disabled entry says why. Each entry's data is -1 (the CPU) or the CUDA index.
#include <QComboBox>
#include <QString>

namespace nw::ui {

// `what` completes the tooltip: "Where the network runs", "Where training runs".
QComboBox* makeDeviceBox(const QString& what, QWidget* parent);

} // namespace nw::ui
