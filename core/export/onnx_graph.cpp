#include "export/onnx_graph.h"

namespace nw::onnx_export {

std::string GraphBuilder::unique(const std::string& hint)
{
    return hint + "_" + std::to_string(counter_++);
}

std::string GraphBuilder::floats(const std::string& hint, const std::vector<std::int64_t>& dims,
                                 const std::vector<float>& values)
{
    onnx::TensorProto* tensor = graph_.add_initializer();
    tensor->set_name(unique(hint));
    tensor->set_data_type(onnx::TensorProto::FLOAT);
    for (std::int64_t d : dims)
        tensor->add_dims(d);
    // raw_data: little-endian float32, as every reader expects; far smaller than repeated floats.
    tensor->set_raw_data(
        std::string(reinterpret_cast<const char*>(values.data()), values.size() * sizeof(float)));
    return tensor->name();
}

std::string GraphBuilder::int64s(const std::string& hint, const std::vector<std::int64_t>& values)
{
    onnx::TensorProto* tensor = graph_.add_initializer();
    tensor->set_name(unique(hint));
    tensor->set_data_type(onnx::TensorProto::INT64);
    tensor->add_dims(std::int64_t(values.size()));
    for (std::int64_t v : values)
        tensor->add_int64_data(v);
    return tensor->name();
}

std::string GraphBuilder::node(const std::string& op, const std::vector<std::string>& inputs,
                               const std::vector<Attribute>& attributes, const std::string& hint)
{
    onnx::NodeProto* node = graph_.add_node();
    node->set_op_type(op);
    const std::string output = unique(hint.empty() ? op : hint);
    node->set_name(output);
    for (const std::string& input : inputs)
        node->add_input(input);
    node->add_output(output);
    for (const Attribute& a : attributes) {
        onnx::AttributeProto* attribute = node->add_attribute();
        attribute->set_name(a.name);
        switch (a.kind) {
        case Attribute::Kind::Int:
            attribute->set_type(onnx::AttributeProto::INT);
            attribute->set_i(a.i);
            break;
        case Attribute::Kind::Float:
            attribute->set_type(onnx::AttributeProto::FLOAT);
            attribute->set_f(a.f);
            break;
        case Attribute::Kind::String:
            attribute->set_type(onnx::AttributeProto::STRING);
            attribute->set_s(a.s);
            break;
        case Attribute::Kind::Ints:
            attribute->set_type(onnx::AttributeProto::INTS);
            for (std::int64_t v : a.ints)
                attribute->add_ints(v);
            break;
        }
    }
    return output;
}

std::string GraphBuilder::slice(const std::string& input, std::int64_t axis, std::int64_t start,
                                std::int64_t end, std::int64_t step)
{
    std::vector<std::string> inputs{input, int64s("starts", {start}), int64s("ends", {end}),
                                    int64s("axes", {axis})};
    if (step != 1)
        inputs.push_back(int64s("steps", {step}));
    return node("Slice", inputs);
}

std::string GraphBuilder::reshape(const std::string& input, const std::vector<std::int64_t>& shape)
{
    return node("Reshape", {input, int64s("shape", shape)});
}

} // namespace nw::onnx_export
