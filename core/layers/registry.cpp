#include "layers/registry.h"

#include "layers/activation.h"
#include "layers/avgpool.h"
#include "layers/batchnorm.h"
#include "layers/connected.h"
#include "layers/convolutional.h"
#include "layers/cost.h"
#include "layers/crnn.h"
#include "layers/crop.h"
#include "layers/deconvolutional.h"
#include "layers/detection.h"
#include "layers/dropout.h"
#include "layers/empty.h"
#include "layers/gru.h"
#include "layers/iseg.h"
#include "layers/l2norm.h"
#include "layers/local.h"
#include "layers/logistic.h"
#include "layers/lstm.h"
#include "layers/maxpool.h"
#include "layers/normalization.h"
#include "layers/region.h"
#include "layers/reorg.h"
#include "layers/reorg3d.h"
#include "layers/rnn.h"
#include "layers/route.h"
#include "layers/sam.h"
#include "layers/scale_channels.h"
#include "layers/shortcut.h"
#include "layers/softmax.h"
#include "layers/upsample.h"
#include "layers/yolo.h"

#include <algorithm>

namespace nw {

void LayerRegistry::add(LayerType type)
{
    types_.push_back(std::move(type));
}

const LayerType* LayerRegistry::find(std::string_view sectionName) const
{
    for (const LayerType& type : types_) {
        if (type.name == sectionName)
            return &type;
        if (std::find(type.aliases.begin(), type.aliases.end(), sectionName) != type.aliases.end())
            return &type;
    }
    return nullptr;
}

std::string LayerRegistry::knownNames() const
{
    std::string text;
    for (const LayerType& type : types_)
        text += (text.empty() ? "" : ", ") + type.name;
    return text;
}

const LayerRegistry& LayerRegistry::builtin()
{
    static const LayerRegistry registry = [] {
        LayerRegistry r;
        registerBuiltinLayers(r);
        return r;
    }();
    return registry;
}

// Section names and aliases as Darknet's parsers accept them (case-sensitive).
void registerBuiltinLayers(LayerRegistry& r)
{
    r.add({"convolutional", {"conv"}, "convolution", &ConvolutionalLayer::parse});
    r.add({"deconvolutional", {"deconv"}, "convolution", &DeconvolutionalLayer::parse});
    r.add({"connected", {"conn"}, "dense", &ConnectedLayer::parse});
    r.add({"local", {}, "convolution", &LocalLayer::parse});
    r.add({"maxpool", {"max"}, "pooling", &MaxpoolLayer::parse});
    r.add({"avgpool", {"avg"}, "pooling", &AvgpoolLayer::parse});
    r.add({"softmax", {"soft"}, "output", &SoftmaxLayer::parse});
    r.add({"dropout", {}, "regularisation", &DropoutLayer::parse});
    r.add({"route", {}, "routing", &RouteLayer::parse});
    r.add({"shortcut", {}, "routing", &ShortcutLayer::parse});
    r.add({"upsample", {}, "resampling", &UpsampleLayer::parse});
    r.add({"reorg", {}, "resampling", &ReorgLayer::parse});
    r.add({"reorg3d", {}, "resampling", &Reorg3dLayer::parse});
    r.add({"yolo", {}, "head", &YoloLayer::parse});
    r.add({"Gaussian_yolo", {}, "head", &YoloLayer::parseGaussian});
    r.add({"region", {}, "head", &RegionLayer::parse});
    r.add({"detection", {}, "head", &DetectionLayer::parse});
    r.add({"iseg", {}, "head", &IsegLayer::parse});
    r.add({"cost", {}, "output", &CostLayer::parse});
    r.add({"logistic", {}, "output", &LogisticLayer::parse});
    r.add({"batchnorm", {}, "normalisation", &BatchnormLayer::parse});
    r.add({"normalization", {"lrn"}, "normalisation", &NormalizationLayer::parse});
    r.add({"l2norm", {}, "normalisation", &L2normLayer::parse});
    r.add({"activation", {}, "activation", &ActivationLayer::parse});
    r.add({"crop", {}, "resampling", &CropLayer::parse});
    r.add({"rnn", {}, "recurrent", &RnnLayer::parse});
    r.add({"gru", {}, "recurrent", &GruLayer::parse});
    r.add({"lstm", {}, "recurrent", &LstmLayer::parse});
    r.add({"crnn", {}, "recurrent", &CrnnLayer::parse});
    r.add({"scale_channels", {}, "attention", &ScaleChannelsLayer::parse});
    r.add({"sam", {}, "attention", &SamLayer::parse});
    r.add({"empty", {"silence"}, "routing", &EmptyLayer::parse});
}

} // namespace nw
