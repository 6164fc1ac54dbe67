#include "device/device_box.h"

#include "backend/gpu_devices.h"

#include <QStandardItemModel>

namespace nw::ui {

// Total memory, not free: measuring the free memory would hold a CUDA context on every GPU for the
// studio's lifetime (netwright-cli devices measures it).
QComboBox* makeDeviceBox(const QString& what, QWidget* parent)
{
    auto* box = new QComboBox(parent);
    // Sized for a GPU's name, not the longest reason (the widgets beside it keep their room).
    box->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    box->setMinimumContentsLength(14);
    box->setToolTip(QObject::tr("%1 (netwright-cli devices lists the GPUs)").arg(what));
    box->addItem(QObject::tr("CPU"), -1);
    const GpuInventory inventory = listGpus(false);
    for (const GpuDevice& gpu : inventory.devices)
        box->addItem(QObject::tr("cuda:%1 %2 (%3 GiB)")
                         .arg(gpu.index)
                         .arg(QString::fromStdString(gpu.name))
                         .arg(double(gpu.totalBytes) / double(1ull << 30), 0, 'f', 1),
                     gpu.index);
    if (inventory.devices.empty()) {
        box->addItem(QObject::tr("GPU: %1").arg(QString::fromStdString(inventory.problem)), -2);
        if (auto* model = qobject_cast<QStandardItemModel*>(box->model()))
            model->item(1)->setEnabled(false);
        box->setItemData(1, QString::fromStdString(inventory.problem), Qt::ToolTipRole);
    }
    return box;
}

} // namespace nw::ui
