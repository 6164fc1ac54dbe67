// Makes a parity case with the reference Darknet (Debian's libdarknet): random weights with
// non-trivial batch-norm statistics saved by Darknet itself, a random input, and every layer's output
// from Darknet's own forward pass.
//   darknet_ref_forward CFG OUTDIR SEED
// writes OUTDIR/net.weights, OUTDIR/input.f32 and OUTDIR/layer_NNN.f32 (batch 1, float32).
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>

extern "C" {
#include <darknet.h>
}
#include "zero_initial_weights.h"

namespace {

unsigned state = 1;
float uniform(float low, float high)
{
    state = state * 1664525u + 1013904223u; // a fixed LCG so runs repeat on every machine
    return low + (high - low) * float(state >> 8) / float(1u << 24);
}

void fill(float* values, long count, float low, float high)
{
    for (long i = 0; values && i < count; ++i)
        values[i] = uniform(low, high);
}

void fillBatchNorm(layer& l, int n)
{
    fill(l.scales, n, 0.5f, 1.5f);
    fill(l.rolling_mean, n, -0.2f, 0.2f);
    fill(l.rolling_variance, n, 0.5f, 1.5f);
}

// Weights scaled by fan-in so activations stay in a sensible range through deep nets.
void randomize(layer& l);
void randomize(layer& l)
{
    switch (l.type) {
    case CONVOLUTIONAL: {
        const int fanIn = l.c / l.groups * l.size * l.size;
        const float a = 1.7f / std::sqrt(float(fanIn));
        fill(l.weights, l.nweights, -a, a);
        fill(l.biases, l.n, -0.1f, 0.1f);
        if (l.batch_normalize)
            fillBatchNorm(l, l.n);
        break;
    }
    case CONNECTED: {
        const float a = 1.7f / std::sqrt(float(l.inputs));
        fill(l.weights, long(l.inputs) * l.outputs, -a, a);
        fill(l.biases, l.outputs, -0.1f, 0.1f);
        if (l.batch_normalize)
            fillBatchNorm(l, l.outputs);
        break;
    }
    case LOCAL: {
        const int locations = l.out_w * l.out_h;
        const int fanIn = l.c * l.size * l.size;
        const float a = 1.7f / std::sqrt(float(fanIn));
        fill(l.weights, long(fanIn) * l.n * locations, -a, a);
        fill(l.biases, l.outputs, -0.1f, 0.1f);
        break;
    }
    case BATCHNORM:
        fillBatchNorm(l, l.c);
        break;
    case RNN: // the gates are connected sub-layers
        for (layer* part : {l.input_layer, l.self_layer, l.output_layer})
            randomize(*part);
        break;
    case GRU:
        for (layer* part : {l.uz, l.ur, l.uh, l.wz, l.wr, l.wh})
            randomize(*part);
        break;
    case DECONVOLUTIONAL: {
        const float a = 1.7f / std::sqrt(float(l.c));
        fill(l.weights, long(l.c) * l.n * l.size * l.size, -a, a);
        fill(l.biases, l.n, -0.1f, 0.1f);
        if (l.batch_normalize)
            fillBatchNorm(l, l.n);
        break;
    }
    case CRNN:
        for (layer* part : {l.input_layer, l.self_layer, l.output_layer})
            randomize(*part);
        break;
    case LSTM:
        for (layer* part : {l.wi, l.wf, l.wo, l.wg, l.ui, l.uf, l.uo, l.ug})
            randomize(*part);
        break;
    default:
        break;
    }
}

bool writeFloats(const std::string& path, const float* values, long count)
{
    FILE* file = std::fopen(path.c_str(), "wb");
    if (!file)
        return false;
    const bool ok = std::fwrite(values, sizeof(float), size_t(count), file) == size_t(count);
    return std::fclose(file) == 0 && ok;
}

} // namespace

int main(int argc, char** argv)
{
    if (argc != 4) {
        std::fprintf(stderr, "usage: %s CFG OUTDIR SEED\n", argv[0]);
        return 2;
    }
    const std::string dir = argv[2];
    state = unsigned(std::atoi(argv[3]));
    network* net = parse_network_cfg(argv[1]);
    set_batch_network(net, 1);
    for (int i = 0; i < net->n; ++i)
        randomize(net->layers[i]);
    std::string weights = dir + "/net.weights";
    save_weights(net, &weights[0]);

    const long inputs = net->inputs;
    float* input = static_cast<float*>(std::calloc(size_t(inputs), sizeof(float)));
    fill(input, inputs, 0.0f, 1.0f);
    if (!writeFloats(dir + "/input.f32", input, inputs))
        return 1;
    network_predict(net, input);
    for (int i = 0; i < net->n; ++i) {
        char name[32];
        std::snprintf(name, sizeof name, "/layer_%03d.f32", i);
        if (!writeFloats(dir + name, net->layers[i].output, net->layers[i].outputs))
            return 1;
    }
    return 0;
}
