// One convolution shape, timed with each CPU kernel that can run it (im2col + GEMM tiles, Winograd
// F(4×4, 3×3) for 3×3, the direct kernel for up to 8 channels), in alternation, on random data: how
// kernel choices per layer shape were made. Ratios are to the GEMM path's time.
//   conv_kernels_bench WxHxC:FILTERS[:SIZE[:STRIDE]] ... [--runs N] [--threads T]   (input size, pad size/2)
#include "kernels/cpu/conv_direct.h"
#include "kernels/cpu/conv_tiled.h"
#include "kernels/cpu/gemm.h"
#include "kernels/cpu/winograd.h"
#include "util/thread_settings.h"

#include "median.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <random>
#include <string>
#include <vector>

using namespace nw;

namespace {

double medianMs(const std::vector<double>& times)
{
    return bench::median(times);
}

double timeOnce(const std::function<void()>& run)
{
    const auto start = std::chrono::steady_clock::now();
    run();
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

} // namespace

int main(int argc, char** argv)
{
    restartWithThreadSettings(argv);
    int runs = 30, threads = 2;
    std::vector<std::string> shapes;
    for (int i = 1; i < argc; ++i) {
        if (!std::strcmp(argv[i], "--runs") && i + 1 < argc)
            runs = std::atoi(argv[++i]);
        else if (!std::strcmp(argv[i], "--threads") && i + 1 < argc)
            threads = std::atoi(argv[++i]);
        else
            shapes.push_back(argv[i]);
    }
    if (shapes.empty() || runs < 1 || threads < 1) {
        std::fprintf(stderr, "usage: %s WxHxC:FILTERS[:SIZE[:STRIDE]] ... [--runs N] [--threads T]\n",
                     argv[0]);
        return 2;
    }
    setComputeThreads(threads);
    std::printf("%-18s %10s %10s %8s %10s %8s\n", "shape", "gemm ms", "winograd", "ratio", "direct", "ratio");
    for (const std::string& text : shapes) {
        int w = 0, h = 0, c = 0, filters = 0, size = 3, stride = 1;
        if (std::sscanf(text.c_str(), "%dx%dx%d:%d:%d:%d", &w, &h, &c, &filters, &size, &stride) < 4 ||
            w < 1 || h < 1 || c < 1 || filters < 1 || size < 1 || stride < 1) {
            std::fprintf(stderr, "%s: expected WxHxC:FILTERS[:SIZE[:STRIDE]], e.g. 52x52x64:128\n",
                         text.c_str());
            return 2;
        }
        const int pad = size / 2, outW = (w + 2 * pad - size) / stride + 1,
                  outH = (h + 2 * pad - size) / stride + 1;
        if (outW < 1 || outH < 1) {
            std::fprintf(stderr, "%s: a %dx%d window does not fit a %dx%d input\n", text.c_str(), size, size,
                         w, h);
            return 2;
        }
        const ConvGeometry g{c, h, w, size, stride, stride, pad, 1, outH, outW};
        std::mt19937 random(1);
        std::uniform_real_distribution<float> uniform(-1, 1);
        std::vector<float> input(std::size_t(c) * std::size_t(w * h)),
            weights(std::size_t(filters * c * size * size));
        for (float& v : input)
            v = uniform(random);
        for (float& v : weights)
            v = uniform(random) * 0.05f;
        std::vector<float> scale(std::size_t(filters), 1.0f), shift(std::size_t(filters), 0.0f),
            output(std::size_t(filters) * std::size_t(outW * outH));
        const bool winograd = winogradApplies(g, 1), direct = c <= 8;
        std::vector<float> workspace(std::max({convWorkspaceFloats(g, 1, filters, threads),
                                               winograd ? winogradWorkspaceFloats(g, filters, 1, threads) : 0,
                                               direct ? directWorkspaceFloats(g, filters, threads) : 0}));
        const ConvKernel tiled{
            g, 1, filters, weights.data(), scale.data(), shift.data(), Activation::Leaky, threads};
        const WinogradKernel fast{
            g, filters, weights.data(), scale.data(), shift.data(), Activation::Leaky, threads};
        const DirectKernel plain{
            g, filters, weights.data(), scale.data(), shift.data(), Activation::Leaky, threads};
        std::vector<double> gemmTimes, winogradTimes, directTimes;
        for (int run = 0; run < runs + 2; ++run) { // two warm-up runs each
            const double a =
                timeOnce([&] { convolveTiled(tiled, input.data(), output.data(), workspace.data()); });
            const double b = winograd ? timeOnce([&] {
                convolveWinograd(fast, 1, input.data(), output.data(), workspace.data());
            })
                                      : 0.0;
            const double d =
                direct
                    ? timeOnce([&] { convolveDirect(plain, input.data(), output.data(), workspace.data()); })
                    : 0.0;
            if (run >= 2) {
                gemmTimes.push_back(a);
                winogradTimes.push_back(b);
                directTimes.push_back(d);
            }
        }
        const double gm = medianMs(gemmTimes);
        const auto column = [&](bool applies, const std::vector<double>& times) {
            if (!applies) {
                std::printf(" %10s %8s", "-", "-");
                return;
            }
            const double ms = medianMs(times);
            std::printf(" %10.3f %8.2f", ms, ms / gm);
        };
        std::printf("%-18s %10.3f", text.c_str(), gm);
        column(winograd, winogradTimes);
        column(direct, directTimes);
        std::printf("\n");
    }
    return 0;
}
