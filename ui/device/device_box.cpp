#include "device/device_box.h"

#include <QStandardItemModel>
#include <QStringList>
#include <QVariantList>

namespace nw::ui {

// Total memory, not free: measuring the free memory would hold a CUDA context on every GPU for the
// studio's lifetime (netwright-cli devices measures it).
QComboBox* makeDeviceBox(const QString& what, QWidget* parent, bool offerAllGpus)
{
    auto* box = new QComboBox(parent);
    // Sized for a GPU's name, not the longest reason (the widgets beside it keep their room).
    box->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    box->setMinimumContentsLength(14);
    box->setToolTip(QObject::tr("%1 (netwright-cli devices lists the GPUs)").arg(what));
    fillDeviceBox(box, listGpus(false), offerAllGpus);
    return box;
}

void fillDeviceBox(QComboBox* box, const GpuInventory& inventory, bool offerAllGpus)
{
    box->clear();
    box->addItem(QObject::tr("CPU"), -1);
    for (const GpuDevice& gpu : inventory.devices)
        box->addItem(QObject::tr("cuda:%1 %2 (%3 GiB)")
                         .arg(gpu.index)
                         .arg(QString::fromStdString(gpu.name))
                         .arg(double(gpu.totalBytes) / double(1ull << 30), 0, 'f', 1),
                     gpu.index);
    if (offerAllGpus && inventory.devices.size() > 1) {
        QVariantList indexes;
        QStringList names;
        for (const GpuDevice& gpu : inventory.devices) {
            indexes << gpu.index;
            names << QString("cuda:%1").arg(gpu.index);
        }
        box->addItem(
            QObject::tr("All %1 GPUs: %2 (%1 ranks, NCCL)").arg(indexes.size()).arg(names.join(", ")),
            indexes);
        box->setItemData(box->count() - 1,
                         QObject::tr("Data-parallel: one training process per GPU, each on the cfg's batch, "
                                     "gradients summed every iteration (netwright-cli train --gpus)"),
                         Qt::ToolTipRole);
    }
    if (inventory.devices.empty()) {
        box->addItem(QObject::tr("GPU: %1").arg(QString::fromStdString(inventory.problem)), -2);
        if (auto* model = qobject_cast<QStandardItemModel*>(box->model()))
            model->item(1)->setEnabled(false);
        box->setItemData(1, QString::fromStdString(inventory.problem), Qt::ToolTipRole);
    }
}

} // namespace nw::ui
