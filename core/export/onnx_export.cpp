#include "export/onnx_export.h"

#include "export/onnx_heads.h"
#include "export/onnx_layers.h"
#include "layers/detection_heads.h"
#include "util/atomic_file.h"

#include <onnx/checker.h>
#include <onnx/shape_inference/implementation.h>

#include <filesystem>
#include <stdexcept>

namespace nw {

namespace {

using namespace onnx_export;

// The IR version each opset came with (onnx/helper.py's table), so older readers accept the file.
int irVersionFor(int opset)
{
    return opset <= 11 ? 6 : opset <= 14 ? 7 : 8;
}

void declare(onnx::ValueInfoProto* value, const std::string& name, int batch,
             const std::vector<std::int64_t>& dims)
{
    value->set_name(name);
    onnx::TypeProto_Tensor* tensor = value->mutable_type()->mutable_tensor_type();
    tensor->set_elem_type(onnx::TensorProto::FLOAT);
    onnx::TensorShapeProto* shape = tensor->mutable_shape();
    if (batch > 0)
        shape->add_dim()->set_dim_value(batch);
    else
        shape->add_dim()->set_dim_param("batch");
    for (std::int64_t d : dims)
        shape->add_dim()->set_dim_value(d);
}

std::string dimsText(int batch, const std::vector<std::int64_t>& dims)
{
    std::string text = "[" + (batch > 0 ? std::to_string(batch) : std::string("batch"));
    for (std::int64_t d : dims)
        text += ", " + std::to_string(d);
    return text + "]";
}

// A graph output named `name` (an Identity, so the names are stable whatever the layers were).
void addOutput(onnx::GraphProto& graph, const std::string& tensor, const std::string& name, int batch,
               const std::vector<std::int64_t>& dims, OnnxExportReport& report)
{
    onnx::NodeProto* node = graph.add_node();
    node->set_op_type("Identity");
    node->set_name(name);
    node->add_input(tensor);
    node->add_output(name);
    declare(graph.add_output(), name, batch, dims);
    report.outputs.push_back(name + " " + dimsText(batch, dims));
}

// Layers whose output Darknet calls flat ([softmax], a route of different sizes, reorg's extra) give
// [batch, n]; everything else keeps NCHW ([connected] as [batch, n, 1, 1], as Darknet's 1×1×n), and so
// does whatever reads a flat tensor.
bool flattens(const LayerSpec& layer)
{
    return !layer.output.isImage();
}

// Layers whose ONNX tensor has the rank of their input (element-wise, or identities).
bool passesShapeOn(const LayerSpec& layer)
{
    return layer.type == "dropout" || layer.type == "activation" || layer.type == "logistic" ||
           layer.type == "cost";
}

// ONNX's shape inference in strict mode, as python's check_model(full_check=True): tensors that do
// not fit together throw instead of being written. The weights' values are set aside while it runs
// (it reads only their dims, and would copy them); small constants stay (Resize reads its scales).
void inferShapes(onnx::ModelProto& model)
{
    onnx::GraphProto& graph = *model.mutable_graph();
    std::vector<std::string> values(std::size_t(graph.initializer_size()));
    for (int i = 0; i < graph.initializer_size(); ++i)
        if (graph.initializer(i).raw_data().size() > 4096)
            graph.mutable_initializer(i)->mutable_raw_data()->swap(values[std::size_t(i)]);
    std::exception_ptr failure;
    try {
        onnx::shape_inference::InferShapes(model, onnx::OpSchemaRegistry::Instance(),
                                           onnx::ShapeInferenceOptions(true, 1, false));
    } catch (...) {
        failure = std::current_exception();
    }
    for (int i = 0; i < graph.initializer_size(); ++i)
        if (!values[std::size_t(i)].empty())
            graph.mutable_initializer(i)->mutable_raw_data()->swap(values[std::size_t(i)]);
    graph.clear_value_info(); // what inference added: readers infer it themselves
    if (failure)
        std::rethrow_exception(failure);
}

} // namespace

std::optional<std::string> buildOnnxModel(Net& net, const OnnxExportOptions& options, std::string& bytes,
                                          OnnxExportReport* reportOut)
{
    if (options.opset < kMinOnnxOpset || options.opset > kMaxOnnxOpset)
        return "opset " + std::to_string(options.opset) + " is not supported: choose " +
               std::to_string(kMinOnnxOpset) + " to " + std::to_string(kMaxOnnxOpset);
    if (options.batch < 0)
        return "the batch must be a positive number, or dynamic";
    const NetworkSpec& spec = net.spec();
    // An editor's new network has no file yet: messages still say which network they mean.
    // (the path as given, as every other message names a cfg)
    const std::string cfgName = spec.file.empty() ? std::string("the unsaved network") : spec.file;
    OnnxExportReport report;

    onnx::ModelProto model;
    model.set_ir_version(irVersionFor(options.opset));
    model.set_producer_name("Netwright");
    model.set_producer_version("0.1.0");
    model.set_doc_string(
        "Exported from " +
        (spec.file.empty() ? cfgName : std::filesystem::path(spec.file).filename().string()) +
        " by Netwright");
    model.add_opset_import()->set_version(options.opset);
    onnx::GraphProto& graph = *model.mutable_graph();
    // The checker requires a name; an unsaved network (the studio's File ▸ New) has no file to name it.
    const std::string stem = std::filesystem::path(spec.file).stem().string();
    graph.set_name(stem.empty() ? "netwright" : stem);
    // [net] inputs=N (a flat input, no image): [batch, N]; it was declared [batch, 0, 0, 0].
    const std::vector<std::int64_t> inputDims =
        spec.input.isImage() ? std::vector<std::int64_t>{spec.input.c, spec.input.h, spec.input.w}
                             : std::vector<std::int64_t>{spec.input.size};
    declare(graph.add_input(), "input", options.batch, inputDims);

    GraphBuilder g(graph, options.opset);
    std::vector<std::string> tensors;
    // Each layer's tensor's dims after the batch: [n] when flat, else [c, h, w]. What the tensor is, not
    // what Darknet calls it: [cost] is flat in Darknet but an identity here, and a one-source route
    // passes its source's tensor on.
    std::vector<std::vector<std::int64_t>> dims;
    std::vector<std::string> decoded;
    std::vector<std::size_t> heads;
    for (const LayerSpec& layer : spec.layers) {
        const std::string& input = layer.index == 0 ? std::string("input") : tensors.back();
        const std::vector<WeightArray> weights = net.layerWeightArrays(layer.index);
        LayerExport e{g, spec, layer, input, tensors, weights, net.weightsHeader(), options.batch};
        std::string rows;
        const bool head = isExportedHead(layer);
        Emitted result = head ? emitHead(e, options.withDecode ? &rows : nullptr) : emitLayer(e);
        if (result.refusal)
            return cfgName + ":" + std::to_string(layer.line) + ": layer " + std::to_string(layer.index) +
                   " [" + layer.type + "] " + *result.refusal;
        tensors.push_back(result.tensor);
        const Shape out = layer.output;
        if (passesShapeOn(layer))
            dims.push_back(layer.index > 0 ? dims.back() : inputDims);
        else if (layer.type == "route" && layer.sources.size() == 1 &&
                 dims[std::size_t(layer.sources[0])].size() == 1)
            dims.push_back({out.size}); // a flat source, whole (groups of a flat input are refused)
        else
            dims.push_back(flattens(layer) ? std::vector<std::int64_t>{out.size}
                                           : std::vector<std::int64_t>{out.c, out.h, out.w});
        if (head) {
            heads.push_back(std::size_t(layer.index));
            if (!rows.empty())
                decoded.push_back(rows);
        }
    }

    if (options.withDecode) {
        if (decoded.empty())
            return cfgName + " has no [yolo] or [region] head, so there are no boxes to decode (export it "
                             "without --with-decode)";
        // Rows of every head side by side: the same number of classes in each.
        std::int64_t boxes = 0, entries = 0;
        for (std::size_t h : heads) {
            const LayerSpec& layer = spec.layers[h];
            const std::int64_t headEntries = 5 + detectionHeadInfo(layer.config.get())->classes;
            if (entries != 0 && headEntries != entries)
                return cfgName + ":" + std::to_string(layer.line) + ": layer " + std::to_string(h) +
                       " has another number of classes than the first head, so their boxes cannot share "
                       "one output (export without --with-decode)";
            entries = headEntries;
            boxes += layer.output.size / headEntries;
        }
        const std::string all =
            decoded.size() == 1 ? decoded[0] : g.node("Concat", decoded, {Attribute::integer("axis", 1)});
        addOutput(graph, all, "detections", options.batch, {boxes, entries}, report);
    } else if (!heads.empty()) {
        for (std::size_t h : heads) {
            const LayerSpec& layer = spec.layers[h];
            addOutput(graph, tensors[h], layer.type + "_" + std::to_string(h), options.batch,
                      {layer.output.c, layer.output.h, layer.output.w}, report);
        }
    } else {
        const auto last = std::size_t(net.outputLayer());
        addOutput(graph, tensors[last], "output", options.batch, dims[last], report);
    }

    if (options.everyLayer)
        for (std::size_t i = 0; i < spec.layers.size(); ++i)
            addOutput(graph, tensors[i], "layer_" + std::to_string(i), options.batch, dims[i], report);

    try {
        onnx::checker::check_model(model);
        inferShapes(model);
    } catch (const std::exception& e) {
        return std::string("the ONNX checker refused the model (a Netwright bug, please report it): ") +
               e.what();
    }
    report.nodes = std::size_t(graph.node_size());
    if (model.ByteSizeLong() > std::size_t(2000) * 1024 * 1024)
        return "the model would be " + std::to_string(model.ByteSizeLong() >> 20) +
               " MB; ONNX files (protobuf) cannot exceed 2 GB";
    if (!model.SerializeToString(&bytes))
        return std::string("protobuf could not serialise the model");
    report.bytes = bytes.size();
    if (reportOut)
        *reportOut = std::move(report);
    return std::nullopt;
}

std::optional<std::string> exportOnnx(Net& net, const OnnxExportOptions& options, const std::string& path,
                                      OnnxExportReport* report)
{
    std::string bytes;
    if (auto error = buildOnnxModel(net, options, bytes, report))
        return error;
    return writeFileAtomically(path, bytes);
}

} // namespace nw
