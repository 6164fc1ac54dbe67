#pragma once
// A thin builder over ONNX's protobuf GraphProto (Debian's libonnx-dev): named constants, nodes with
// attributes and unique tensor names. Private to core/export; the public entry is onnx_export.h.
#define ONNX_ML 1
#define ONNX_NAMESPACE onnx
#include <onnx/onnx_pb.h>

#include <cstdint>
#include <string>
#include <vector>

namespace nw::onnx_export {

// One attribute of a node: an int, a float, a string or a list of ints.
struct Attribute {
    std::string name;
    enum class Kind { Int, Float, String, Ints } kind;
    std::int64_t i = 0;
    float f = 0;
    std::string s;
    std::vector<std::int64_t> ints;

    static Attribute integer(std::string name, std::int64_t v)
    {
        Attribute a{std::move(name), Kind::Int, v, 0, {}, {}};
        return a;
    }
    static Attribute real(std::string name, float v) { return {std::move(name), Kind::Float, 0, v, {}, {}}; }
    static Attribute text(std::string name, std::string v)
    {
        return {std::move(name), Kind::String, 0, 0, std::move(v), {}};
    }
    static Attribute integers(std::string name, std::vector<std::int64_t> v)
    {
        return {std::move(name), Kind::Ints, 0, 0, {}, std::move(v)};
    }
};

class GraphBuilder {
public:
    GraphBuilder(onnx::GraphProto& graph, int opset) : graph_(graph), opset_(opset) {}
    int opset() const { return opset_; }

    // A float initializer of the given dims; returns its name (unique, prefixed by `hint`).
    std::string floats(const std::string& hint, const std::vector<std::int64_t>& dims,
                       const std::vector<float>& values);
    // A one-dimensional int64 initializer (shapes, slice bounds, pads).
    std::string int64s(const std::string& hint, const std::vector<std::int64_t>& values);
    // A node of `op` reading `inputs` ("" for an omitted optional input); returns its one output.
    std::string node(const std::string& op, const std::vector<std::string>& inputs,
                     const std::vector<Attribute>& attributes = {}, const std::string& hint = {});
    // A name no other tensor has, starting with `hint`.
    std::string unique(const std::string& hint);

    // Helpers used by several layer types.
    std::string scalar(const std::string& hint, float value) { return floats(hint, {}, {value}); }
    // x·k and x + k (no node for k = 1 and k = 0).
    std::string times(const std::string& x, float k)
    {
        return k == 1.0f ? x : node("Mul", {x, scalar("k", k)});
    }
    std::string plus(const std::string& x, float k)
    {
        return k == 0.0f ? x : node("Add", {x, scalar("k", k)});
    }
    // Elements [start, end) of `axis` (step `step`): Slice with its bounds as initializers.
    std::string slice(const std::string& input, std::int64_t axis, std::int64_t start, std::int64_t end,
                      std::int64_t step = 1);
    std::string reshape(const std::string& input, const std::vector<std::int64_t>& shape);

private:
    onnx::GraphProto& graph_;
    int opset_;
    int counter_ = 0;
};

} // namespace nw::onnx_export
